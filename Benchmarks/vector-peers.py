#!/usr/bin/env python3
"""Nearest by meaning: Sift's exact search beside numpy, usearch and hnswlib, in one run.

Makes N random vectors of D dimensions (seeded; each item also has a title, so the catalog is
an ordinary one), then for each engine: how long it takes to take them in, the memory they
hold, and the time of a top-10 search for Q query vectors (p50, p99), all on this machine.

  sift      `sift import --vector emb` of a JSON Lines file (timed from reading the file), then
            `sift serve` answering POST /catalogs/v/search {"vector": …, "limit": 10} over one
            kept-alive loopback connection: exact, every core, the page as JSON (the HTTP
            round trip is in the figure). Memory: the server's resident set after the load,
            less that of a server of the same catalog without vectors.
  numpy     the matrix in memory, float32: one matrix-vector product and argpartition per
            query (exact, the BLAS numpy ships). Memory: the matrix.
  usearch   the PyPI package's HNSW index (approximate; connectivity 16, expansion 64 on
            add and search, as it comes): its build time, memory, latency and its recall@10
            against the exact answer (an item as near as the exact tenth counts).
  hnswlib   the PyPI package's HNSW index (approximate; M 16, ef_construction 128, ef 64 on
            search — its default ef of 10 misses too much to compare): build time, the
            process's resident growth while building, latency and recall@10 as for usearch.

Usage: vector-peers.py --sift PATH [--items N] [--dimensions D] [--queries Q] [--seed S]
                       [--without-usearch] [--without-hnswlib]
       vector-peers.py --sift PATH --vectors ITEMS.npy --query-vectors QUERIES.npy

Random vectors are the hard case for a graph index: nothing clusters. `--vectors` takes real
ones instead, a float32 matrix saved by numpy, with the queries' vectors beside: the
relevance/meaning.py run leaves WordNet's 117,791 names and its queries embedded by
all-MiniLM-L6-v2 (384 dimensions) in its folder as names.npy and queries.npy.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "relevance"))
from common import serve  # noqa: E402


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(-(-len(ordered) * p // 1)) - 1))]


def resident_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sift", required=True, type=os.path.abspath)
    parser.add_argument("--items", type=int, default=235_000)
    parser.add_argument("--dimensions", type=int, default=256)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=72)
    parser.add_argument("--without-usearch", action="store_true",
                        help="leave usearch out (its graph takes minutes to build)")
    parser.add_argument("--without-hnswlib", action="store_true",
                        help="leave hnswlib out (its graph takes minutes to build)")
    parser.add_argument("--vectors", help="the items' vectors, a .npy matrix")
    parser.add_argument("--query-vectors", help="the queries' vectors, a .npy matrix")
    arguments = parser.parse_args()
    if bool(arguments.vectors) != bool(arguments.query_vectors):
        parser.error("--vectors and --query-vectors go together")
    if arguments.vectors:
        vectors = np.load(arguments.vectors).astype(np.float32)
        queries = np.load(arguments.query_vectors).astype(np.float32)[:arguments.queries]
        (n, d), q = vectors.shape, len(queries)
        print(f"vector-peers: {n:,} vectors × {d} dimensions from {arguments.vectors}, "
              f"{q} queries", flush=True)
    else:
        n, d, q = arguments.items, arguments.dimensions, arguments.queries
        print(f"vector-peers: {n:,} vectors × {d} dimensions, {q} queries, "
              f"seed {arguments.seed}", flush=True)
        random = np.random.default_rng(arguments.seed)
        vectors = random.standard_normal((n, d), dtype=np.float32)
        queries = random.standard_normal((q, d), dtype=np.float32)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    # The exact answer as similarities: real vectors repeat (items of one name), and the JSON
    # file holds six digits of each number, so which of two equally near items comes tenth is
    # not the engine's to get right. A found item counts when it is as near as the exact tenth.
    tenth, scored = [], []
    for query in queries:
        scores = unit @ (query / np.linalg.norm(query))
        tenth.append(np.sort(scores)[-10])
        scored.append(scores)

    def recall_of(found):
        return statistics.mean(
            min(10, sum(scores[i] >= least - 1e-5 for i in f)) / 10
            for f, scores, least in zip(found, scored, tenth))

    def timed(search):
        """Each query's time and the ids `search` found for it."""
        times, found = [], []
        for query in queries:
            started = time.perf_counter()
            ids = search(query)
            times.append(time.perf_counter() - started)
            found.append([int(key) for key in ids])
        return times, found

    folder = tempfile.mkdtemp(prefix="sift-vectors-")
    rows = []
    try:
        # sift: the catalog, with and without its vectors.
        source = os.path.join(folder, "v.jsonl")
        plain = os.path.join(folder, "plain.jsonl")
        with open(source, "w") as file, open(plain, "w") as without:
            for index in range(n):
                title = f"item {index}"
                without.write(json.dumps({"id": str(index), "title": title}) + "\n")
                numbers = ",".join(f"{x:.6g}" for x in vectors[index].tolist())
                file.write(f'{{"id":"{index}","title":"{title}","emb":[{numbers}]}}\n')
        size = os.path.getsize(source)
        started = time.perf_counter()
        subprocess.run(
            [arguments.sift, "import", source, "--catalog", os.path.join(folder, "v.sqlite"),
             "--title", "title", "--id", "id", "--vector", "emb"],
            check=True, capture_output=True)
        sift_import = time.perf_counter() - started
        subprocess.run(
            [arguments.sift, "import", plain, "--catalog", os.path.join(folder, "plain.sqlite"),
             "--title", "title", "--id", "id"], check=True, capture_output=True)
        process, connection = serve(arguments.sift, "plain.sqlite", 18_431, folder)
        connection.request("GET", "/catalogs/plain/search?q=item&limit=1")
        connection.getresponse().read()
        baseline = resident_kb(process.pid)
        process.terminate()
        process.wait()
        process, connection = serve(arguments.sift, "v.sqlite", 18_432, folder)
        times, found = [], []
        for round_ in range(2):  # the first round warms the mapped index
            for query in queries:
                body = json.dumps({"vector": query.tolist(), "limit": 10})
                started = time.perf_counter()
                connection.request("POST", "/catalogs/v/search", body,
                                   {"Content-Type": "application/json"})
                answer = json.loads(connection.getresponse().read())
                if round_ == 1:
                    times.append(time.perf_counter() - started)
                    found.append([int(result["id"]) for result in answer["results"]])
        memory = (resident_kb(process.pid) - baseline) / 1024
        # With words too, "item 1" to "item Q" (each once: a server answers a search it
        # answered recently from memory): the first nine match a ninth of the items each, the
        # later ones fewer. And those words alone, for what the text's part of it costs.
        hybrid, text = [], []
        for number, query in enumerate(queries):
            words = f"item {number + 1}"
            for body, kept in ((json.dumps({"q": words, "vector": query.tolist(), "limit": 10}),
                                hybrid), (json.dumps({"q": words, "limit": 10}), text)):
                started = time.perf_counter()
                connection.request("POST", "/catalogs/v/search", body,
                                   {"Content-Type": "application/json"})
                connection.getresponse().read()
                kept.append(time.perf_counter() - started)
        process.terminate()
        process.wait()
        recall = recall_of(found)
        rows.append(("sift (HTTP)", sift_import, memory, times, recall,
                     f"import of a {size / 2**20:,.0f} MB JSON Lines file"))
        rows.append(("sift, with \"item N\" fused", sift_import, memory, hybrid, float("nan"),
                     "the same catalog"))
        rows.append(("sift, \"item N\" alone (no vector)", sift_import, memory, text,
                     float("nan"), "the same catalog"))

        # numpy, exact.
        started = time.perf_counter()
        matrix = np.ascontiguousarray(unit)
        numpy_load = time.perf_counter() - started
        times = []
        for query in queries:
            started = time.perf_counter()
            scores = matrix @ (query / np.linalg.norm(query))
            top = np.argpartition(-scores, 10)[:10]
            top = top[np.argsort(-scores[top])]
            times.append(time.perf_counter() - started)
        rows.append(("numpy (exact)", numpy_load, matrix.nbytes / 2**20, times, 1.0,
                     "normalising an array already in memory"))

        Index = None
        if not arguments.without_usearch:
            try:
                from usearch.index import Index
            except ImportError:
                print("vector-peers: usearch not installed (pip install usearch): left out")
        if Index is not None:
            index = Index(ndim=d, metric="cos", dtype="f32")
            started = time.perf_counter()
            index.add(np.arange(n), vectors)
            build = time.perf_counter() - started
            times, found = timed(lambda query: index.search(query, 10).keys)
            rows.append(("usearch (HNSW)", build, index.memory_usage / 2**20, times,
                         recall_of(found), "building the graph from the array"))
            del index

        hnswlib = None
        if not arguments.without_hnswlib:
            try:
                import hnswlib
            except ImportError:
                print("vector-peers: hnswlib not installed (pip install hnswlib): left out")
        if hnswlib is not None:
            before = resident_kb(os.getpid())
            index = hnswlib.Index(space="cosine", dim=d)
            started = time.perf_counter()
            index.init_index(max_elements=n, M=16, ef_construction=128, random_seed=arguments.seed)
            index.add_items(vectors, np.arange(n))
            build = time.perf_counter() - started
            grown = (resident_kb(os.getpid()) - before) / 1024
            index.set_ef(64)
            times, found = timed(lambda query: index.knn_query(query, k=10)[0][0])
            rows.append(("hnswlib (HNSW)", build, grown, times, recall_of(found),
                         "building the graph from the array"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\n| engine | take in (s) | memory (MB) | top-10 p50 (ms) | p99 (ms) | recall@10 |")
    print("|---|---|---|---|---|---|")
    for name, took, memory, times, recall, note in rows:
        milliseconds = [t * 1000 for t in times]
        print(f"| {name} | {took:.1f} ({note}) | {memory:,.0f} | "
              f"{percentile(milliseconds, 0.5):.2f} | {percentile(milliseconds, 0.99):.2f} | "
              f"{recall:.3f} |")


if __name__ == "__main__":
    main()
