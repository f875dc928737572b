#!/usr/bin/env python3
"""Importing the cities, in Sift and its peers in one run: time and peak memory.

Each engine reads the same JSON Lines file (Scripts/make-cities; --times N for N copies) and
leaves an index on disk, in a process of its own measured by /usr/bin/time (wall time, peak
resident memory):

  sift      `sift import FILE --catalog C.sqlite` with the flags docs/command-line.md gives the cities
            (title, alternates searched, population as the ranking, country, place): the rows in
            SQLite and the search index file (archive, typo dictionaries, trigrams)
  fts5      SQLite FTS5 through Python's sqlite3 (unicode61, diacritics removed): name and
            alternates, and a table of populations, in one transaction
  tantivy   the PyPI package (Rust): name and alternates folded as its searches fold them,
            population and id; a writer on two threads with a 256 MB budget, committed
  sift-csv  with --csv FILE: `sift import` of the same cities as CSV (Scripts/make-cities
            --csv), with the same flags
  before    with --before PATH: another build of sift (the one before a change), the same
            imports alternated with this one's (`before-csv` with --csv)

Usage: import-peers.py CITIES_JSONL --sift PATH [--runs N] [--csv CITIES_CSV] [--before PATH]
Needs /usr/bin/time and tantivy from PyPI: installed (apt-get, pip) when missing.
"""
import argparse, json, os, shutil, sqlite3, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import fold  # noqa: E402  (the folding the typing benchmark gives Tantivy)


def cities(path):
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def build_fts5(path, out):
    db = sqlite3.connect(os.path.join(out, "names.sqlite"))
    db.execute("CREATE VIRTUAL TABLE names USING fts5(name, alternates, "
               "tokenize='unicode61 remove_diacritics 2')")
    db.execute("CREATE TABLE population(id INTEGER PRIMARY KEY, population INTEGER)")
    with db:
        for number, city in enumerate(cities(path), 1):
            db.execute("INSERT INTO names(rowid, name, alternates) VALUES (?, ?, ?)",
                       (number, city["name"], " | ".join(city["alternates"])))
            db.execute("INSERT INTO population VALUES (?, ?)", (number, city["population"] or 0))
    db.close()


def build_tantivy(path, out):
    import tantivy
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("name", stored=True, tokenizer_name="default")
    builder.add_text_field("alternates", stored=False, tokenizer_name="default")
    builder.add_integer_field("population", stored=False, fast=True)
    builder.add_integer_field("id", stored=True)
    index = tantivy.Index(builder.build(), path=out)
    writer = index.writer(heap_size=256_000_000, num_threads=2)
    for city in cities(path):
        writer.add_document(tantivy.Document(
            name=fold(city["name"]), alternates=[fold(a) for a in city["alternates"]] or [""],
            population=int(city["population"] or 0), id=int(city["id"])))
    writer.commit()
    writer.wait_merging_threads()


def ensure_tools():
    if not os.path.exists("/usr/bin/time"):
        subprocess.run(["apt-get", "update", "-qq"], check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", "time"], check=True)
    try:
        import tantivy  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "tantivy"], check=True)


def measured(command):
    """(seconds, peak MB) of running `command`, as /usr/bin/time tells them."""
    result = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + command,
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{result.stderr}")
    seconds, kilobytes = result.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kilobytes) / 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cities")
    parser.add_argument("--sift", required=True)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--csv", help="the same cities as CSV, imported by Sift too")
    parser.add_argument("--before", help="another build of sift, run beside this one")
    parser.add_argument("--build", choices=["fts5", "tantivy"], help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.build:
        {"fts5": build_fts5, "tantivy": build_tantivy}[arguments.build](
            arguments.cities, arguments.out)
        return
    ensure_tools()
    with open(arguments.cities, "rb") as lines:
        items = sum(1 for line in lines if line.strip())
    size = os.path.getsize(arguments.cities) / 1e6
    print(f"{arguments.cities}: {items:,} items, {size:.0f} MB; "
          f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores")
    def sift(file, binary=arguments.sift):
        return lambda out: [
            binary, "import", file, "--catalog",
            os.path.join(out, "cities.sqlite"), "--title", "name", "--text", "alternates",
            "--number", "population", "--category", "country", "--id", "id",
            "--rank-by", "population", "--location", "latitude,longitude"]
    engines = {
        "sift": sift(arguments.cities),
        "fts5": lambda out: [sys.executable, __file__, arguments.cities, "--sift", "-",
                             "--build", "fts5", "--out", out],
        "tantivy": lambda out: [sys.executable, __file__, arguments.cities, "--sift", "-",
                                "--build", "tantivy", "--out", out],
    }
    if arguments.csv:
        engines["sift-csv"] = sift(arguments.csv)
    if arguments.before:
        engines["before"] = sift(arguments.cities, arguments.before)
        if arguments.csv:
            engines["before-csv"] = sift(arguments.csv, arguments.before)
    print(f"{'engine':<8} {'seconds':>8} {'items/s':>9} {'peak MB':>8} {'on disk MB':>10}")
    for run in range(arguments.runs):
        # Alternated, run by run: the machine's speed drifts.
        for name, command in engines.items():
            out = tempfile.mkdtemp(prefix=f"import-{name}-")
            try:
                seconds, peak = measured(command(out))
                disk = sum(os.path.getsize(os.path.join(root, file))
                           for root, _, files in os.walk(out) for file in files) / 1e6
                print(f"{name:<8} {seconds:>8.2f} {items / seconds:>9,.0f} {peak:>8.0f} "
                      f"{disk:>10.0f}", flush=True)
            finally:
                shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
