#!/usr/bin/env python3
"""How Sift's costs grow with the data: the cities catalog at 1x, 2x and 4x, side by side with
SQLite FTS5 and fzf on the same sizes.

Usage: growth.py CITIES_JSONL --sift PATH [--factors 1,2,4] [--rounds N] [--out DIR]
                 [--svg Benchmarks/growth.svg]

For each factor k the cities are written k times, copy c under ids c*10^9 + id (the same names:
a person searching a catalog four times as big types the same words), then:
  sift import   --title name --text alternates --number population --category country --id id
                --rank-by population (the catalog every other benchmark uses), timed;
  sift bench    --json over Benchmarks/queries/cities.txt, N rounds: open_ms, first-keystroke
                and refining percentiles, peak RSS (each round a new process);
  sift search   one process `sift search --catalog C --limit 3 paris`: median wall time of 11
                runs (after one to warm the page cache) and the highest peak RSS;
  FTS5          the same one-shot question to the sqlite3 shell over an FTS5 table of every
                name (unicode61 remove_diacritics 2), `"paris"*`, 3 rows: the same figures;
  fzf           `fzf --filter --exact paris` over the names, k times: median of 3, peak RSS.
Then the same bench round, one-shot search and FTS5 query once the files were let go from the
page cache and read back ("settled": as a later session finds them; a file just written sits
in large folios, and mapping any byte of one charges the process for all of it).
Peak RSS of a child comes from wait4(2), so each figure is that process's own.

Writes growth.json into --out (default: a temporary folder), an SVG chart (--svg), and prints a
Markdown table. Needs python3, sqlite3 and fzf (installed with apt-get when missing).
"""
import argparse, json, os, shutil, sqlite3, statistics, subprocess, sys, tempfile, time

QUERY = "paris"


def ensure(tool):
    if shutil.which(tool) is None or (tool == "time" and not os.path.exists("/usr/bin/time")):
        subprocess.run(["apt-get", "update", "-qq"], check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", tool], check=True)


def measure(argv, stdin=None, stdout=subprocess.DEVNULL):
    """Runs argv once under GNU time; returns (seconds, peak RSS in MB, captured stdout).

    GNU time reports its own child's peak, not this Python process's: a child forked from here
    would count Python's memory as its own (ru_maxrss survives exec)."""
    with tempfile.NamedTemporaryFile("r") as report:
        start = time.perf_counter()
        process = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name] + argv,
                                 stdin=stdin, stdout=stdout, stderr=subprocess.PIPE)
        seconds = time.perf_counter() - start
        if process.returncode != 0:
            sys.exit(f"{' '.join(argv)} failed ({process.returncode}): "
                     f"{process.stderr.decode(errors='replace').strip()}")
        peak_kb = int(report.read().split()[-1])
    return seconds, peak_kb / 1024, process.stdout or b""


def measure_median(argv, runs, stdin_path=None, stdout=subprocess.PIPE):
    """Runs argv `runs` times (after one run to warm the page cache); returns the median wall
    time, the highest peak RSS and the first run's output: one run of a 2-20 ms process is
    noise."""
    def once():
        if stdin_path is None:
            return measure(argv, stdout=stdout)
        with open(stdin_path) as source:
            return measure(argv, stdin=source, stdout=stdout)
    once()
    rounds = [once() for _ in range(runs)]
    return (statistics.median(r[0] for r in rounds), max(r[1] for r in rounds), rounds[0][2])


def scaled_corpus(cities, factor, out):
    """The cities `factor` times under new ids; returns the JSON Lines and names files, and
    how many items there are."""
    jsonl = os.path.join(out, f"cities-{factor}x.jsonl")
    names = os.path.join(out, f"names-{factor}x.txt")
    count = 0
    with open(jsonl, "w") as j, open(names, "w") as n:
        for copy in range(factor):
            with open(cities) as source:
                for line in source:
                    if not line.strip():
                        continue
                    city = json.loads(line)
                    city["id"] = copy * 1_000_000_000 + city["id"]
                    j.write(json.dumps(city, ensure_ascii=False) + "\n")
                    for name in [city["name"]] + city.get("alternates", []):
                        n.write(name.replace("\n", " ") + "\n")
                    count += 1
    return jsonl, names, count


def build_fts(jsonl, path):
    db = sqlite3.connect(path)
    db.execute("CREATE VIRTUAL TABLE names USING fts5(name, city UNINDEXED, "
               "tokenize = 'unicode61 remove_diacritics 2')")
    with open(jsonl) as f:
        rows = ((name, city["id"]) for city in map(json.loads, f)
                for name in [city["name"]] + city.get("alternates", []))
        db.executemany("INSERT INTO names VALUES (?, ?)", rows)
    db.commit()
    db.close()


def settle(paths):
    """Lets the files' pages go from the page cache (written back first)."""
    for path in paths:
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fsync(descriptor)
            os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(descriptor)


def percentile_range(rounds, key):
    values = [r[key] for r in rounds if key in r]
    return (min(values), max(values)) if values else (None, None)


def run(args):
    for tool in ("sqlite3", "fzf", "time"):
        ensure(tool)
    out = args.out or tempfile.mkdtemp(prefix="sift-growth-")
    os.makedirs(out, exist_ok=True)
    queries = os.path.join(os.path.dirname(os.path.abspath(__file__)), "queries", "cities.txt")
    results = []
    for factor in args.factors:
        jsonl, names, items = scaled_corpus(args.cities, factor, out)
        print(f"== {factor}x: {items:,} items", file=sys.stderr)
        catalog = os.path.join(out, f"cities-{factor}x.sqlite")
        for path in (catalog, catalog + "-wal", catalog + "-shm"):
            if os.path.exists(path):
                os.remove(path)
        import_s, import_mb, _ = measure([
            args.sift, "import", jsonl, "--catalog", catalog, "--title", "name", "--text",
            "alternates", "--number", "population", "--category", "country", "--id", "id",
            "--rank-by", "population"])
        rounds = []
        for _ in range(args.rounds):
            _, _, output = measure([args.sift, "bench", "--catalog", catalog, "--queries", queries,
                                    "--json"], stdout=subprocess.PIPE)
            rounds.append(json.loads(output.decode().strip().splitlines()[-1]))
        search_s, search_mb, found = measure_median(
            [args.sift, "search", "--catalog", catalog, "--limit", "3", QUERY], runs=11)
        fts = os.path.join(out, f"fts5-{factor}x.sqlite")
        if os.path.exists(fts):
            os.remove(fts)
        build_fts(jsonl, fts)
        fts_s, fts_mb, _ = measure_median(["sqlite3", fts, f"SELECT DISTINCT city FROM names "
                                           f"WHERE names MATCH '\"{QUERY}\"*' LIMIT 3;"], runs=11)
        fzf_s, fzf_mb, _ = measure_median(["fzf", "--filter", QUERY, "--exact"], runs=3,
                                          stdin_path=names)
        # Settled: the files let go from the page cache and read back (a later session). Pages
        # of a file just written sit in the kernel's large folios, and a process that maps one
        # byte of a folio is charged all of it: the figures above are the worst case.
        settle([catalog, catalog + "-index", fts])
        bench = [args.sift, "bench", "--catalog", catalog, "--queries", queries, "--json"]
        measure(bench)  # reads the pages back: the round after it finds them cached
        settled_round = json.loads(
            measure(bench, stdout=subprocess.PIPE)[2].decode().strip().splitlines()[-1])
        settle([catalog, catalog + "-index", fts])
        settled_search_s, settled_search_mb, _ = measure_median(
            [args.sift, "search", "--catalog", catalog, "--limit", "3", QUERY], runs=11)
        settled_fts_s, settled_fts_mb, _ = measure_median(
            ["sqlite3", fts, f"SELECT DISTINCT city FROM names "
             f"WHERE names MATCH '\"{QUERY}\"*' LIMIT 3;"], runs=11)
        entry = {
            "factor": factor, "items": items,
            "catalog_mb": os.path.getsize(catalog) / 1e6,
            "import_s": import_s, "import_peak_rss_mb": import_mb, "bench": rounds,
            "search_ms": search_s * 1000, "search_peak_rss_mb": search_mb,
            "search_found": found.decode(errors="replace").count("\n"),
            "fts5_ms": fts_s * 1000, "fts5_peak_rss_mb": fts_mb,
            "fzf_ms": fzf_s * 1000, "fzf_peak_rss_mb": fzf_mb,
            "settled": {
                "bench": [settled_round],
                "search_ms": settled_search_s * 1000, "search_peak_rss_mb": settled_search_mb,
                "fts5_ms": settled_fts_s * 1000, "fts5_peak_rss_mb": settled_fts_mb,
            },
        }
        results.append(entry)
        json.dump(results, open(os.path.join(out, "growth.json"), "w"), indent=1)
        for path in (jsonl, names, fts):
            os.remove(path)
    print(table(results))
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(chart(results))
        print(f"\nchart: {args.svg}; data: {os.path.join(out, 'growth.json')}")


def span(pair, digits=0):
    low, high = pair
    if low is None:
        return "–"
    fmt = f"{{:,.{digits}f}}"
    return fmt.format(low) if round(low, digits) == round(high, digits) else \
        f"{fmt.format(low)}–{fmt.format(high)}"


def table(results):
    lines = [
        "| size | items | catalog | import | open_ms | first key p50 / p99 ms | refining p50 / p99 ms "
        "| bench peak RSS | `sift search` one shot | FTS5 one shot (sqlite3) | fzf --filter |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        b = r["bench"]
        lines.append(
            f"| {r['factor']}× | {r['items']:,} | {r['catalog_mb']:.0f} MB | {r['import_s']:.0f} s "
            f"| {span(percentile_range(b, 'open_ms'))} "
            f"| {span(percentile_range(b, 'first_keystroke_p50_ms'), 1)} / "
            f"{span(percentile_range(b, 'first_keystroke_p99_ms'), 1)} "
            f"| {span(percentile_range(b, 'refining_p50_ms'), 2)} / "
            f"{span(percentile_range(b, 'refining_p99_ms'), 1)} "
            f"| {span(percentile_range(b, 'peak_rss_mb'))} MB "
            f"| {r['search_ms']:.0f} ms, {r['search_peak_rss_mb']:.0f} MB "
            f"| {r['fts5_ms']:.1f} ms, {r['fts5_peak_rss_mb']:.0f} MB "
            f"| {r['fzf_ms']:.0f} ms, {r['fzf_peak_rss_mb']:.0f} MB |")
        if "settled" in r:
            settled, sb = r["settled"], r["settled"]["bench"]
            lines.append(
                f"| {r['factor']}× settled | | | | {span(percentile_range(sb, 'open_ms'))} "
                f"| {span(percentile_range(sb, 'first_keystroke_p50_ms'), 1)} / "
                f"{span(percentile_range(sb, 'first_keystroke_p99_ms'), 1)} "
                f"| {span(percentile_range(sb, 'refining_p50_ms'), 2)} / "
                f"{span(percentile_range(sb, 'refining_p99_ms'), 1)} "
                f"| {span(percentile_range(sb, 'peak_rss_mb'))} MB "
                f"| {settled['search_ms']:.0f} ms, {settled['search_peak_rss_mb']:.0f} MB "
                f"| {settled['fts5_ms']:.1f} ms, {settled['fts5_peak_rss_mb']:.0f} MB | |")
    return "\n".join(lines)


def chart(results):
    """Three small panels, cost against size, each series relative to nothing but itself."""
    panels = [
        ("open (ms)", [("sift open_ms", "#1f77b4",
                        [max(x["open_ms"] for x in r["bench"]) for r in results])]),
        ("first keystroke p99 (ms)", [("sift", "#d62728",
                                       [max(x["first_keystroke_p99_ms"] for x in r["bench"])
                                        for r in results])]),
        ("one-shot query (ms)", [("sift search", "#1f77b4", [r["search_ms"] for r in results]),
                                 ("FTS5", "#2ca02c", [r["fts5_ms"] for r in results]),
                                 ("fzf", "#9467bd", [r["fzf_ms"] for r in results])]),
        ("peak RSS (MB)", [("sift bench", "#1f77b4",
                            [max(x["peak_rss_mb"] for x in r["bench"]) for r in results]),
                           ("sift search", "#ff7f0e", [r["search_peak_rss_mb"] for r in results]),
                           ("FTS5", "#2ca02c", [r["fts5_peak_rss_mb"] for r in results]),
                           ("fzf", "#9467bd", [r["fzf_peak_rss_mb"] for r in results])]),
    ]
    factors = [r["factor"] for r in results]
    width, height, pad = 300, 220, 45
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * len(panels)}" '
           f'height="{height + 40}" font-family="sans-serif" font-size="11">',
           f'<rect width="100%" height="100%" fill="white"/>']
    for index, (title, series) in enumerate(panels):
        x0 = index * width
        top = max(max(values) for _, _, values in series) * 1.1 or 1
        def px(i):
            span_f = (max(factors) - min(factors)) or 1
            return x0 + pad + (factors[i] - min(factors)) / span_f * (width - pad - 15)
        def py(v):
            return 20 + (1 - v / top) * (height - 40)
        svg.append(f'<text x="{x0 + width / 2}" y="14" text-anchor="middle" '
                   f'font-weight="bold">{title}</text>')
        svg.append(f'<line x1="{x0 + pad}" y1="{py(0)}" x2="{x0 + width - 15}" y2="{py(0)}" '
                   f'stroke="#888"/>')
        svg.append(f'<line x1="{x0 + pad}" y1="20" x2="{x0 + pad}" y2="{py(0)}" stroke="#888"/>')
        for fraction in (0, 0.5, 1):
            value = top / 1.1 * fraction
            svg.append(f'<text x="{x0 + pad - 4}" y="{py(value) + 4}" text-anchor="end">'
                       f'{value:,.0f}</text>')
        for i, factor in enumerate(factors):
            svg.append(f'<text x="{px(i)}" y="{py(0) + 14}" text-anchor="middle">{factor}×</text>')
        for row, (name, color, values) in enumerate(series):
            points = " ".join(f"{px(i):.1f},{py(v):.1f}" for i, v in enumerate(values))
            svg.append(f'<polyline points="{points}" fill="none" stroke="{color}" '
                       f'stroke-width="2"/>')
            for i, v in enumerate(values):
                svg.append(f'<circle cx="{px(i):.1f}" cy="{py(v):.1f}" r="3" fill="{color}"/>')
            svg.append(f'<text x="{x0 + pad + 6}" y="{height + 10 + row * 0}" fill="{color}" '
                       f'dx="{row * 62}">{name}</text>')
    svg.append("</svg>")
    return "\n".join(svg)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cities")
    parser.add_argument("--sift", required=True)
    parser.add_argument("--factors", default="1,2,4",
                        type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out")
    parser.add_argument("--svg")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
