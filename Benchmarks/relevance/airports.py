#!/usr/bin/env python3
"""Relevance where a catalog has no popularity: the airports of PyPI's `airportsdata` (28,298,
keyed by ICAO code), imported without a ranking field, searched with judged queries of our own,
Sift beside SQLite FTS5 and Tantivy on the same queries.

Usage: airports.py --sift PATH [--out DIR]

The catalog is imported as a person would:
  sift import airports.jsonl --catalog airports.sqlite --title name --text city --text region \
      --other-names iata --other-names icao --category country --id icao \
      --location latitude,longitude
(a code names an airport as its title does: `--other-names` ranks it like the title; the city
and the region describe it).

The queries (JUDGED below) are written by hand, each with the airports a person would accept:
  place     a city's name: its main airport(s) (London: Heathrow, Gatwick, Stansted, City, Luton)
  code      an IATA code, lower case as people type it
  name      a word of an airport's own name that people use for it (heathrow, schiphol)
  typo      a place or name with one edit (zuirch, heathrw)
  near      a name with --near a point in its city (midway near Chicago's centre)
Each is scored at 1 and at 3: a hit when an accepted airport is among the first k results.

FTS5: one table of name, city, region, iata and icao (tokenize "unicode61 remove_diacritics 2"),
each term a prefix query ("term"*), ANDed, ranked by bm25; no typo tolerance, no --near (its
near queries count as misses). Tantivy (PyPI): each term a fuzzy term query on every field (one
edit from four letters, the last term a prefix), all terms required, BM25; no --near either.

Prints a Markdown table and writes misses-sift.txt (query, accepted, Sift's first three) into
--out (default: a temporary folder).
"""
import argparse, json, os, re, sqlite3, subprocess, sys, tempfile

from common import ensure, fold, sift_ids

JUDGED = [
    # places
    ("place", "zurich", {"LSZH"}), ("place", "london", {"EGLL", "EGKK", "EGSS", "EGLC", "EGGW"}),
    ("place", "paris", {"LFPG", "LFPO"}), ("place", "new york", {"KJFK", "KLGA"}),
    ("place", "istanbul", {"LTFM", "LTFJ"}), ("place", "anchorage", {"PANC"}),
    ("place", "singapore", {"WSSS"}), ("place", "tokyo", {"RJTT", "RJAA"}),
    ("place", "munich", {"EDDM"}), ("place", "frankfurt", {"EDDF"}), ("place", "madrid", {"LEMD"}),
    ("place", "barcelona", {"LEBL"}), ("place", "rome", {"LIRF", "LIRA"}),
    ("place", "hong kong", {"VHHH"}), ("place", "toronto", {"CYYZ", "CYTZ"}),
    ("place", "los angeles", {"KLAX"}), ("place", "san francisco", {"KSFO"}),
    ("place", "vienna", {"LOWW"}), ("place", "copenhagen", {"EKCH"}),
    ("place", "stockholm", {"ESSA", "ESSB"}), ("place", "oslo", {"ENGM"}),
    ("place", "helsinki", {"EFHK"}), ("place", "lisbon", {"LPPT"}), ("place", "dublin", {"EIDW"}),
    ("place", "moscow", {"UUEE", "UUDD", "UUWW"}), ("place", "beijing", {"ZBAA", "ZBAD"}),
    ("place", "seoul", {"RKSI", "RKSS"}), ("place", "new delhi", {"VIDP"}),
    ("place", "johannesburg", {"FAOR"}), ("place", "cairo", {"HECA"}),
    ("place", "mexico city", {"MMMX"}), ("place", "auckland", {"NZAA"}),
    ("place", "geneva", {"LSGG"}), ("place", "berlin", {"EDDB"}), ("place", "prague", {"LKPR"}),
    ("place", "amsterdam", {"EHAM"}), ("place", "dubai", {"OMDB", "OMDW"}),
    ("place", "sydney", {"YSSY"}), ("place", "chicago", {"KORD", "KMDW"}),
    # codes
    ("code", "sin", {"WSSS"}), ("code", "lhr", {"EGLL"}), ("code", "jfk", {"KJFK"}),
    ("code", "zrh", {"LSZH"}), ("code", "cdg", {"LFPG"}), ("code", "hnd", {"RJTT"}),
    ("code", "dxb", {"OMDB"}), ("code", "syd", {"YSSY"}), ("code", "gru", {"SBGR"}),
    ("code", "ist", {"LTFM"}), ("code", "anc", {"PANC"}), ("code", "mdw", {"KMDW"}),
    ("code", "ord", {"KORD"}), ("code", "ams", {"EHAM"}), ("code", "fra", {"EDDF"}),
    ("code", "muc", {"EDDM"}), ("code", "lax", {"KLAX"}), ("code", "sfo", {"KSFO"}),
    ("code", "mad", {"LEMD"}), ("code", "bcn", {"LEBL"}), ("code", "fco", {"LIRF"}),
    ("code", "hkg", {"VHHH"}), ("code", "yyz", {"CYYZ"}), ("code", "vie", {"LOWW"}),
    ("code", "cph", {"EKCH"}), ("code", "icn", {"RKSI"}), ("code", "del", {"VIDP"}),
    ("code", "eze", {"SAEZ"}), ("code", "akl", {"NZAA"}), ("code", "ber", {"EDDB"}),
    # names
    ("name", "heathrow", {"EGLL"}), ("name", "gatwick", {"EGKK"}), ("name", "stansted", {"EGSS"}),
    ("name", "schiphol", {"EHAM"}), ("name", "changi", {"WSSS"}), ("name", "narita", {"RJAA"}),
    ("name", "o'hare", {"KORD"}), ("name", "laguardia", {"KLGA"}), ("name", "kastrup", {"EKCH"}),
    ("name", "arlanda", {"ESSA"}), ("name", "gardermoen", {"ENGM"}), ("name", "barajas", {"LEMD"}),
    ("name", "fiumicino", {"LIRF"}), ("name", "incheon", {"RKSI"}), ("name", "sheremetyevo", {"UUEE"}),
    ("name", "pearson", {"CYYZ"}), ("name", "charles de gaulle", {"LFPG"}),
    ("name", "orly", {"LFPO"}), ("name", "kingsford smith", {"YSSY"}),
    ("name", "john f kennedy", {"KJFK"}), ("name", "guarulhos", {"SBGR"}),
    ("name", "chek lap kok", {"VHHH"}), ("name", "cointrin", {"LSGG"}),
    # misspellings
    ("typo", "zuirch", {"LSZH"}), ("typo", "heathrw", {"EGLL"}), ("typo", "schipol", {"EHAM"}),
    ("typo", "frankfrut", {"EDDF"}), ("typo", "istambul", {"LTFM", "LTFJ"}),
    ("typo", "singapur", {"WSSS"}), ("typo", "anchroage", {"PANC"}), ("typo", "gatwik", {"EGKK"}),
    ("typo", "copenhagn", {"EKCH"}), ("typo", "lisbno", {"LPPT"}), ("typo", "helsinky", {"EFHK"}),
    ("typo", "nareta", {"RJAA"}), ("typo", "madird", {"LEMD"}), ("typo", "barcelna", {"LEBL"}),
    ("typo", "sheremetevo", {"UUEE"}),
    # near a place: the city's centre
    ("near", "midway", {"KMDW"}, "41.8781,-87.6298"),
    ("near", "international", {"KORD", "KMDW"}, "41.8781,-87.6298"),
    ("near", "city", {"EGLC"}, "51.5074,-0.1278"),
    ("near", "airport", {"LSZH"}, "47.3769,8.5417"),
    ("near", "international", {"LFPG", "LFPO"}, "48.8566,2.3522"),
    ("near", "kennedy", {"KJFK"}, "40.7128,-74.0060"),
]


def records():
    import airportsdata
    for icao, a in sorted(airportsdata.load().items()):
        yield {"icao": icao, "iata": a["iata"], "name": a["name"], "city": a["city"],
               "region": a["subd"], "country": a["country"], "latitude": a["lat"],
               "longitude": a["lon"]}


def run_sift(sift, catalog, query, near):
    return sift_ids(sift, catalog, query, options=["--near", near] if near else [])


def build_fts(airports):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE airports USING fts5(icao UNINDEXED, name, city, region, "
               "iata, code, tokenize = 'unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO airports VALUES (?, ?, ?, ?, ?, ?)",
                   ((a["icao"], a["name"], a["city"], a["region"], a["iata"], a["icao"])
                    for a in airports))
    return db


def run_fts(db, query):
    terms = [t for t in re.split(r"[^\w]+", query) if t]
    if not terms:
        return []
    match = " AND ".join('"' + t.replace('"', '""') + '"*' for t in terms)
    return [row[0] for row in db.execute(
        "SELECT icao FROM airports WHERE airports MATCH ? ORDER BY bm25(airports) LIMIT 3", (match,))]


def build_tantivy(airports):
    import tantivy
    builder = tantivy.SchemaBuilder()
    for field in ("name", "city", "region", "codes"):
        builder.add_text_field(field, stored=False, tokenizer_name="default")
    builder.add_text_field("icao", stored=True, tokenizer_name="raw")
    schema = builder.build()
    index = tantivy.Index(schema)
    writer = index.writer(heap_size=200_000_000, num_threads=2)
    for a in airports:
        writer.add_document(tantivy.Document(
            name=fold(a["name"]), city=fold(a["city"]), region=fold(a["region"]),
            codes=fold(a["iata"] + " " + a["icao"]), icao=a["icao"]))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return tantivy, schema, index.searcher()


def run_tantivy(tantivy, schema, searcher, query):
    words = [w for w in re.split(r"[^\w]+", fold(query)) if w]
    if not words:
        return []
    clauses = []
    for position, word in enumerate(words):
        fields = [tantivy.Query.fuzzy_term_query(
            schema, field, word, distance=1 if len(word) >= 4 else 0,
            transposition_cost_one=True, prefix=position == len(words) - 1)
            for field in ("name", "city", "region", "codes")]
        clauses.append((tantivy.Occur.Must,
                        tantivy.Query.boolean_query([(tantivy.Occur.Should, f) for f in fields])))
    hits = searcher.search(tantivy.Query.boolean_query(clauses), 3).hits
    return [searcher.doc(address)["icao"][0] for _, address in hits]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sift", required=True)
    parser.add_argument("--out")
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="sift-airports-")
    os.makedirs(out, exist_ok=True)
    ensure("airportsdata", "tantivy")
    airports = list(records())
    known = {a["icao"] for a in airports}
    for entry in JUDGED:
        missing = entry[2] - known
        if missing:
            sys.exit(f"judged query {entry[1]!r} accepts airports the data lacks: {missing}")
    source = os.path.join(out, "airports.jsonl")
    catalog = os.path.join(out, "airports.sqlite")
    with open(source, "w", encoding="utf-8") as f:
        for a in airports:
            f.write(json.dumps(a, ensure_ascii=False) + "\n")
    if not os.path.exists(catalog):
        subprocess.run([args.sift, "import", source, "--catalog", catalog, "--title", "name",
                        "--text", "city", "--text", "region", "--other-names", "iata",
                        "--other-names", "icao",
                        "--category", "country", "--id", "icao", "--location",
                        "latitude,longitude"], check=True, capture_output=True)
    fts = build_fts(airports)
    tantivy, schema, searcher = build_tantivy(airports)
    kinds = ["place", "code", "name", "typo", "near"]
    engines = ["Sift", "FTS5 bm25", "Tantivy"]
    hits = {(e, k, at): 0 for e in engines for k in kinds for at in (1, 3)}
    counts = {k: 0 for k in kinds}
    misses = []
    for entry in JUDGED:
        kind, query, accepted = entry[0], entry[1], entry[2]
        near = entry[3] if len(entry) > 3 else None
        counts[kind] += 1
        answers = {
            "Sift": run_sift(args.sift, catalog, query, near),
            "FTS5 bm25": [] if near else run_fts(fts, query),
            "Tantivy": [] if near else run_tantivy(tantivy, schema, searcher, query),
        }
        for engine, found in answers.items():
            for at in (1, 3):
                if accepted & set(found[:at]):
                    hits[(engine, kind, at)] += 1
        if not accepted & set(answers["Sift"][:1]):
            misses.append(f"{kind}\t{query}{' near ' + near if near else ''}\t"
                          f"{','.join(sorted(accepted))}\t{','.join(answers['Sift'])}")
    with open(os.path.join(out, "misses-sift.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(misses) + "\n")
    print(f"{len(airports):,} airports, {len(JUDGED)} judged queries; Sift's misses at 1: "
          f"{os.path.join(out, 'misses-sift.txt')}")
    print("| queries | n | scored at | " + " | ".join(engines) + " |")
    print("|---|---:|---|" + "---:|" * len(engines))
    for kind in kinds:
        for at in (1, 3):
            cells = [f"{100.0 * hits[(e, kind, at)] / counts[kind]:.1f}%" for e in engines]
            print(f"| {kind} | {counts[kind]} | @{at} | " + " | ".join(cells) + " |")
    for at in (1, 3):
        cells = [f"{100.0 * sum(hits[(e, k, at)] for k in kinds) / len(JUDGED):.1f}%"
                 for e in engines]
        print(f"| all | {len(JUDGED)} | @{at} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
