"""What the relevance scripts share: folding as the peers are fed, installing a package from
PyPI when missing, asking `sift search` for the first ids of a query, and starting `sift
serve` for those that ask it over HTTP."""
import json, re, subprocess, sys, time, unicodedata


def fold(text):
    """Lower case without marks: what FTS5's remove_diacritics and Tantivy's fields are given."""
    return "".join(c for c in unicodedata.normalize("NFKD", text)
                   if unicodedata.category(c) not in ("Mn", "Me", "Cf")).casefold().strip()


def words(text):
    return [w for w in re.split(r"[^\w]+", fold(text)) if w]


def ensure(*packages):
    """Installs each package from PyPI that cannot be imported."""
    for package in packages:
        try:
            __import__(package)
        except ImportError:
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package],
                           check=True)


def sift_ids(sift, catalog, query, limit=3, options=()):
    """The ids of `sift search`'s first `limit` results, as JSON Lines gives them."""
    done = subprocess.run([sift, "search", "--catalog", catalog, "--json", "--limit", str(limit),
                           *options, "--", query], capture_output=True, text=True, check=True)
    return [json.loads(line)["id"] for line in done.stdout.splitlines() if line.strip()]


def serve(sift, catalog, port, folder=None):
    """Starts `sift serve --catalog CATALOG` on loopback and waits for /health; returns the
    process and a kept-alive connection to it."""
    import http.client
    process = subprocess.Popen([sift, "serve", "--catalog", catalog, "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=folder)
    for _ in range(600):
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.request("GET", "/health")
            answer = connection.getresponse()
            answer.read()
            if answer.status == 200:
                return process, connection
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"sift serve --catalog {catalog} did not start")


def imported(sift, out, name, records, flags):
    """Writes `records` as `NAME.jsonl` in `out` and imports it with `flags` into
    `NAME.sqlite` unless that catalog is there already; returns the catalog's path."""
    import os
    source = os.path.join(out, f"{name}.jsonl")
    catalog = os.path.join(out, f"{name}.sqlite")
    with open(source, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    if not os.path.exists(catalog):
        subprocess.run([sift, "import", source, "--catalog", catalog, *flags], check=True,
                       capture_output=True)
    return catalog


def judge(queries, engines, kinds, out, title):
    """Asks every engine (name → function of a query, giving ids) each (kind, query, accepted
    ids, k) and prints success@k per kind as a Markdown table, after `title`; the first
    engine's misses go to `out`/misses-sift.txt."""
    import os
    from collections import Counter
    hits = Counter()
    counts = Counter(q[0] for q in queries)
    scored = {q[0]: q[3] for q in queries}
    first = next(iter(engines))
    misses = []
    for kind, query, accepted, k in queries:
        answers = {name: run(query) for name, run in engines.items()}
        for name, found in answers.items():
            if accepted & set(found[:k]):
                hits[(name, kind)] += 1
        if not accepted & set(answers[first][:k]):
            misses.append(f"{kind}\t{query}\t{','.join(map(str, answers[first]))}")
    path = os.path.join(out, "misses-sift.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(misses) + "\n")
    print(f"{title}, {len(queries)} judged queries; {first}'s misses: {path}")
    print("| queries | n | scored at | " + " | ".join(engines) + " |")
    print("|---|---:|---|" + "---:|" * len(engines))
    for kind in kinds:
        if counts[kind]:
            cells = [f"{100.0 * hits[(e, kind)] / counts[kind]:.1f}%" for e in engines]
            print(f"| {kind} | {counts[kind]} | @{scored[kind]} | " + " | ".join(cells) + " |")
