#!/usr/bin/env python3
"""Typing into the cities, keystroke by keystroke, in Sift and its peers in one run.

Each query of a queries file is typed a character at a time; every keystroke asks each engine
for what a search screen needs: the first 20 rows, best first, and how many match.

  sift      `sift bench --each` on the .sqlite catalog (in process: SearchController, the
            rows ordered as far as a page needs, the exact count)
  tantivy   the PyPI package (Rust, in process, index in memory): per term a fuzzy term query
            on name and alternates (1 edit from 4 letters, the last term a prefix while it is
            being typed), all terms required, BM25 × log2(2 + population), top 20 + count
  fts5      SQLite FTS5 through Python's sqlite3 (unicode61, diacritics removed): every term a
            prefix query, ordered by population, top 20 + count(*)
  fzf       `fzf --filter` over every name (a process per keystroke, reading the names file):
            what a shell user would run; top 20 by fzf's own score

Usage: peers.py CITIES_JSONL CITIES_SQLITE --sift PATH [--queries FILE]... [--names city-names.txt]
Needs tantivy from PyPI and, with --names, fzf: installed (pip, apt-get) when missing.
"""
import argparse, json, os, re, sqlite3, statistics, subprocess, sys, time, unicodedata


def keystrokes(queries):
    """(typed so far, starts a term) for every keystroke that is not a space."""
    for query in queries:
        typed = ""
        for character in query:
            starts = typed == "" or typed[-1].isspace()
            typed += character
            if not character.isspace():
                yield typed, starts


def percentile(values, p):
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, int(-(-len(ordered) * p // 1)) - 1))]


def sift_times(sift, catalog, query_files):
    times = []
    for path in query_files:
        run = subprocess.run([sift, "bench", "--catalog", catalog, "--queries", path, "--each"],
                             capture_output=True, text=True, check=True)
        for line in run.stderr.splitlines():
            parts = line.split("\t")
            if len(parts) == 3 and parts[0].endswith(" ms") and not parts[1][-1:].isspace():
                times.append((parts[1], float(parts[0][:-3])))
    return times


def fold(text):
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).casefold()


def ensure_tools(with_fzf):
    try:
        import tantivy  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "tantivy"], check=True)
    if with_fzf and subprocess.run(["which", "fzf"], capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", "fzf"], check=True)


def build_tantivy(cities):
    import tantivy
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("name", stored=True, tokenizer_name="default")
    builder.add_text_field("alternates", stored=False, tokenizer_name="default")
    builder.add_integer_field("population", stored=False, fast=True)
    builder.add_integer_field("id", stored=True)
    schema = builder.build()
    index = tantivy.Index(schema)
    writer = index.writer(heap_size=500_000_000, num_threads=2)
    for city in cities:
        writer.add_document(tantivy.Document(
            name=fold(city["name"]), alternates=[fold(a) for a in city["alternates"]] or [""],
            population=int(city["population"] or 0), id=int(city["id"])))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return tantivy, schema, index


def tantivy_search(tantivy, schema, searcher, typed, limit=20):
    words = [w for w in re.split(r"[^\w]+", fold(typed)) if w]
    if not words:
        return 0, []
    finished = typed.endswith(" ")
    clauses = []
    for position, word in enumerate(words):
        prefix = position == len(words) - 1 and not finished
        distance = 1 if len(word) >= 4 else 0
        fields = [tantivy.Query.fuzzy_term_query(schema, field, word, distance=distance,
                                                 transposition_cost_one=True, prefix=prefix)
                  for field in ("name", "alternates")]
        clauses.append((tantivy.Occur.Must,
                        tantivy.Query.boolean_query([(tantivy.Occur.Should, f) for f in fields])))
    query = tantivy.Query.boolean_query(clauses)
    result = searcher.search(query, limit, count=True, weight_by_field="population")
    return result.count, result.hits


def build_fts5(cities):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE names USING fts5(name, alternates, "
               "tokenize='unicode61 remove_diacritics 2')")
    db.execute("CREATE TABLE population(id INTEGER PRIMARY KEY, population INTEGER)")
    with db:
        for number, city in enumerate(cities, 1):
            db.execute("INSERT INTO names(rowid, name, alternates) VALUES (?, ?, ?)",
                       (number, city["name"], " | ".join(city["alternates"])))
            db.execute("INSERT INTO population VALUES (?, ?)", (number, city["population"] or 0))
    return db


def fts5_search(db, typed):
    words = [w for w in re.split(r"[^\w]+", typed) if w]
    if not words:
        return 0, []
    match = " ".join('"%s"*' % w.replace('"', '""') for w in words)
    rows = db.execute("SELECT names.rowid FROM names JOIN population ON population.id = names.rowid "
                      "WHERE names MATCH ? ORDER BY population DESC LIMIT 20", (match,)).fetchall()
    count = db.execute("SELECT count(*) FROM names WHERE names MATCH ?", (match,)).fetchone()[0]
    return count, rows


def timed(function, typed_keys):
    times = []
    for typed, _ in typed_keys:
        start = time.perf_counter()
        function(typed)
        times.append((typed, (time.perf_counter() - start) * 1000))
    return times


def summary(name, times, starts_by_key):
    all_ms = [t for _, t in times]
    first = [t for (typed, t) in times if starts_by_key.get(typed)]
    refining = [t for (typed, t) in times if not starts_by_key.get(typed)]
    return (f"{name:<9} {percentile(all_ms, .5):>8.2f} {percentile(all_ms, .99):>8.2f} "
            f"{percentile(first, .5):>8.2f} {percentile(first, .99):>8.2f} "
            f"{percentile(refining, .5):>8.2f} {percentile(refining, .99):>8.2f}   {len(all_ms)}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cities")
    parser.add_argument("catalog")
    parser.add_argument("--sift", required=True)
    parser.add_argument("--queries", action="append")
    parser.add_argument("--names")
    args = parser.parse_args()
    ensure_tools(args.names is not None)
    here = os.path.dirname(os.path.abspath(__file__))
    query_files = args.queries or [os.path.join(here, "queries", "cities.txt"),
                                   os.path.join(here, "queries", "cities-misspelt.txt")]
    queries = [line.rstrip("\n") for path in query_files
               for line in open(path, encoding="utf-8") if line.strip()]
    keys = list(keystrokes(queries))
    starts_by_key = {typed: starts for typed, starts in keys}
    cities = [json.loads(line) for line in open(args.cities, encoding="utf-8")]

    results = {"sift": sift_times(args.sift, args.catalog, query_files)}
    started = time.perf_counter()
    tantivy, schema, index = build_tantivy(cities)
    print(f"tantivy: indexed {len(cities)} cities in {time.perf_counter() - started:.1f} s",
          file=sys.stderr)
    searcher = index.searcher()
    results["tantivy"] = timed(lambda t: tantivy_search(tantivy, schema, searcher, t), keys)
    started = time.perf_counter()
    db = build_fts5(cities)
    print(f"fts5: indexed in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    results["fts5"] = timed(lambda t: fts5_search(db, t), keys)
    if args.names:
        def fzf(typed):
            with open(args.names, "rb") as names:
                subprocess.run(["fzf", "--filter", typed], stdin=names,
                               stdout=subprocess.PIPE, check=False)
        results["fzf"] = timed(fzf, keys)

    print(f"{len(keys)} keystrokes typing {len(queries)} queries; ms per keystroke "
          f"(top 20 + count)")
    print(f"{'engine':<9} {'p50':>8} {'p99':>8} {'first50':>8} {'first99':>8} "
          f"{'refin50':>8} {'refin99':>8}   keys")
    for name, times in results.items():
        print(summary(name, times, starts_by_key))


if __name__ == "__main__":
    main()
