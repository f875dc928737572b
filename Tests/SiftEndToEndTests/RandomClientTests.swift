#if Server
import Foundation
import Testing
import SiftTestSupport

/// A seeded random client against the built `sift serve`: valid, invalid and hostile requests,
/// each answer checked against a model of the catalog the client keeps — no 5xx, every answer
/// JSON with the status the request deserves — and at the end the model and the server agree
/// item by item.
@Suite("sift serve against a random client", .serialized, .tags(.endToEnd))
struct RandomClientTests {
  @Test("valid, invalid and hostile requests for a bounded time: the model and the server agree")
  func randomClient() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let tokenFile = try sift.write("admin.key", "random-client-admin\n")
    let server = try ServeCommandTests.Server(
      sift, ["--catalog", "products", "--token-file", tokenFile, "--idle-timeout", "2"])
    defer { _ = server.stop() }
    let seed = UInt64(ProcessInfo.processInfo.environment["SIFT_SEED"] ?? "") ?? 20_261_126
    print("random client: seed \(seed) (SIFT_SEED=\(seed) repeats it)")
    let file = try sift.write("random_client.py", Self.script)
    let run = Host.shell("python3 '\(file)' \(server.port) \(seed) random-client-admin")
    print("random client: \(run.output.suffix(2_000))")
    let last = run.output.split(separator: "\n").last.map(String.init) ?? ""
    let summary =
      (try? JSONSerialization.jsonObject(with: Data(last.utf8))) as? [String: Any] ?? [:]
    #expect(run.status == 0, "the client found a disagreement")
    #expect((summary["requests"] as? Int ?? 0) >= 300)
    #expect(summary["problems"] as? [String] == [])
    #expect(summary["server_errors"] as? Int == 0)
    #expect(summary["agree"] as? Bool == true)
  }

  /// The client: Python, standard library only, every socket with a timeout.
  static let script = #"""
    import json, random, socket, sys, time, urllib.parse, urllib.request, urllib.error
    port, seed, admin = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)
    base = f"http://127.0.0.1:{port}"
    problems, counts = [], {"requests": 0, "server_errors": 0}
    WORDS = ["rose", "tulip", "lily", "orchid", "daisy", "iris", "poppy", "fern", "ivy", "moss",
             "red", "white", "blue", "golden", "wild", "tiny", "grand", "silver"]

    def call(method, path, body=None, auth=admin, raw=None, headers=None):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(base + path, data=data, method=method)
        if auth: request.add_header("Authorization", "Bearer " + auth)
        if data is not None: request.add_header("Content-Type", "application/json")
        for name, value in (headers or {}).items(): request.add_header(name, value)
        counts["requests"] += 1
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, payload = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        if status >= 500:
            counts["server_errors"] += 1
            problems.append(f"{method} {path}: {status} {payload[:200]!r}")
        parsed = None
        if status != 204 and method != "HEAD":
            try:
                parsed = json.loads(payload)
            except ValueError:
                problems.append(f"{method} {path}: {status} is not JSON: {payload[:100]!r}")
            if status >= 400 and not (isinstance(parsed, dict) and isinstance(parsed.get("error"), str)):
                problems.append(f"{method} {path}: {status} without an error message")
        return status, parsed

    def expect(what, status, wanted):
        if status not in wanted: problems.append(f"{what}: {status}, expected {sorted(wanted)}")

    def fields(item):
        return (item.get("title"), item.get("year"), item.get("price"))

    # The model: the catalog as the server has it at the start.
    status, page = call("GET", "/catalogs/products/search?q=&limit=1000")
    model = {}
    for result in page["results"]:
        _, item = call("GET", "/catalogs/products/items/" + urllib.parse.quote(result["id"], safe=""))
        model[result["id"]] = fields(item)
    made = 0

    def new_fields():
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))).title()
        return {"title": title, "year": rng.randint(1990, 2030), "price": rng.randint(1, 9999) / 100}

    def raw_request(payload):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        counts["requests"] += 1
        try:
            s.sendall(payload)
            answer = b""
            while True:
                chunk = s.recv(65536)
                if not chunk: break
                answer += chunk
                if b"\r\n\r\n" in answer:
                    head, _, rest = answer.partition(b"\r\n\r\n")
                    length = [int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")]
                    if length and len(rest) >= length[0]: break
        except OSError:
            return None
        finally:
            s.close()
        return answer

    started = time.time()
    step = 0
    while step < 1500 and time.time() - started < 25:
        step += 1
        kind = rng.choices(
            ["add", "duplicate", "bad-add", "put", "put-missing", "delete", "delete-missing",
             "get", "get-missing", "search", "bad-search", "unauthorized", "method", "hostile"],
            weights=[10, 2, 6, 6, 2, 4, 2, 6, 2, 12, 6, 3, 2, 5])[0]
        if kind == "add":
            made += 1
            id = f"r{seed % 1000}-{made}"
            body = dict(new_fields(), id=id)
            status, item = call("POST", "/catalogs/products/items", body)
            expect(kind, status, {201})
            if status == 201: model[id] = (body["title"], body["year"], body["price"])
        elif kind == "duplicate" and model:
            id = rng.choice(sorted(model))
            status, _ = call("POST", "/catalogs/products/items", dict(new_fields(), id=id))
            expect(kind, status, {409})
        elif kind == "bad-add":
            body = rng.choice([
                {"year": 2001}, {"title": "x", "year": "soon"}, {"title": "nul\u0000here"},
                {"title": 7}, {"title": "x", "price": [1]}, {"title": "x", "year": 1e400},
            ]) if rng.random() < 0.7 else None
            raw = None if body is not None else rng.choice([b"{", b"[]", b"\xff\xfe", b"x" * 1_100_000])
            status, _ = call("POST", "/catalogs/products/items", body, raw=raw)
            expect(f"{kind} {str(body or raw[:20])}", status, {400, 413})
        elif kind == "put" and model:
            id = rng.choice(sorted(model))
            body = new_fields()
            status, _ = call("PUT", "/catalogs/products/items/" + urllib.parse.quote(id, safe=""), body)
            expect(kind, status, {200})
            if status == 200: model[id] = (body["title"], body["year"], body["price"])
        elif kind == "put-missing":
            status, _ = call("PUT", "/catalogs/products/items/none-such", new_fields())
            expect(kind, status, {404})
        elif kind == "delete" and model:
            id = rng.choice(sorted(model))
            status, _ = call("DELETE", "/catalogs/products/items/" + urllib.parse.quote(id, safe=""))
            expect(kind, status, {204})
            if status == 204: del model[id]
        elif kind == "delete-missing":
            status, _ = call("DELETE", "/catalogs/products/items/none-such")
            expect(kind, status, {404})
        elif kind == "get" and model:
            id = rng.choice(sorted(model))
            status, item = call("GET", "/catalogs/products/items/" + urllib.parse.quote(id, safe=""), auth=None)
            expect(kind, status, {200})
            if status == 200 and fields(item) != model[id]:
                problems.append(f"item {id}: server {fields(item)}, model {model[id]}")
        elif kind == "get-missing":
            status, _ = call("GET", "/catalogs/products/items/none-such", auth=None)
            expect(kind, status, {404})
        elif kind == "search":
            word = rng.choice(WORDS)
            status, page = call("GET", f"/catalogs/products/search?q={word}&limit=1000", auth=None)
            expect(kind, status, {200})
            if status == 200:
                found = {result["id"] for result in page["results"]}
                holding = {id for id, (title, _, _) in model.items() if word in (title or "").lower().split()}
                if not holding <= found:
                    problems.append(f"search {word}: missing {sorted(holding - found)[:5]}")
                if not found <= set(model):
                    problems.append(f"search {word}: unknown ids {sorted(found - set(model))[:5]}")
                if page["matched"] != len(found):
                    problems.append(f"search {word}: matched {page['matched']} but {len(found)} results")
        elif kind == "bad-search":
            query = rng.choice(["limit=-1", "limit=abc", "offset=-5", "sort=nope", "near=91,0",
                                "within=5", "token=a%20b", "facets=maybe", "scope=Nope",
                                "q=" + "a" * 1_200, "q=%FF%FE", "crop=0"])
            status, _ = call("GET", "/catalogs/products/search?" + query, auth=None)
            expect(f"{kind} {query[:30]}", status, {400})
            status, _ = call("GET", "/catalogs/nope/search?q=a", auth=None)
            expect("unknown catalog", status, {404})
        elif kind == "unauthorized":
            auth = rng.choice([None, "wrong", admin + "x", "sift_" + "a" * 40, "a.b.c"])
            status, _ = call("POST", "/catalogs/products/items", new_fields(), auth=auth)
            expect(f"{kind} {auth}", status, {401})
        elif kind == "method":
            method, path = rng.choice([("PATCH", "/catalogs/products/items/1"), ("DELETE", "/catalogs"),
                                       ("PUT", "/catalogs/products/search"), ("PUT", "/health")])
            status, _ = call(method, path, {"title": "x"})
            expect(f"{method} {path}", status, {405})
            # A search's body holds search parameters: a field of an item is not one.
            status, _ = call("POST", "/catalogs/products/search", {"title": "x"}, auth=None)
            expect("POST /catalogs/products/search {title}", status, {400})
        elif kind == "hostile":
            payload = rng.choice([
                b"GET /catalogs/products/search?q=\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n",
                b"GARBAGE\r\n\r\n",
                b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n",
                bytes(rng.randrange(256) for _ in range(rng.randint(1, 300))) + b"\r\n\r\n",
                b"POST /catalogs/products/items HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n{",
            ])
            answer = raw_request(payload)
            if answer:
                head = answer.split(b"\r\n", 1)[0]
                if head.startswith(b"HTTP/1.1 5"):
                    counts["server_errors"] += 1
                    problems.append(f"hostile {payload[:30]!r}: {head!r}")
                body = answer.partition(b"\r\n\r\n")[2]
                if head.startswith(b"HTTP/1.1 4"):
                    try:
                        if not isinstance(json.loads(body).get("error"), str): raise ValueError
                    except ValueError:
                        problems.append(f"hostile {payload[:30]!r}: {head!r} without a JSON error: {body[:80]!r}")

    # At the end: the same items, the same fields.
    status, page = call("GET", "/catalogs/products/search?q=&limit=1000", auth=None)
    server_ids = {result["id"] for result in page["results"]}
    agree = server_ids == set(model)
    if not agree: problems.append(f"ids differ: server only {sorted(server_ids - set(model))[:5]}, model only {sorted(set(model) - server_ids)[:5]}")
    for id in sorted(model):
        status, item = call("GET", "/catalogs/products/items/" + urllib.parse.quote(id, safe=""), auth=None)
        if status != 200 or fields(item) != model[id]:
            agree = False
            problems.append(f"item {id}: {status} {fields(item) if item else None} vs {model[id]}")
    print(json.dumps({"requests": counts["requests"], "server_errors": counts["server_errors"],
                      "steps": step, "items": len(model), "seconds": round(time.time() - started, 1),
                      "agree": agree, "problems": problems[:20]}))
    sys.exit(1 if problems else 0)
    """#
}
#endif
