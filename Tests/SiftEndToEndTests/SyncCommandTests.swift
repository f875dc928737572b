#if Server
import Foundation
import Sift
import SiftTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `sift sync URL --catalog LOCAL.sqlite` against a running `sift serve`: the copy answers
/// every query as the server does (with a key, and with a tenant token that sees only its
/// rows) through random edits and syncs; a sync cut off anywhere — the server killed, the sync
/// interrupted or killed — leaves the local file as it was, and searchable; a copy from before
/// the kept log starts over; each failure has its wording and exit status.
@Suite("sift sync: an offline copy that follows a server", .serialized, .tags(.endToEnd))
struct SyncCommandTests {
  typealias Server = ServeCommandTests.Server

  static let admin = "sync-admin-token"
  static let plants = [
    "rose", "tulip", "lily", "orchid", "daisy", "fern", "moss", "ivy", "iris", "lotus", "peony",
    "aster", "basil", "mint", "sage", "thyme", "cedar", "maple", "birch", "willow",
  ]
  static let adjectives = [
    "red", "white", "blue", "wild", "garden", "royal", "dwarf", "giant", "golden", "silver",
  ]
  static let kinds = ["Flowers", "Herbs", "Trees"]

  /// A random item's JSON fields (with its id, when given).
  static func item(_ random: inout SplitMix64, id: String? = nil) -> String {
    var words = [adjectives.randomElement(using: &random)!, plants.randomElement(using: &random)!]
    if Bool.random(using: &random) { words.append(plants.randomElement(using: &random)!) }
    let idPart = id.map { #""id": "\#($0)", "# } ?? ""
    return
      #"{\#(idPart)"title": "\#(words.joined(separator: " ").capitalized)", "kind": "\#(kinds.randomElement(using: &random)!)", "seller": \#(Int.random(in: 1...3, using: &random)), "year": \#(Int.random(in: 1990...2024, using: &random))}"#
  }

  /// `shop.sqlite`: `count` random plants, served under the name `shop`.
  static func catalog(_ sift: SiftProcess, count: Int, seed: UInt64) throws -> String {
    var random = SplitMix64(seed: seed)
    let lines = (1...count).map { item(&random, id: "\($0)") }
    let file = try sift.write("plants.jsonl", lines.joined(separator: "\n") + "\n")
    let catalog = sift.path("shop.sqlite")
    let imported = try sift.run([
      "import", file, "--catalog", catalog, "--title", "title", "--category", "kind", "--number",
      "seller", "--number", "year", "--id", "id",
    ])
    try #require(imported.status == 0, "\(imported.stderr)")
    return catalog
  }

  /// One random edit through the server: an add, a change, a delete, new synonyms, or an item
  /// pinned or hidden for a plant's name.
  static func edit(_ server: Server, _ random: inout SplitMix64, serial: Int) throws {
    let id = "\(Int.random(in: 1...400, using: &random))"
    switch Int.random(in: 0..<11, using: &random) {
    case 0..<3:
      _ = try server.request(
        "POST", "/catalogs/shop/items", body: item(&random), token: admin)
    case 3..<6:
      _ = try server.request(
        "PUT", "/catalogs/shop/items/\(id)", body: item(&random), token: admin)
    case 6..<9:
      _ = try server.request("DELETE", "/catalogs/shop/items/\(id)", token: admin)
    case 10:
      let plant = plants.randomElement(using: &random)!
      let body =
        Bool.random(using: &random)
        ? #"{"query": "\#(plant)", "id": "\#(id)", "at": \#(Int.random(in: 1...3, using: &random))}"#
        : #"{"query": "\#(plant)", "id": "\#(id)", "hidden": true}"#
      let answer = try server.request("POST", "/catalogs/shop/pins", body: body, token: admin)
      // The id may be one a delete took.
      #expect(answer.status == 200 || answer.status == 400, "\(answer.json)")
    default:
      let plant = plants.randomElement(using: &random)!
      let other = plants.randomElement(using: &random)!
      let answer = try server.request(
        "PUT", "/catalogs/shop/synonyms",
        body: #"{"synonyms": [{"expressions": ["\#(plant)", "\#(other) \#(serial)"]}]}"#,
        token: admin)
      #expect(answer.status == 200)
    }
  }

  /// A random query: words, a word's start, a misspelling, a filter, a negation, or nothing.
  static func query(_ random: inout SplitMix64) -> [String] {
    let plant = plants.randomElement(using: &random)!
    let adjective = adjectives.randomElement(using: &random)!
    switch Int.random(in: 0..<8, using: &random) {
    case 0: return [plant]
    case 1: return [adjective, plant]
    case 2: return [String(plant.prefix(Int.random(in: 1...3, using: &random)))]
    case 3:
      var letters = Array(plant)
      if letters.count > 4 { letters.remove(at: Int.random(in: 1..<letters.count, using: &random)) }
      return [String(letters)]
    case 4: return ["kind:\(kinds.randomElement(using: &random)!)", plant]
    case 5: return ["year:>2010", adjective]
    case 6: return ["--", "-\(adjective)", plant]
    default: return []
    }
  }

  /// The ids the server answers for `words` (its first 1,000) and the total.
  static func served(_ server: Server, _ words: [String], token: String?) throws -> [String] {
    let text = words.filter { $0 != "--" }.joined(separator: " ")
    let q = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    let answer = try server.request(
      "GET", "/catalogs/shop/search?q=\(q)&limit=1000", token: token)
    #expect(answer.status == 200, "\(answer.json)")
    return ServeCommandTests.ids(answer.json)
  }

  /// The ids `sift search` answers for `words` on the local copy.
  static func local(_ sift: SiftProcess, _ copy: String, _ words: [String]) throws -> [String] {
    let run = try sift.run(["search", "--catalog", copy, "--json"] + words)
    #expect(run.status == 0, "\(words): \(run.stderr)")
    return run.objects.compactMap { idText($0["id"]) }
  }

  static func sync(
    _ sift: SiftProcess, _ server: Server, _ copy: String, tokenFile: String?,
    pageSize: Int = 2_000
  ) throws -> SiftProcess.Run {
    try sift.run(
      [
        "sync", "http://127.0.0.1:\(server.port)/catalogs/shop", "--catalog", copy,
        "--page-size", "\(pageSize)",
      ] + (tokenFile.map { ["--token-file", $0] } ?? []))
  }

  /// A search key for `shop`, and a tenant token signed with it that sees seller 2's rows.
  static func keyAndTenant(
    _ sift: SiftProcess, catalog: String = "shop"
  ) throws -> (key: String, tenant: String) {
    let made = try sift.run(["keys", "create", "--catalog", catalog, "--action", "search"])
    try #require(made.status == 0, "\(made.stderr)")
    let key = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let signed = try sift.run([
      "keys", "token", "--key", key, "--catalog", catalog, "--filter", "seller:2",
      "--expires-in", "86400",
    ])
    try #require(signed.status == 0, "\(signed.stderr)")
    let tenant = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    return (key, tenant)
  }

  @Test(
    "the copy answers every query as the server does, through random edits, with a key and with a tenant token"
  )
  func answersAgree() throws {
    let seed = ProcessInfo.processInfo.environment["SIFT_SEED"].flatMap(UInt64.init) ?? 51
    var random = SplitMix64(seed: seed)
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let file = try Self.catalog(sift, count: 300, seed: seed)
    let (key, tenant) = try Self.keyAndTenant(sift)
    let keyFile = try sift.write("key", key)
    let tenantFile = try sift.write("tenant", tenant)
    let server = try Server(
      sift, ["--catalog", file, "--token-file", sift.write("admin", Self.admin)])
    defer { _ = server.stop() }
    let copies = [
      (name: "key", file: sift.path("copy.sqlite"), token: keyFile, bearer: key),
      (name: "tenant", file: sift.path("tenant.sqlite"), token: tenantFile, bearer: tenant),
    ]
    var serial = 0
    var compared = 0
    for round in 0..<4 {
      for _ in 0..<(round == 0 ? 0 : Int.random(in: 5...30, using: &random)) {
        serial += 1
        try Self.edit(server, &random, serial: serial)
      }
      for copy in copies {
        let synced = try Self.sync(
          sift, server, copy.file, tokenFile: copy.token, pageSize: [7, 50, 2_000][round % 3])
        #expect(synced.status == 0, "round \(round), \(copy.name): \(synced.stderr)")
        let line = synced.stdout.trimmingCharacters(in: .newlines)
        let pattern =
          round == 0
          ? #"^copied [0-9,]+ items?; now at version [0-9,]+$"#
          : #"^(\d+ added, \d+ changed, \d+ deleted(, synonyms changed)?|synonyms changed|up to date); now at version [0-9,]+$"#
        #expect(line.range(of: pattern, options: .regularExpression) != nil, "\(line)")
        try Self.expectIndexReady(sift, copy.file, "round \(round), \(copy.name)")
        for _ in 0..<25 {
          let words = Self.query(&random)
          let expected = try Self.served(server, words, token: copy.bearer)
          let held = try Self.local(sift, copy.file, words)
          #expect(held == expected, "round \(round), \(copy.name), query \(words)")
          compared += 1
        }
      }
      // The tenant's copy holds its rows and nothing else.
      let rows = try sift.run(["search", "--catalog", copies[1].file, "--json"]).objects
      #expect(!rows.isEmpty && rows.allSatisfy { $0["seller"] as? Double == 2 }, "round \(round)")
      let all = try Self.served(server, [], token: tenant)
      #expect(rows.count == all.count, "round \(round)")
    }
    // The tenant's copy read with the key: another set of rows, so copied whole again.
    let widened = try Self.sync(sift, server, copies[1].file, tokenFile: keyFile)
    #expect(
      widened.stdout.hasPrefix(
        "copied whole again (the token sees other rows than the copy holds (filter seller:2, now all)): "
      ), "\(widened.stdout)")
    try Self.expectIndexReady(sift, copies[1].file, "copied whole again")
    #expect(
      try Self.local(sift, copies[1].file, []).count == Self.served(server, [], token: key).count)
    print(
      "SyncCommandTests: \(compared) queries answered alike after \(serial) edits (seed \(seed))")
  }

  /// A copy a sync left opens with its index as saved (the sync built it), or as saved and
  /// brought up to date from the copy's log, never built again from its items.
  static func expectIndexReady(_ sift: SiftProcess, _ copy: String, _ context: String) throws {
    let run = try sift.run(["search", "--catalog", copy, "--limit", "1", "rose"])
    #expect(run.status == 0, "\(context): \(run.stderr)")
    #expect(!run.stderr.contains("index was rebuilt"), "\(context): \(run.stderr)")
  }

  /// What `sift search` shows of the whole copy, and the version its sync recorded.
  static func contents(_ sift: SiftProcess, _ copy: String) throws -> String {
    let all = try sift.run(["search", "--catalog", copy, "--json"])
    #expect(all.status == 0, "the copy is searchable: \(all.stderr)")
    return all.stdout
  }

  /// Runs `sift sync` in the background, with its output in files.
  static func background(
    _ sift: SiftProcess, _ arguments: [String]
  ) throws -> (Process, out: String, err: String) {
    let process = Process()
    process.executableURL = SiftProcess.binary
    process.arguments = arguments
    process.currentDirectoryURL = sift.folder
    let out = sift.path("sync-\(UUID().uuidString).out")
    let err = out + ".err"
    _ = FileManager.default.createFile(atPath: out, contents: nil)
    _ = FileManager.default.createFile(atPath: err, contents: nil)
    process.standardOutput = FileHandle(forWritingAtPath: out)
    process.standardError = FileHandle(forWritingAtPath: err)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return (process, out, err)
  }

  static func text(_ path: String) -> String {
    (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
  }

  /// Files a sync leaves beside the copy's (the staging copies are removed or swept).
  static func leftovers(_ sift: SiftProcess) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: sift.folder.path)) ?? []).filter {
      $0.hasSuffix(".syncing")
    }
  }

  @Test(
    "a sync cut off at a random point — the server killed, the sync interrupted or killed — leaves the copy as it was"
  )
  func cutOff() throws {
    let seed = ProcessInfo.processInfo.environment["SIFT_SEED"].flatMap(UInt64.init) ?? 5_151
    var random = SplitMix64(seed: seed)
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let file = try Self.catalog(sift, count: 3_000, seed: seed)
    let adminFile = try sift.write("admin", Self.admin)
    let copy = sift.path("copy.sqlite")
    var server = try Server(sift, ["--catalog", file, "--token-file", adminFile])
    var serial = 0
    // 1. The first sync, cut off: no copy at all, and nothing left beside it.
    for attempt in 0..<3 {
      let (process, _, err) = try Self.background(
        sift,
        [
          "sync", "http://127.0.0.1:\(server.port)/catalogs/shop", "--catalog", copy,
          "--page-size", "10",
        ])
      let delay = Double.random(in: 0.05...0.5, using: &random)
      Thread.sleep(forTimeInterval: delay)
      switch attempt {
      case 0:
        server.kill()
        process.waitUntilExit()
        #expect(process.terminationStatus == 3, "\(Self.text(err))")
        #expect(Self.text(err).hasPrefix("sift: cannot reach 127.0.0.1:\(server.port): "))
        server = try Server(sift, ["--catalog", file, "--token-file", adminFile])
      case 1:
        // Ctrl-C once the copy is under way (its staging copy exists): before the command has
        // read its arguments, a SIGINT ends the process as it ends any (a loaded run took
        // longer than the delay once), which says nothing.
        let started = Date()
        while Self.leftovers(sift).isEmpty, process.isRunning,
          Date().timeIntervalSince(started) < 30
        {
          Thread.sleep(forTimeInterval: 0.01)
        }
        Glibc.kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(Self.text(err))")
        #expect(Self.text(err).hasSuffix("sift: sync interrupted: \(copy) is as it was\n"))
      default:
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
      }
      print("first sync, cut \(attempt) after \(String(format: "%.2f", delay)) s")
      #expect(!FileManager.default.fileExists(atPath: copy), "cut \(attempt)")
      if attempt < 2 { #expect(Self.leftovers(sift).isEmpty, "cut \(attempt)") }
    }
    let first = try Self.sync(sift, server, copy, tokenFile: nil, pageSize: 500)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(Self.leftovers(sift).isEmpty, "a killed sync's staging copy is swept by the next")
    // 2. Later syncs, cut off: the copy as it was, searchable.
    for attempt in 0..<4 {
      for _ in 0..<150 {
        serial += 1
        try Self.edit(server, &random, serial: serial)
      }
      let before = try Self.contents(sift, copy)
      let (process, _, err) = try Self.background(
        sift,
        [
          "sync", "http://127.0.0.1:\(server.port)/catalogs/shop", "--catalog", copy,
          "--page-size", "1",
        ])
      let delay = Double.random(in: 0.05...0.4, using: &random)
      Thread.sleep(forTimeInterval: delay)
      switch attempt % 2 {
      case 0:
        server.kill()
        process.waitUntilExit()
        server = try Server(sift, ["--catalog", file, "--token-file", adminFile])
      default:
        Glibc.kill(process.processIdentifier, attempt == 1 ? SIGINT : SIGKILL)
        process.waitUntilExit()
      }
      print(
        "a later sync, cut \(attempt) after \(String(format: "%.2f", delay)) s: exit \(process.terminationStatus)"
      )
      if process.terminationStatus != 0 {
        #expect(try Self.contents(sift, copy) == before, "cut \(attempt): \(Self.text(err))")
      }
      let caughtUp = try Self.sync(sift, server, copy, tokenFile: nil)
      #expect(caughtUp.status == 0, "\(caughtUp.stderr)")
      let expected = try Self.served(server, [], token: nil)
      let held = try Self.local(sift, copy, [])
      // The server answers a page of at most 1,000; `sift search` every match.
      #expect(held.prefix(1_000) == expected[...], "after cut \(attempt)")
      let total = try server.request("GET", "/catalogs/shop/search?q=&limit=0").json["total"]
      #expect(total as? Int == held.count, "after cut \(attempt)")
    }
    _ = server.stop()
  }

  @Test(
    "under steady churn (items deleted and added again), an export holds each item once and a first sync finishes"
  )
  func churn() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    // Five export pages: items the churn adds again after their page was read come again later.
    let file = try Self.catalog(sift, count: 10_000, seed: 9)
    let adminFile = try sift.write("admin", Self.admin)
    let server = try Server(sift, ["--catalog", file, "--token-file", adminFile])
    defer { _ = server.stop() }
    // Another process deletes items and adds them again, each time at the end of catalog
    // order, until told to stop (bounded in count and time too). A process of its own: a
    // thread of this one opening connections as fast as it can would race Foundation's
    // `Process.run`, which walks the open descriptors, in the suites running beside it.
    let stopFile = sift.path("stop-churn")
    let countFile = sift.path("churned")
    let script = try sift.write(
      "churn.py",
      """
      import http.client, json, os, random, sys, time
      port, admin, stop, count = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
      rng = random.Random(99)
      connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
      headers = {"Authorization": "Bearer " + admin, "Content-Type": "application/json"}
      started = time.time()
      for done in range(20000):
          if os.path.exists(stop) or time.time() - started > 120: break
          key = str(rng.randint(1, 10000))
          for method, path, body in [
              ("DELETE", "/catalogs/shop/items/" + key, None),
              ("POST", "/catalogs/shop/items",
               json.dumps({"id": key, "title": "Churned " + key, "kind": "Trees"})),
          ]:
              connection.request(method, path, body=body, headers=headers)
              connection.getresponse().read()
          with open(count, "w") as out: out.write(str(done + 1))
      open(stop + ".done", "w").close()
      """)
    // Started by the shell, in the background (`Host.shell` spawns without Foundation).
    _ = Host.shell(
      "python3 '\(script)' \(server.port) \(Self.admin) '\(stopFile)' '\(countFile)' >/dev/null 2>&1 &"
    )
    let churned = { Int((try? String(contentsOfFile: countFile, encoding: .utf8)) ?? "") ?? 0 }
    let waited = Date()
    while churned() < 20, Date().timeIntervalSince(waited) < 30 {
      Thread.sleep(forTimeInterval: 0.05)
    }
    #expect(churned() >= 20, "the churn runs")

    let (status, body) = try Host.request(
      "GET", URL(string: "http://127.0.0.1:\(server.port)/catalogs/shop/export")!,
      headers: ["Authorization": "Bearer \(Self.admin)"])
    #expect(status == 200)
    let lines = String(decoding: body, as: UTF8.self).split(separator: "\n").dropFirst()
    let ids = lines.compactMap {
      idText((try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"])
    }
    #expect(ids.count == Set(ids).count, "each item once: \(ids.count - Set(ids).count) twice")
    #expect(ids.count >= 9_990, "\(ids.count) items")
    let exported = try sift.write("exported.jsonl", Array(body))
    let imported = try sift.run(["import", exported, "--catalog", "imported.sqlite"])
    #expect(imported.status == 0, "\(imported.stderr)")

    // A first sync in small pages while the churn goes on: it finishes, whole.
    let copy = sift.path("copy.sqlite")
    let first = try Self.sync(sift, server, copy, tokenFile: adminFile, pageSize: 500)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(!FileManager.default.fileExists(atPath: stopFile + ".done"), "the churn still ran")
    _ = try sift.write("stop-churn", "")
    let stopping = Date()
    while !FileManager.default.fileExists(atPath: stopFile + ".done"),
      Date().timeIntervalSince(stopping) < 30
    {
      Thread.sleep(forTimeInterval: 0.05)
    }
    let again = try Self.sync(sift, server, copy, tokenFile: adminFile, pageSize: 500)
    #expect(again.status == 0, "\(again.stderr)")
    let served = try server.request("GET", "/catalogs/shop/search?limit=1000&offset=0")
    #expect(served.status == 200)
    let local = try sift.run(["search", "--catalog", copy, "--json"]).objects.compactMap {
      idText($0["id"])
    }
    #expect(local.count == 10_000 && Set(local).count == 10_000, "\(local.count)")
  }

  @Test("a catalog file copied to two places: a copy that followed one starts over on the other")
  func twoFilesOneHistory() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let file = try Self.catalog(sift, count: 30, seed: 10)
    // A backup restored beside the original: the same log up to here.
    for folder in ["a", "b"] {
      try FileManager.default.createDirectory(
        atPath: sift.path(folder), withIntermediateDirectories: true)
      try FileManager.default.copyItem(atPath: file, toPath: sift.path("\(folder)/shop.sqlite"))
    }
    let adminFile = try sift.write("admin", Self.admin)
    let copy = sift.path("copy.sqlite")
    let add = { (server: Server, id: String, title: String) in
      let added = try server.request(
        "POST", "/catalogs/shop/items",
        body: #"{"id": "\#(id)", "title": "\#(title)", "kind": "Trees"}"#,
        token: Self.admin)
      #expect(added.status == 201, "\(added.json)")
    }
    let a = try Server(sift, ["--catalog", sift.path("a/shop.sqlite"), "--token-file", adminFile])
    #expect(try Self.sync(sift, a, copy, tokenFile: adminFile).status == 0)
    try add(a, "x", "Xylosma")
    #expect(try Self.sync(sift, a, copy, tokenFile: adminFile).status == 0)
    _ = a.stop()
    let b = try Server(sift, ["--catalog", sift.path("b/shop.sqlite"), "--token-file", adminFile])
    defer { _ = b.stop() }
    try add(b, "y", "Yew")
    try add(b, "z", "Zelkova")
    let synced = try Self.sync(sift, b, copy, tokenFile: adminFile)
    #expect(synced.status == 0, "\(synced.stderr)")
    #expect(
      synced.stdout.hasPrefix("copied whole again (catalog shop on the server was made again)"),
      "\(synced.stdout)")
    let titles = try sift.run(["search", "--catalog", copy, "--json"]).titles
    #expect(titles.contains("Yew") && titles.contains("Zelkova") && !titles.contains("Xylosma"))
    #expect(titles.count == 32)
  }

  @Test(
    "a copy from before an import, or of another catalog, and what refuses a sync: each says so")
  func startOverAndRefusals() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let file = try Self.catalog(sift, count: 50, seed: 7)
    let adminFile = try sift.write("admin", Self.admin)
    var server = try Server(sift, ["--catalog", file, "--token-file", adminFile, "--private"])
    let copy = sift.path("copy.sqlite")
    let anonymous = try Self.sync(sift, server, copy, tokenFile: nil)
    #expect(anonymous.status == 4)
    #expect(
      anonymous.stderr
        == "sift: 127.0.0.1:\(server.port) answered 401: Authorization: this server is private: searching needs a key (Authorization: Bearer KEY)\n"
    )
    let wrong = try Self.sync(sift, server, copy, tokenFile: try sift.write("bad", "sift_nope"))
    #expect(wrong.status == 4, "\(wrong.stderr)")
    #expect(!FileManager.default.fileExists(atPath: copy))
    let first = try Self.sync(sift, server, copy, tokenFile: adminFile)
    #expect(first.stdout.hasPrefix("copied 50 items; now at version "), "\(first.stdout)")
    _ = server.stop()
    let more = try sift.write(
      "more.jsonl", #"{"id": "900", "title": "Blue Zinnia", "kind": "Flowers"}"# + "\n")
    let imported = try sift.run(["import", more, "--catalog", file])
    #expect(imported.status == 0, "\(imported.stderr)")
    server = try Server(sift, ["--catalog", file, "--token-file", adminFile])
    defer { _ = server.stop() }
    let again = try Self.sync(sift, server, copy, tokenFile: nil)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(
      again.stdout.range(
        of:
          #"^copied whole again \(since: version \d+ is older than the log catalog shop keeps, which starts after version \d+\): 51 items, 1 new, 0 gone; now at version [0-9,]+\n$"#,
        options: .regularExpression) != nil, "\(again.stdout)")
    #expect(try Self.local(sift, copy, ["zinnia"]) == ["900"])

    let other = try Self.sync(sift, server, copy, tokenFile: nil)
    #expect(other.stdout.hasPrefix("up to date; now at version "))
    let at = "http://127.0.0.1:\(server.port)/catalogs"
    let refusals: [(url: String, local: String, status: Int32, message: String)] = [
      (
        "\(at)/products", copy, 2,
        "\(copy) is a copy of catalog shop (\(at)/shop), not of products"
      ),
      (
        "\(at)/shop", file, 2,
        "\(file) is a catalog that was not made by a sync: sync into a new file instead"
      ),
      (
        "\(at)/nope", sift.path("n.sqlite"), 5,
        "127.0.0.1:\(server.port) answered 404: no catalog named \"nope\"; this server has shop"
      ),
      (
        "http://127.0.0.1/shop", copy, 2,
        "http://127.0.0.1/shop: the path must end in /catalogs/NAME (for example http://localhost:7700/catalogs/cities)"
      ),
      (
        "http://127.0.0.1:9/catalogs/shop", copy, 3,
        "cannot reach 127.0.0.1:9: nothing is listening there (connection refused)"
      ),
    ]
    for refusal in refusals {
      let run = try sift.run(["sync", refusal.url, "--catalog", refusal.local])
      #expect(run.status == refusal.status, "\(refusal.url)")
      #expect(run.stderr == "sift: \(refusal.message)\n")
      #expect(run.stdout.isEmpty)
    }
  }
}
#endif
