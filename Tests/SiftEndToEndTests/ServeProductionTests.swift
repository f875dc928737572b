#if Server
import Foundation
import Testing
import SiftTestSupport

/// `sift serve` as it runs in production: keys and tenant tokens from the command line,
/// HTTPS, and limits that hold against hostile clients (each bounded in count and time) while
/// a well-behaved client is answered.
@Suite("sift serve in production", .serialized, .tags(.endToEnd))
struct ServeProductionTests {
  typealias Server = ServeCommandTests.Server

  @Test(
    "sift keys create, token and revoke drive a running --private server; the log never holds a key"
  )
  func keysFromTheCommandLine() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let made = try sift.run(["keys", "create", "--catalog", "products", "--action", "search"])
    #expect(made.status == 0, "\(made.stderr)")
    let key = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(key.hasPrefix("sift_"))
    let id = try #require(made.stderr.split(separator: " ").dropFirst(2).first.map(String.init))
    #expect(made.stderr == "sift: key \(id) made (search on products); it is shown this once\n")
    let listed = try sift.run(["keys", "list"])
    #expect(listed.stdout.hasPrefix("\(id)  \(key.prefix(9))…  search on products"))
    #expect(!listed.stdout.contains(key))

    let server = try Server(sift, ["--catalog", "products", "--private", "--log-format", "json"])
    var stopped = false
    defer { if !stopped { _ = server.stop() } }
    #expect(try server.request("GET", "/catalogs/products/search?q=rose").status == 401)
    let searched = try server.request("GET", "/catalogs/products/search?q=rose", token: key)
    #expect(searched.status == 200)
    #expect(!ServeCommandTests.ids(searched.json).isEmpty)

    // A tenant token made by the command: only items from 2010 on, in every answer.
    let signed = try sift.run([
      "keys", "token", "--key", key, "--catalog", "products", "--filter", "year:>=2010",
      "--expires-in", "86400",
    ])
    #expect(signed.status == 0, "\(signed.stderr)")
    let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    // A filter the server would refuse is refused when signing, with the server's reason: text
    // (checked by its shape), and a field the catalog lacks (checked against its schema).
    let text = try sift.run([
      "keys", "token", "--key", key, "--catalog", "products", "--filter", "london",
    ])
    #expect(text.status == 2)
    #expect(
      text.stderr
        == "sift: --filter: filter \"london\": a tenant filter names a category or a number (category:VALUE, FIELD:NUMBER), not text\n"
    )
    #expect(text.stdout.isEmpty)
    let unknown = try sift.run([
      "keys", "token", "--key", key, "--catalog", "products", "--filter", "seller:42",
    ])
    #expect(unknown.status == 2)
    #expect(
      unknown.stderr
        == "sift: --filter: filter \"seller:42\" is not one filter of catalog products\n")
    let everything = try server.request("GET", "/catalogs/products/search?q=&limit=100", token: key)
    let tenant = try server.request("GET", "/catalogs/products/search?q=&limit=100", token: token)
    #expect(tenant.status == 200)
    let years = (tenant.json["results"] as? [[String: Any]] ?? []).compactMap {
      $0["year"] as? Double
    }
    #expect(!years.isEmpty && years.allSatisfy { $0 >= 2010 })
    #expect(years.count < ServeCommandTests.ids(everything.json).count)
    #expect(tenant.json["total"] as? Int == years.count)

    // Revoked from the command line: the running server refuses the key within a second or two.
    #expect(try sift.run(["keys", "revoke", id]).status == 0)
    var status = 0
    for _ in 0..<30 {
      status = try server.request("GET", "/catalogs/products/search?q=rose", token: key).status
      if status == 401 { break }
      Thread.sleep(forTimeInterval: 0.1)
    }
    #expect(status == 401)
    #expect(try server.request("GET", "/catalogs/products/search?q=a", token: token).status == 401)
    // A request the parser cannot read: logged and counted, though the router never sees it.
    let garbage = Host.shell(
      "printf 'GARBAGE\\r\\n\\r\\n' | python3 -c 'import socket,sys; s=socket.create_connection((\"127.0.0.1\", \(server.port)), timeout=5); s.sendall(sys.stdin.buffer.read()); print(s.recv(4096).decode())'"
    )
    #expect(garbage.output.contains(#"{"error":"request line: not an HTTP method"}"#))
    let (exit, log) = server.stop()
    stopped = true
    #expect(log.contains(#""error":"request line: not an HTTP method""#))
    #expect(exit == 0)
    #expect(log.contains(#""status":401"#))
    #expect(!log.contains(key) && !log.contains(token), "the access log never holds a key")
  }

  @Test(
    "an HTTP/1.0 request without keep-alive is closed after its answer; keep-alive and 1.1 stay open"
  )
  func http10Closes() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let server = try Server(sift, ["--catalog", "products"])
    defer { _ = server.stop() }
    let result = try ServeCommandTests.client(
      """
      import json, socket, sys, time
      port = int(sys.argv[1])
      answers = {}
      for name, request in [
          ("1.0", b"GET /health HTTP/1.0\\r\\n\\r\\n"),
          ("1.0 HEAD", b"HEAD /health HTTP/1.0\\r\\n\\r\\n"),
          ("1.0 keep-alive", b"GET /health HTTP/1.0\\r\\nConnection: keep-alive\\r\\n\\r\\n"),
          ("1.1", b"GET /health HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"),
          ("1.1 close", b"GET /health HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n")]:
          s = socket.create_connection(("127.0.0.1", port), timeout=5)
          s.settimeout(1.5)
          s.sendall(request)
          data, closed = b"", False
          try:
              while True:
                  chunk = s.recv(4096)
                  if not chunk:
                      closed = True
                      break
                  data += chunk
          except socket.timeout:
              pass
          s.close()
          answers[name] = {"closed": closed, "status": data.split(b"\\r\\n")[0].decode()}
      print(json.dumps(answers))
      """, port: server.port, in: sift)
    func answer(_ name: String) -> (closed: Bool, status: String) {
      let entry = result[name] as? [String: Any] ?? [:]
      return (entry["closed"] as? Bool ?? false, entry["status"] as? String ?? "")
    }
    for name in ["1.0", "1.0 HEAD", "1.1 close"] {
      #expect(answer(name) == (true, "HTTP/1.1 200 OK"), "\(name): \(result)")
    }
    for name in ["1.0 keep-alive", "1.1"] {
      #expect(answer(name) == (false, "HTTP/1.1 200 OK"), "\(name): \(result)")
    }
  }

  @Test(
    "--tls-cert and --tls-key: curl reaches it over HTTPS with the certificate made here",
    .needs("curl", "openssl"))
  func https() throws {
    try Host.require(package: "curl", check: "command -v curl")
    try Host.require(package: "openssl", check: "command -v openssl")
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let folder = sift.folder.path
    let made = Host.shell(
      """
      cd '\(folder)' && openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
        -addext subjectAltName=IP:127.0.0.1 -keyout key.pem -out cert.pem
      """)
    #expect(made.status == 0, "\(made.output)")
    let server = try Server(
      sift, ["--catalog", "products", "--tls-cert", "cert.pem", "--tls-key", "key.pem"])
    defer { _ = server.stop() }
    let secure = Host.shell(
      "curl -sS --cacert '\(folder)/cert.pem' https://127.0.0.1:\(server.port)/health")
    #expect(secure.status == 0)
    #expect(secure.output == #"{"status":"ok","catalogs":1}"#)
    let search = Host.shell(
      "curl -sS --cacert '\(folder)/cert.pem' 'https://127.0.0.1:\(server.port)/catalogs/products/search?q=rose&limit=1'"
    )
    #expect(search.output.contains(#""catalog":"products""#))
    // Plain HTTP to the TLS port is not answered as if it were HTTPS; an unknown CA is refused.
    let plain = Host.shell("curl -sS -m 5 http://127.0.0.1:\(server.port)/health")
    #expect(!plain.output.contains(#""status":"ok""#))
    #expect(Host.shell("curl -sS -m 5 https://127.0.0.1:\(server.port)/health").status != 0)

    let missing = try sift.run([
      "serve", "--catalog", "products", "--tls-cert", "nope.pem", "--tls-key", "key.pem",
    ])
    #expect(missing.status == 2)
    #expect(missing.stderr.hasPrefix("sift: nope.pem: not a PEM certificate that can be read"))
    let alone = try sift.run(["serve", "--tls-cert", "cert.pem"])
    #expect(alone.status == 64)
    #expect(alone.stderr.contains("--tls-cert and --tls-key go together"))
  }

  @Test(
    "a header sent a byte at a time is cut off at --header-timeout; others are answered meanwhile")
  func tricklingHeader() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let server = try Server(
      sift, ["--catalog", "products", "--header-timeout", "1", "--idle-timeout", "30"])
    defer { _ = server.stop() }
    let result = try ServeCommandTests.client(
      """
      import json, socket, sys, time, urllib.request
      port = int(sys.argv[1])
      slow = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(20)]
      started = time.time()
      header = b"GET /catalogs/products/search?q=rose HTTP/1.1\\r\\nHost: x\\r\\nX-Padding: " + b"a" * 200
      closed_after = [None] * len(slow)
      answered = []
      for index in range(len(header)):
          for number, s in enumerate(slow):
              if closed_after[number] is not None: continue
              try:
                  s.sendall(header[index:index + 1])
              except OSError:
                  closed_after[number] = time.time() - started
          if index % 5 == 0:
              t = time.time()
              urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5).read()
              answered.append((time.time() - t) * 1000)
          if all(c is not None for c in closed_after) or time.time() - started > 8: break
          time.sleep(0.1)
      for number, s in enumerate(slow):
          if closed_after[number] is None:
              s.settimeout(1)
              try:
                  if s.recv(1) == b"": closed_after[number] = time.time() - started
              except OSError:
                  pass
      print(json.dumps({"closed": sum(c is not None for c in closed_after),
                        "latest_close_s": max((c for c in closed_after if c is not None), default=None),
                        "answered": len(answered), "worst_ms": max(answered)}))
      """, port: server.port, in: sift)
    print("trickling header: \(result)")
    #expect(result["closed"] as? Int == 20, "every trickling connection closed")
    let latest = result["latest_close_s"] as? Double ?? 99
    #expect(latest < 15, "closed after the 1 s header deadline, not at the 30 s idle timeout")
    #expect((result["answered"] as? Int ?? 0) >= 2)
  }

  @Test(
    "a pipelined flood from a client that never reads does not stop the server answering others")
  func clientThatNeverReads() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let server = try Server(sift, ["--catalog", "products", "--idle-timeout", "2"])
    var stopped = false
    defer { if !stopped { _ = server.stop() } }
    let result = try ServeCommandTests.client(
      """
      import json, socket, sys, time, urllib.request
      port = int(sys.argv[1])
      floods = []
      request = b"GET /catalogs/products/search?q=a&limit=1000 HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"
      for _ in range(4):
          s = socket.create_connection(("127.0.0.1", port), timeout=3)
          s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
          sent = 0
          try:
              for _ in range(2000):
                  s.sendall(request)
                  sent += 1
          except OSError:
              pass
          floods.append(s)
      worst = 0
      for _ in range(20):
          t = time.time()
          body = urllib.request.urlopen(f"http://127.0.0.1:{port}/catalogs/products/search?q=rose", timeout=5).read()
          worst = max(worst, (time.time() - t) * 1000)
      print(json.dumps({"worst_ms": worst, "answered": 20}))
      """, port: server.port, in: sift)
    print("never reads: \(result)")
    #expect(result["answered"] as? Int == 20)
    let health = try server.request("GET", "/health").status
    let (status, _) = server.stop()
    stopped = true
    #expect(health == 200)
    #expect(status == 0)
  }
}
#endif
