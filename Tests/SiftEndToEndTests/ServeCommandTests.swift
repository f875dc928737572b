#if Server
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import SiftTestSupport
#endif

/// The built `sift serve`, started on a free loopback port: what it answers equals what
/// `sift search` prints for the same input, edits need the token and survive the server, and
/// SIGTERM ends it cleanly.
@Suite("sift serve, the binary", .serialized, .tags(.endToEnd))
struct ServeCommandTests {
  /// A running `sift serve`; `stop()` sends SIGTERM and returns its exit status.
  final class Server: @unchecked Sendable {
    let process = Process()
    let port: Int
    /// What it wrote to stderr up to the line that names its address.
    let opening: String
    private let errors: ErrorCollector

    init(_ sift: SiftProcess, _ arguments: [String]) throws {
      process.executableURL = SiftProcess.binary
      process.arguments = ["serve", "--port", "0"] + arguments
      process.currentDirectoryURL = sift.folder
      var environment = ProcessInfo.processInfo.environment
      environment["SIFT_DATA_DIR"] = sift.folder.appendingPathComponent("data").path
      process.environment = environment
      let err = Pipe()
      process.standardError = err
      process.standardOutput = FileHandle.nullDevice
      process.standardInput = FileHandle.nullDevice
      try process.run()
      // The first line on stderr that names the address says which port it took.
      var seen = Data()
      var found: Int?
      let handle = err.fileHandleForReading
      while found == nil {
        let chunk = handle.availableData
        if chunk.isEmpty { break }  // it exited before listening
        seen.append(chunk)
        let text = String(decoding: seen, as: UTF8.self)
        if let range = text.range(
          of: #"https?://127\.0\.0\.1:(\d+)/"#, options: .regularExpression)
        {
          let address = text[range]
          found = Int(address.split(separator: ":").last?.dropLast() ?? "")
        }
      }
      guard let found else {
        process.terminate()
        throw ServerFailure(
          message:
            "sift serve did not say where it listens: \(String(decoding: seen, as: UTF8.self))")
      }
      port = found
      opening = String(decoding: seen, as: UTF8.self)
      errors = ErrorCollector(handle)
    }

    /// SIGKILL: no chance to finish anything.
    func kill() {
      Glibc.kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      _ = errors.finish()
    }

    func stop() -> (status: Int32, stderr: String) {
      process.terminate()  // SIGTERM
      process.waitUntilExit()
      return (process.terminationStatus, String(decoding: errors.finish(), as: UTF8.self))
    }

    /// One request: the status and the JSON object answered.
    func request(
      _ method: String, _ path: String, body: String? = nil, token: String? = nil
    ) throws -> (status: Int, json: [String: Any]) {
      var headers: [String: String] = [:]
      if body != nil { headers["Content-Type"] = "application/json" }
      if let token { headers["Authorization"] = "Bearer \(token)" }
      let (status, data) = try Host.request(
        method, URL(string: "http://127.0.0.1:\(port)\(path)")!, body: body.map { Data($0.utf8) },
        headers: headers)
      let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
      return (status, json)
    }
  }

  struct ServerFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
  }

  static func ids(_ json: [String: Any]) -> [String] {
    (json["results"] as? [[String: Any]] ?? []).compactMap { idText($0["id"]) }
  }

  /// Runs a Python client against `port` (bounded: every socket has a timeout) and returns the
  /// JSON object it prints.
  static func client(_ script: String, port: Int, in sift: SiftProcess) throws -> [String: Any] {
    let file = try sift.write("client.py", script)
    let run = Host.shell("python3 '\(file)' \(port)")
    let data = Data(run.output.utf8)
    guard run.status == 0, let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { throw ServerFailure(message: "the client failed: \(run.output)") }
    return json
  }

  @Test(
    "half-sent headers and idle sockets are closed after --idle-timeout; meanwhile others are answered"
  )
  func idleConnectionsClosed() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let server = try Server(sift, ["--catalog", "products", "--idle-timeout", "1"])
    defer { _ = server.stop() }
    let result = try Self.client(
      """
      import json, socket, sys, time, urllib.request
      port = int(sys.argv[1])
      hostile = []
      for index in range(60):
          s = socket.create_connection(("127.0.0.1", port), timeout=5)
          # Half a header, then nothing; or nothing at all.
          if index % 2 == 0: s.sendall(b"GET /catalogs HTTP/1.1\\r\\nHost: x\\r\\n")
          hostile.append(s)
      started = time.time()
      status = urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5).status
      answered = (time.time() - started) * 1000
      time.sleep(2.5)
      closed = 0
      for s in hostile:
          s.settimeout(2)
          try:
              while s.recv(4096): pass
              closed += 1
          except OSError:
              pass
      print(json.dumps({"status": status, "answered_ms": answered, "closed": closed}))
      """, port: server.port, in: sift)
    print("idle timeout: \(result)")
    #expect(result["status"] as? Int == 200)
    #expect(result["closed"] as? Int == 60, "every silent connection closed by the server")
  }

  @Test(
    "HEAD on a streamed answer (an export) has the GET's headers: no Content-Length of 0",
    .needs("curl"))
  func headOfStreamedAnswer() throws {
    try Host.require(package: "curl", check: "command -v curl")
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let server = try Server(sift, ["--catalog", "products"])
    defer { _ = server.stop() }
    let url = "http://127.0.0.1:\(server.port)/catalogs/products/export"
    let head = Host.shell("curl -sS -m 10 -I '\(url)'").output.lowercased()
    let get = Host.shell("curl -sS -m 10 -D - -o /dev/null '\(url)'").output.lowercased()
    #expect(head.hasPrefix("http/1.1 200"), "\(head)")
    #expect(!head.contains("content-length"), "\(head)")
    #expect(
      head.contains("transfer-encoding: chunked") == get.contains("transfer-encoding: chunked"))
  }

  @Test("readers that stop reading an export are cut off, and the connections they held free")
  func stalledReaders() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    // Several megabytes of export: more than the sockets' buffers hold.
    let lines = (0..<40_000).map {
      #"{"id": \#($0), "name": "Town \#($0) of Somewhere Far Away", "note": "\#(String(repeating: "x", count: 200))"}"#
    }
    let file = try sift.write("towns.jsonl", lines.joined(separator: "\n") + "\n")
    let imported = try sift.run(["import", file, "--catalog", "towns.sqlite", "--title", "name"])
    try #require(imported.status == 0, "\(imported.stderr)")
    let server = try Server(
      sift, ["--catalog", "towns.sqlite", "--max-connections", "6", "--idle-timeout", "2"])
    defer { _ = server.stop() }
    let result = try Self.client(
      """
      import json, socket, sys, time, urllib.request
      port = int(sys.argv[1])
      held = []
      for index in range(6):
          s = socket.socket()
          s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
          s.settimeout(10)
          s.connect(("127.0.0.1", port))
          s.sendall(b"GET /catalogs/towns/export HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
          s.recv(100)  # the start of the answer, then nothing more
          held.append(s)
      started = time.time()
      status = 0
      while status != 200 and time.time() - started < 20:
          try:
              status = urllib.request.urlopen(
                  f"http://127.0.0.1:{port}/catalogs/towns/search?q=town&limit=1", timeout=3).status
          except Exception:
              pass
      searched = time.time() - started
      cut = 0
      for s in held:
          s.settimeout(3)
          try:
              while s.recv(1 << 20): pass
              cut += 1
          except OSError:
              pass
      print(json.dumps({"status": status, "searched_s": searched, "cut": cut}))
      """, port: server.port, in: sift)
    print("stalled readers: \(result)")
    #expect(result["status"] as? Int == 200, "a search got through once the stalled were cut")
    #expect((result["searched_s"] as? Double ?? 99) < 15)
    #expect(result["cut"] as? Int == 6, "every stalled export was ended by the server")
  }

  @Test("--max-connections holds: past it a client waits until a connection closes")
  func connectionCap() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let server = try Server(
      sift, ["--catalog", "products", "--max-connections", "4", "--idle-timeout", "2"])
    defer { _ = server.stop() }
    let result = try Self.client(
      """
      import json, socket, sys, time, urllib.request
      port = int(sys.argv[1])
      held = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(4)]
      time.sleep(0.3)
      try:
          urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=0.8)
          waited = False
      except Exception:
          waited = True
      started = time.time()
      status = urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=8).status
      print(json.dumps({"waited": waited, "status": status, "after_ms": (time.time() - started) * 1000}))
      """, port: server.port, in: sift)
    print("connection cap: \(result)")
    #expect(
      result["waited"] as? Bool == true, "a fifth connection is not served while four are open")
    #expect(result["status"] as? Int == 200, "served once the idle ones are closed")
  }

  @Test("a port in use is said as a person would, not as the socket call's errno")
  func portInUse() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let server = try Server(sift, ["--catalog", "products"])
    defer { _ = server.stop() }
    let second = try sift.run(["serve", "--catalog", "products", "--port", "\(server.port)"])
    #expect(second.status == 1)
    #expect(
      second.stderr
        == "sift: cannot listen on 127.0.0.1:\(server.port): the port is in use (another server?); choose another with --port\n"
    )
    // The first one still answers.
    let (status, json) = try server.request("GET", "/health")
    #expect(status == 200 && json["status"] as? String == "ok")
  }

  @Test("search answers the items sift search prints, in its order, for the seed scenarios")
  func sameAsSearchCommand() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let server = try Server(
      sift, ["--catalog", "products", "--catalog", "candies", "--catalog", "media"])
    defer { _ = server.stop() }
    let cases: [(catalog: String, query: String, arguments: [String])] = [
      ("products", "q=rose+2010", ["rose", "2010"]),
      ("products", "q=2007", ["2007"]),
      ("products", "q=rosse", ["rosse"]),
      ("products", "q=price:%3C30+-rose", ["--", "price:<30", "-rose"]),
      ("products", "q=%D9%A2%D9%A0%D9%A1%D9%A0", ["٢٠١٠"]),
      ("candies", "scope=Chocolate", ["--scope", "Chocolate"]),
      (
        "media", "token=category:Movies&token=year:%3E%3D2010",
        [
          "--token", "category:Movies", "--token", "year:>=2010",
        ]
      ),
    ]
    for (catalog, query, arguments) in cases {
      let cli = try sift.run(["search", "--catalog", catalog, "--json"] + arguments)
      #expect(cli.status == 0, "\(cli.stderr)")
      let expected = cli.objects.compactMap { idText($0["id"]) }
      let (status, json) = try server.request(
        "GET", "/catalogs/\(catalog)/search?\(query)&limit=1000")
      #expect(status == 200)
      #expect(Self.ids(json) == expected, "\(catalog) \(query)")
      #expect(json["indicator"] as? String == cli.stderr.trimmingCharacters(in: .newlines))
    }
  }

  @Test("edits need the token file's token, are saved before the reply, and SIGTERM exits 0")
  func editsAndShutdown() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let tokenFile = try sift.write("token", "  abc123\n")
    let server = try Server(sift, ["--catalog", "products", "--token-file", tokenFile])
    let body = #"{"title": "Orange Lily", "year": 2025, "price": 12, "type": "Gifts"}"#
    #expect(try server.request("POST", "/catalogs/products/items", body: body).status == 401)
    let added = try server.request("POST", "/catalogs/products/items", body: body, token: "abc123")
    #expect(added.status == 201)
    let found = try server.request("GET", "/catalogs/products/search?q=orange")
    #expect(
      (found.json["results"] as? [[String: Any]])?.first?["title"] as? String == "Orange Lily")
    // Hostile input leaves it answering.
    #expect(try server.request("GET", "/catalogs/products/search?q=%FF").status == 400)
    #expect(
      try server.request(
        "GET", "/catalogs/products/search?q=" + String(repeating: "x", count: 5_000)
      )
      .status == 400)
    #expect(try server.request("GET", "/catalogs/..%2Fetc/search").status == 404)
    #expect(
      try server.request("POST", "/catalogs/products/items", body: "{", token: "abc123").status
        == 400)
    #expect(try server.request("GET", "/catalogs/products/search?q=lily").status == 200)
    let (status, stderr) = server.stop()
    #expect(status == 0, "\(stderr)")
    // Acknowledged, so in the file: the command line sees it after the server is gone.
    let after = try sift.run(["search", "--catalog", "products", "--json", "orange"])
    #expect(after.titles == ["Orange Lily"])
  }

  @Test("a file served without its index says in its log that it builds one, and why, once")
  func rebuildSaidInTheLog() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let sample = SiftProcess.fixtures.appendingPathComponent("cities-sample.jsonl")
    let imported = try sift.run(
      ["import", sample.path, "--catalog", "cities.sqlite"] + ImportCommandTests.cityArguments)
    try #require(imported.status == 0, "\(imported.stderr)")
    try FileManager.default.removeItem(atPath: sift.path("cities.sqlite-index"))
    let server = try Server(sift, ["--catalog", "cities.sqlite"])
    #expect(
      server.opening.hasPrefix(
        "sift: catalog cities: building the search index: the index file is missing\n"),
      "\(server.opening)")
    #expect(server.stop().status == 0)
    // Saved as it was built: served again, there is nothing to build.
    let again = try Server(sift, ["--catalog", "cities.sqlite"])
    #expect(!again.opening.contains("building"), "\(again.opening)")
    #expect(again.stop().status == 0)
  }

  @Test("explain=1 gives the values sift search --explain prints, under the same names")
  func explainAsCommandLine() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let server = try Server(sift, ["--catalog", "media"])
    defer { _ = server.stop() }
    let cli = try sift.run(["search", "--catalog", "media", "--json", "--explain", "the"])
    #expect(cli.status == 0, "\(cli.stderr)")
    let (status, json) = try server.request(
      "GET", "/catalogs/media/search?q=the&explain=1&limit=1000")
    #expect(status == 200)
    let served = (json["results"] as? [[String: Any]] ?? []).map { $0["explain"] as? NSDictionary }
    let printed = cli.objects.map { object -> NSDictionary? in
      // The highlights are the result's own on the server.
      var explain = object["explain"] as? [String: Any]
      explain?["highlights"] = nil
      return explain.map { $0 as NSDictionary }
    }
    #expect(!served.isEmpty && served == printed)
  }

  @Test(
    "kill -9 while edits arrive: every acknowledged edit is in the file, and it is sound",
    .needs("sqlite3"))
  func killDuringEdits() throws {
    try Host.require(package: "sqlite3", check: "command -v sqlite3")
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let tokenFile = try sift.write("token", "t0k3n")
    for round in 1...3 {
      let server = try Server(sift, ["--catalog", "products", "--token-file", tokenFile])
      // Edits from another thread, one after another; the server dies under them.
      final class Log: @unchecked Sendable {
        let lock = NSLock()
        var acknowledged: [String] = []
      }
      let log = Log()
      let editor = Thread {
        for number in 1...200 {
          let title = "Round\(round) Edit\(number)"
          let body = #"{"title": "\#(title)", "year": 2030, "price": 1, "type": "Gifts"}"#
          guard
            let answer = try? server.request(
              "POST", "/catalogs/products/items", body: body, token: "t0k3n"), answer.status == 201
          else { return }
          log.lock.lock()
          log.acknowledged.append(title)
          log.lock.unlock()
        }
      }
      editor.start()
      // Killed after a few acknowledged edits, at a moment that varies with the round.
      while log.lock.withLock({ log.acknowledged.count }) < 5 * round {
        Thread.sleep(forTimeInterval: 0.005)
      }
      server.kill()
      while editor.isExecuting { Thread.sleep(forTimeInterval: 0.01) }
      let acknowledged = log.lock.withLock { log.acknowledged }
      let file = sift.path("data/products.sqlite")
      #expect(CrashTests.sqlite(file, "pragma integrity_check") == "ok", "round \(round)")
      let found = try sift.run(["search", "--catalog", "products", "--json", "round\(round)"])
      #expect(found.status == 0, "\(found.stderr)")
      let titles = Set(found.titles)
      let lost = acknowledged.filter { !titles.contains($0) }
      #expect(lost.isEmpty, "round \(round): acknowledged but lost \(lost)")
      // At most the one edit in flight when it died is there unacknowledged.
      #expect(titles.count <= acknowledged.count + 1, "round \(round)")
    }
  }

  @Test(
    "a served file shows what other processes write to it: an import, a pin, synonyms, an edit"
  )
  func followsTheFile() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let films = try sift.write(
      "films.jsonl",
      [
        #"{"id":"1","title":"New York Stories","votes":2699}"#,
        #"{"id":"2","title":"Gangs of New York","votes":34808}"#,
        #"{"id":"3","title":"Stripes","votes":40000}"#,
      ].joined(separator: "\n") + "\n")
    let imported = try sift.run(
      ["import", films, "--catalog", "films.sqlite", "--title", "title", "--rank-by", "votes"])
    #expect(imported.status == 0, "\(imported.stderr)")
    let tokenFile = try sift.write("token", "abc123\n")
    let server = try Server(sift, ["--catalog", "films.sqlite", "--token-file", tokenFile])
    defer { _ = server.stop() }
    func search(_ query: String) -> String {
      "/catalogs/films/search?q="
        + query.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }
    /// The ids the server answers for `query` once they are `expected`, and how long that took
    /// (nil: not within ten seconds).
    func shown(_ query: String, _ expected: [String]) throws -> Double? {
      let started = Date()
      while Date().timeIntervalSince(started) < 10 {
        if Self.ids(try server.request("GET", search(query)).json) == expected {
          return Date().timeIntervalSince(started)
        }
        usleep(20_000)
      }
      return nil
    }
    #expect(try shown("zebra", []) != nil)
    // Another process adds an item with an import.
    let more = try sift.write(
      "more.jsonl", #"{"id":"4","title":"Zebra Crossing","votes":10}"# + "\n")
    let merged = try sift.run(["import", more, "--catalog", "films.sqlite", "--merge"])
    #expect(merged.status == 0, "\(merged.stderr)")
    let seenImport = try shown("zebra", ["4"])
    print("an import from another process shown after \(seenImport ?? -1) s")
    #expect(seenImport != nil)
    // A pin and synonyms from the command line.
    #expect(
      try sift.run(["pins", "add", "--catalog", "films.sqlite", "new york", "3"]).status == 0)
    let seenPin = try shown("new york", ["3", "1", "2"])
    print("a pin shown after \(seenPin ?? -1) s")
    #expect(seenPin != nil)
    #expect(
      try sift.run(["synonyms", "add", "--catalog", "films.sqlite", "ny", "new york"]).status
        == 0)
    let seenSynonym = try shown("ny ", ["1", "2"])
    print("synonyms shown after \(seenSynonym ?? -1) s")
    #expect(seenSynonym != nil)
    // The server's own edit, then another process's: both kept, in order.
    let added = try server.request(
      "POST", "/catalogs/films/items", body: #"{"id":"5","title":"Zebra Force","votes":20}"#,
      token: "abc123")
    #expect(added.status == 201)
    // The file names no id field: merged again, the line is a new item (6), after the
    // server's own. Waiting for the state before it would pass at once, before the server read
    // the merge, and leave the comparison below racing the server's next read of the file.
    let again = try sift.run(["import", more, "--catalog", "films.sqlite", "--merge"])
    #expect(again.status == 0)
    #expect(try shown("zebra", ["5", "4", "6"]) != nil)
    // What a process that opens the file now finds, the server answers.
    for query in ["zebra", "new york", "ny ", "s", "gangs"] {
      let searched = try sift.run(["search", "--catalog", "films.sqlite", "--json", query])
      let served = Self.ids(try server.request("GET", search(query)).json)
      let printed = searched.objects.compactMap { idText($0["id"]) }
      #expect(served == printed, "\(query)")
    }
  }

  @Test("a read-only server refuses edits; an empty token file or a bad port is a usage error")
  func readOnlyAndUsage() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let server = try Server(sift, ["--catalog", "candies"])
    let refused = try server.request("DELETE", "/catalogs/candies/items/1", token: "x")
    #expect(refused.status == 403)
    #expect((refused.json["error"] as? String)?.contains("read-only") == true)
    #expect(server.stop().status == 0)
    let empty = try sift.write("empty", "\n")
    let noToken = try sift.run(["serve", "--catalog", "candies", "--token-file", empty])
    #expect(noToken.status == 2 && noToken.stderr.contains("is empty"))
    let badPort = try sift.run(["serve", "--port", "70000"])
    #expect(badPort.status != 0 && badPort.stderr.contains("--port"))
    for origin in ["shop.example", "https://shop.example/", "https://shop.example/path", "ftp://x"]
    {
      let badOrigin = try sift.run(["serve", "--cors", origin])
      #expect(
        badOrigin.status != 0 && badOrigin.stderr.contains("--cors must be an origin"), "\(origin)")
    }
  }
}
#endif
