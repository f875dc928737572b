#!/usr/bin/env python3
"""Known-item relevance benchmark on the GeoNames cities corpus: Sift next to SQLite FTS5 and
Tantivy, on the same queries.

Usage: relevance.py CITIES_JSONL CATALOG_SQLITE --sift PATH [--seed N] [--count N] [--out DIR]

CATALOG_SQLITE is cities.jsonl imported with
  sift import cities.jsonl --catalog CATALOG --title name --text alternates \
      --number population --category country --id id --rank-by population

Three kinds of known-item queries are drawn (seeded; the seed is printed), --count of each
(1,000 by default: at 300 a kind one query is a third of a point), each with its expected
answer given by a rule a person can check:
  exact     a full name, in its own script, of a city of 15,000 people or more: its title, or
            one of its alternate names (non-Latin scripts preferred). Expected: the most
            populous city whose title equals the query (folded) — a name that is some place's
            own name means that place — or, when no title does, the most populous city with an
            alternate name equal to it. Scored at 1.
  prefix    the first 2 to 6 characters of a name being typed: a city drawn in proportion to
            its population (the commonest search is for a famous place), then its title or
            one of its alternate names (no codes of four letters or fewer), cut before its end.
            Kept when that city is the most populous one with a name (title or alternate) that
            starts with the prefix. Expected: that city. Scored at 3.
  typo      the title of a city of 100,000 or more (five letters or more) with one random edit
            (substitute, delete, insert or swap two neighbours; never the first letter), kept
            only when no name in the corpus equals it. Expected: that city. Scored at 3.
A result counts when the expected city's id is among the first k results. Queries repeat no
query and leave out the examples the tests use (HELD_OUT), so no rule is tuned to them.

FTS5 runs the same queries over a table of every name (tokenize "unicode61 remove_diacritics
2"), each term a prefix query ("term"*), ANDed; cities are ranked by their best bm25, and
separately by population (what a GRDB app would write). FTS5 has no typo tolerance.
Tantivy (PyPI, as `peers.py` sets it up) runs each term as a fuzzy term query on name and
alternates (one edit from four letters, the last term a prefix), all terms required, BM25
weighted by population.

Writes queries-*.txt, misses-*.txt (Sift's misses: the query, the expected city, what came
first) and results.json into --out (default: a temporary folder) and prints a Markdown table.
"""
import argparse, json, os, random, re, sqlite3, subprocess, sys, tempfile, time, unicodedata

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import peers  # noqa: E402  (Benchmarks/peers.py: Tantivy set up as for the latency run)

# The examples the tests (and issue 29) name: never drawn, so that no rule is tuned to them.
HELD_OUT = {"gen", "pra", "mon", "cope", "st pete", "sao p", "pointe-nsoire", "ttotori-shi",
            "da nang", "paris", "rose"}

SPECIAL = str.maketrans({"đ": "d", "ł": "l", "ø": "o", "æ": "ae", "œ": "oe", "ħ": "h", "ı": "i",
                         "þ": "th", "ŀ": "l"})


def fold(text):
    """Sift's folding, closely enough to state expected answers (DESIGN §3)."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(c for c in decomposed if unicodedata.category(c) not in ("Mn", "Me", "Cf"))
    return kept.casefold().translate(SPECIAL)


def script_of(name):
    for c in name:
        if c.isalpha():
            n = unicodedata.name(c, "")
            return n.split(" ")[0]
    return "OTHER"


def edit(word, rng):
    """One random edit, never touching the first letter."""
    letters = list(word)
    alphabet = sorted(set(fold(word).replace(" ", ""))) or list("abcdefghijklmnopqrstuvwxyz")
    kind = rng.choice(["substitute", "delete", "insert", "swap"])
    i = rng.randrange(1, len(letters))
    if kind == "substitute":
        choices = [c for c in "abcdefghijklmnopqrstuvwxyz" + "".join(alphabet) if c != letters[i].lower()]
        letters[i] = rng.choice(choices)
    elif kind == "delete":
        del letters[i]
    elif kind == "insert":
        letters.insert(i, rng.choice("abcdefghijklmnopqrstuvwxyz"))
    elif i + 1 < len(letters):
        letters[i], letters[i + 1] = letters[i + 1], letters[i]
    else:
        letters[i - 1], letters[i] = letters[i], letters[i - 1]
        if i - 1 == 0:
            return None
    return "".join(letters)


def build_queries(cities, rng, count):
    by_name = {}   # folded name -> most populous city with that alternate or title
    by_title = {}  # folded title -> most populous city with that title
    for c in cities:
        for name in {fold(n) for n in [c["name"]] + c["alternates"]}:
            best = by_name.get(name)
            if best is None or c["population"] > best["population"]:
                by_name[name] = c
        title = fold(c["name"])
        best = by_title.get(title)
        if best is None or c["population"] > best["population"]:
            by_title[title] = c
    queries = {"exact": [], "prefix": [], "typo": []}
    seen = set(HELD_OUT)  # folded queries already drawn
    medium = [c for c in cities if c["population"] >= 15000]
    large = [c for c in cities if c["population"] >= 100000]
    while len(queries["exact"]) < count:
        c = rng.choice(medium)
        others = [a for a in c["alternates"] if script_of(a) != "LATIN" and len(a) >= 2]
        name = rng.choice(others) if others and rng.random() < 0.5 else c["name"]
        folded = fold(name).strip()
        if not folded:
            continue
        if folded in seen:
            continue
        seen.add(folded)
        expected = by_title.get(folded) or by_name[folded]
        queries["exact"].append((name, expected["id"]))
    best_with_prefix = {}  # folded prefix of 2-6 characters -> most populous city with a name so
    for c in cities:
        for name in {fold(n).strip() for n in [c["name"]] + c["alternates"]}:
            for length in range(2, min(6, len(name)) + 1):
                best = best_with_prefix.get(name[:length])
                if best is None or c["population"] > best["population"]:
                    best_with_prefix[name[:length]] = c
    weights = [max(1, c["population"]) for c in cities]
    while len(queries["prefix"]) < count:
        c = rng.choices(cities, weights=weights)[0]
        names = [a for a in c["alternates"] if len(a) > 4 or not re.fullmatch(r"[A-Z0-9]+", a)]
        name = c["name"] if not names or rng.random() < 0.5 else rng.choice(names)
        if len(name) < 3:
            continue
        prefix = name[:rng.randint(2, min(6, len(name) - 1))].rstrip()
        folded = fold(prefix).strip()
        if len(folded) < 2 or folded in seen:
            continue
        if best_with_prefix.get(folded) is c:
            seen.add(folded)
            queries["prefix"].append((prefix, c["id"]))
    while len(queries["typo"]) < count:
        c = rng.choice(large)
        if len(fold(c["name"])) < 5 or " " in c["name"]:
            continue
        wrong = edit(c["name"], rng)
        if not wrong or fold(wrong) in by_name or fold(wrong) in seen:
            continue
        seen.add(fold(wrong))
        queries["typo"].append((wrong, c["id"]))
    return queries


def run_sift(sift, catalog, queries, out):
    path = os.path.join(out, "sift-queries.txt")
    with open(path, "w", encoding="utf-8") as f:
        for q, _ in queries:
            f.write(q + "\n")
    started = time.time()
    done = subprocess.run([sift, "search", "--catalog", catalog, "--queries", path, "--json",
                           "--limit", "3"], capture_output=True, text=True, check=True)
    elapsed = time.time() - started
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    return [[int(r["id"]) for r in a["results"]] for a in answers], elapsed


def build_fts(cities, path):
    if os.path.exists(path):
        return sqlite3.connect(path)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE city(id INTEGER PRIMARY KEY, population INTEGER)")
    db.execute("CREATE VIRTUAL TABLE names USING fts5(name, city UNINDEXED, "
               "tokenize = 'unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO city VALUES (?, ?)", ((c["id"], c["population"]) for c in cities))
    db.executemany("INSERT INTO names VALUES (?, ?)",
                   ((n, c["id"]) for c in cities for n in [c["name"]] + c["alternates"]))
    db.commit()
    return db


def fts_query(text):
    terms = [t for t in re.split(r"\s+", text.strip()) if t]
    return " AND ".join('"' + t.replace('"', '""') + '"*' for t in terms)


def run_fts(db, queries, order):
    # bm25() works on the rows of the MATCH itself: rank the names, then keep each city once.
    sql = {
        "bm25": "SELECT city FROM names WHERE names MATCH ? ORDER BY bm25(names) LIMIT 200",
        "population": "SELECT n.city FROM names n JOIN city c ON c.id = n.city WHERE names MATCH ? "
                      "GROUP BY n.city ORDER BY max(c.population) DESC LIMIT 3",
    }[order]
    answers = []
    started = time.time()
    for q, _ in queries:
        try:
            cities = []
            for (city,) in db.execute(sql, (fts_query(q),)):
                if city not in cities:
                    cities.append(city)
            answers.append(cities[:3])
        except sqlite3.OperationalError:
            answers.append([])
    return answers, time.time() - started


def run_tantivy(tantivy, schema, searcher, queries):
    answers = []
    started = time.time()
    for q, _ in queries:
        _, hits = peers.tantivy_search(tantivy, schema, searcher, q, limit=3)
        answers.append([searcher.doc(address)["id"][0] for _, address in hits])
    return answers, time.time() - started


def score(answers, queries, k):
    hits = sum(1 for a, (_, want) in zip(answers, queries) if want in a[:k])
    return 100.0 * hits / max(1, len(queries))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cities")
    parser.add_argument("catalog")
    parser.add_argument("--sift", required=True)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--out")
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="sift-relevance-")
    os.makedirs(out, exist_ok=True)
    print(f"seed {args.seed}, {args.count} queries a kind, output in {out}", file=sys.stderr)
    cities = [json.loads(line) for line in open(args.cities, encoding="utf-8")]
    rng = random.Random(args.seed)
    queries = build_queries(cities, rng, args.count)
    db = build_fts(cities, os.path.join(out, "fts5.sqlite"))
    peers.ensure_tools(with_fzf=False)
    tantivy, schema, index = peers.build_tantivy(cities)
    searcher = index.searcher()
    names = {c["id"]: c["name"] for c in cities}
    results = {}
    rows = []
    for kind, k in [("exact", 1), ("prefix", 3), ("typo", 3)]:
        qs = queries[kind]
        with open(os.path.join(out, f"queries-{kind}.txt"), "w", encoding="utf-8") as f:
            for q, want in qs:
                f.write(f"{q}\t{want}\n")
        sift, sift_seconds = run_sift(args.sift, args.catalog, qs, out)
        bm25, _ = run_fts(db, qs, "bm25")
        pop, fts_seconds = run_fts(db, qs, "population")
        tv, _ = run_tantivy(tantivy, schema, searcher, qs)
        results[kind] = {"queries": qs, "sift": sift, "fts5_bm25": bm25, "fts5_population": pop,
                         "tantivy": tv}
        rows.append((kind, len(qs), k, score(sift, qs, 1), score(sift, qs, 3), score(bm25, qs, 1),
                     score(bm25, qs, 3), score(pop, qs, 1), score(pop, qs, 3), score(tv, qs, 1),
                     score(tv, qs, 3)))
        misses = [(q, want, got) for (q, want), got in zip(qs, sift) if want not in got[:k]]
        with open(os.path.join(out, f"misses-{kind}.txt"), "w", encoding="utf-8") as f:
            for q, want, got in misses:
                f.write(f"{q}\texpected {names[want]} ({want})\tgot "
                        + " | ".join(names.get(i, str(i)) for i in got) + "\n")
        shown = [(q, names[want], [names.get(i, i) for i in got]) for q, want, got in misses[:8]]
        print(f"{kind}: {len(misses)} Sift misses, e.g. {shown}", file=sys.stderr)
    with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, ensure_ascii=False)
    print("| queries | n | scored at | Sift @1 | Sift @3 | FTS5 bm25 @1 | FTS5 bm25 @3 "
          "| FTS5 by population @1 | FTS5 by population @3 | Tantivy @1 | Tantivy @3 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for kind, n, k, *values in rows:
        print(f"| {kind} | {n} | @{k} | " + " | ".join(f"{v:.1f}%" for v in values) + " |")


if __name__ == "__main__":
    main()
