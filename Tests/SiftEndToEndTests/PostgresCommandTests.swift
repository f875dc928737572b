#if Server
import Foundation
import SiftTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `sift import` and `sift search` on `postgresql://` catalogs, against the tests' own cluster.
@Suite("sift on PostgreSQL", .serialized, .tags(.endToEnd, .postgres), .needs("psql", "tmux"))
struct PostgresCommandTests {
  static let cityArguments = ImportCommandTests.cityArguments + ["--rank-by", "population"]

  @Test("near a place, within a radius, by distance: PostgreSQL prints the .sqlite file's lines")
  func nearAgrees() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let sample = SiftProcess.fixtures.appendingPathComponent("cities-sample.jsonl").path
    let address = cluster.address(catalog: "e2e_near")
    let arguments = NearCommandTests.locatedArguments
    let imported = try sift.run(["import", sample, "--catalog", address] + arguments)
    #expect(imported.status == 0, "\(imported.stderr)")
    try sift.run(["import", sample, "--catalog", "cities.sqlite"] + arguments)
    let places = [["--near", "37.77,-122.42"], ["--near", "48.86,2.35", "--within", "300"]]
    let extras: [[String]] = [
      ["--json"], ["--limit", "5"], ["--json", "--explain", "--limit", "6"],
      ["--sort", "distance", "--limit", "5"],
      ["--sort", "distance:desc", "--json", "--limit", "3"],
      ["--facets", "--limit", "0"], ["--offset", "2", "--limit", "3"],
    ]
    for query in [["san"], ["s"], [], ["paris | lyon"], ["population:>100000"]] {
      for place in places {
        for extra in extras {
          let arguments = place + extra + ["--"] + query
          let sqlite = try sift.run(["search", "--catalog", "cities.sqlite"] + arguments)
          let postgres = try sift.run(["search", "--catalog", address] + arguments)
          #expect(postgres.status == 0, "\(arguments): \(postgres.stderr)")
          #expect(postgres.stdout == sqlite.stdout, "\(arguments)")
          #expect(postgres.stderr == sqlite.stderr, "\(arguments)")
        }
      }
    }
  }

  @Test("vectors in PostgreSQL: the same searches by meaning, line for line, as a .sqlite file")
  func meaningAgrees() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    var random = SplitMix64(seed: 72)
    let kinds = ["Fruit", "Nut", "Herb"]
    let words = ["red", "sweet", "wild", "apple", "pear", "mint", "fig", "walnut"]
    var lines: [String] = []
    for id in 1...200 {
      let title = (0..<2).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
      let vector = (0..<6).map { _ in
        String(Float(Int.random(in: -999...999, using: &random)) / 1000)
      }
      let emb = id % 9 == 0 ? "" : #", "emb": [\#(vector.joined(separator: ","))]"#
      lines.append(
        #"{"id": "\#(id)", "title": "\#(title)", "kind": "\#(kinds.randomElement(using: &random)!)"\#(emb)}"#
      )
    }
    let file = try sift.write("food.jsonl", lines.joined(separator: "\n") + "\n")
    let arguments = ["--title", "title", "--category", "kind", "--id", "id", "--vector", "emb"]
    let address = cluster.address(catalog: "e2e_meaning")
    let imported = try sift.run(["import", file, "--catalog", address] + arguments)
    #expect(imported.status == 0, "\(imported.stderr)")
    try sift.run(["import", file, "--catalog", "food.sqlite"] + arguments)
    let vector = try sift.write("q.json", "[0.5, -0.2, 0.1, 0.9, 0, -0.4]")
    for search in [
      ["--like", "5"], ["--like", "12", "--token", "category:Nut", "--neighbors", "7"],
      ["--vector", vector, "--json", "--explain", "--limit", "8"],
      ["--vector", vector, "--semantic-ratio", "0.7", "--neighbors", "10", "apple"],
      ["--like", "9"],
    ] {
      let sqlite = try sift.run(["search", "--catalog", "food.sqlite"] + search)
      let postgres = try sift.run(["search", "--catalog", address] + search)
      #expect(postgres.status == sqlite.status, "\(search): \(postgres.stderr)")
      #expect(postgres.stdout == sqlite.stdout, "\(search)")
      #expect(postgres.stderr == sqlite.stderr, "\(search)")
    }
    // The vectors are kept as bytes (4 a number), not in the fields' JSON.
    let schema = "sift_e2e_meaning"
    let kept = try cluster.psql(
      "SELECT count(*) FILTER (WHERE octet_length(vector) = 24), count(*) FILTER (WHERE fields ? 'emb'), count(*) FROM \(schema).items"
    )
    #expect(kept.trimmingCharacters(in: .whitespacesAndNewlines) == "178|0|200")
    // Imports into a catalog with items: a merged record's vector replaces the item's, one
    // without it (or with null) keeps it; a replaced record without it has none. Both catalogs
    // export the same lines after.
    let merged = try sift.write(
      "merged.jsonl",
      """
      {"id": "3", "emb": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]}
      {"id": "4", "emb": null}
      {"id": "5", "title": "wild fig"}
      {"id": "9", "emb": [-1, 0, 0, 0, 0, 1]}
      {"id": "201", "title": "new pear", "emb": [1, 1, 0, 0, 0, 0]}

      """)
    let replaced = try sift.write(
      "replaced.jsonl",
      """
      {"id": "6", "title": "plain apple", "kind": "Fruit"}
      {"id": "7", "title": "red mint", "kind": "Herb", "emb": [0, 0, 1, 0, 0, 0]}

      """)
    for (file, extra) in [(merged, ["--merge"]), (replaced, [])] {
      for catalog in [address, "food.sqlite"] {
        let run = try sift.run(["import", file, "--catalog", catalog] + extra)
        #expect(run.status == 0, "\(catalog) \(file): \(run.stderr)")
      }
    }
    let exports = try [address, "food.sqlite"].map {
      try sift.run(["export", "--catalog", $0]).stdout
    }
    // The items' lines (the first, the settings, names each catalog).
    #expect(
      exports[0].split(separator: "\n").dropFirst() == exports[1].split(separator: "\n").dropFirst()
    )
    #expect(exports[0].contains(#""id":"3""#) && exports[0].contains("[0.1,0.2,0.3,0.4,0.5,0.6]"))
    for search in [
      ["--like", "3"], ["--like", "5"], ["--like", "9"], ["--like", "201"], ["--like", "6"],
    ] {
      let sqlite = try sift.run(["search", "--catalog", "food.sqlite"] + search)
      let postgres = try sift.run(["search", "--catalog", address] + search)
      #expect(postgres.stdout == sqlite.stdout, "\(search)")
      #expect(postgres.stderr == sqlite.stderr, "\(search)")
    }
    let after = try cluster.psql(
      "SELECT string_agg(id || ':' || coalesce(octet_length(vector), 0) || ':' || (fields ? 'emb'), ' ' ORDER BY ord) FROM \(schema).items WHERE id IN ('3', '4', '5', '6', '7', '9', '201')"
    )
    #expect(
      after.trimmingCharacters(in: .whitespacesAndNewlines)
        == "3:24:false 4:24:false 5:24:false 6:0:false 7:24:false 9:24:false 201:24:false")
    // A record of another length fails the import at its line, the catalog as it was.
    let short = try sift.write("short.jsonl", #"{"id": "300", "title": "x", "emb": [1, 2]}"# + "\n")
    let refused = try sift.run(["import", short, "--catalog", address])
    #expect(refused.status == 1)
    #expect(
      refused.stderr.contains(
        "short.jsonl:1: field \"emb\" holds 2 numbers; this catalog's vectors hold 6"),
      "\(refused.stderr)")
  }

  @Test(
    "the cities imported into both give the searches of docs/command-line.md line for line, with --explain, --facets and --queries"
  )
  func citiesAgree() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let sample = SiftProcess.fixtures.appendingPathComponent("cities-sample.jsonl").path
    let address = cluster.address(catalog: "e2e_cities")
    let imported = try sift.run(["import", sample, "--catalog", address] + Self.cityArguments)
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(
      imported.stderr.contains("Imported 2,955 items")
        || imported.stderr.contains("Imported 2955 items"), "\(imported.stderr)")
    try sift.run(["import", sample, "--catalog", "cities.sqlite"] + Self.cityArguments)
    let queries: [[String]] = [
      ["da", "nang"], ["서울"], ["ㅅㅇ"], ["new", "york"], ["amsterdma"], ["san", "fe"],
      ["population:>1000000"], ["-a", "b"], ["\"los a\""], ["münchen"], ["toky"], ["s"],
      ["paris | lyon"], ["san", "jose", "OR", "diego"],
    ]
    let extras: [[String]] = [
      ["--json"], ["--json", "--limit", "3"], ["--json", "--typos", "off"],
      ["--json", "--token", "country:BR"], ["--json", "--explain", "--facets", "--limit", "5"],
      ["--explain", "--facets", "--limit", "4"], ["--facets", "--limit", "0"],
      ["--sort", "population:desc", "--limit", "5"], ["--sort", "name", "--json", "--limit", "4"],
      ["--sort", "name:desc", "--offset", "3", "--limit", "3"], ["--crop", "2", "--limit", "3"],
    ]
    for query in queries {
      for extra in extras {
        let sqlite = try sift.run(
          ["search", "--catalog", "cities.sqlite"] + extra + ["--"] + query)
        let postgres = try sift.run(["search", "--catalog", address] + extra + ["--"] + query)
        #expect(postgres.status == 0, "\(query): \(postgres.stderr)")
        #expect(postgres.stdout == sqlite.stdout, "\(query) \(extra)")
        #expect(postgres.stderr == sqlite.stderr, "\(query) \(extra)")
      }
    }
    // Both at once: each one's lines under its own heading, the same lines.
    let both = try sift.run([
      "search", "--catalog", "cities.sqlite", "--catalog", address, "da nang",
    ])
    let sections = both.stdout.components(separatedBy: "\n\n")
    #expect(sections.count == 2, "\(both.stdout)")
    #expect(
      sections.map { $0.split(separator: "\n").dropFirst().joined(separator: "\n") }
        .allSatisfy { $0 == sections[0].split(separator: "\n").dropFirst().joined(separator: "\n") }
    )
    // --queries: a line per query, the same on both.
    let file = try sift.write(
      "queries.txt", queries.map { $0.joined(separator: " ") }.joined(separator: "\n") + "\n")
    for extra in [["--json"], ["--limit", "3"], ["--token", "country:US", "--limit", "2"]] {
      let sqlite = try sift.run(
        ["search", "--catalog", "cities.sqlite", "--queries", file] + extra)
      let postgres = try sift.run(["search", "--catalog", address, "--queries", file] + extra)
      #expect(postgres.status == 0, "\(postgres.stderr)")
      #expect(postgres.stdout == sqlite.stdout, "--queries \(extra)")
      #expect(postgres.stdout.split(separator: "\n").count == queries.count)
    }
    // A later import with no flags, replacing one city and merging another, leaves the same
    // whole documents in both (kept fields included).
    let replace = try sift.write(
      "replace.jsonl", #"{"id": 1835848, "name": "Seoul", "timezone": "Asia/Seoul"}"# + "\n")
    let merge = try sift.write("merge.jsonl", #"{"id": 1583992, "timezone": "UTC+7"}"# + "\n")
    for catalog in [address, "cities.sqlite"] {
      #expect(try sift.run(["import", replace, "--catalog", catalog]).status == 0)
      let merged = try sift.run(["import", merge, "--catalog", catalog, "--merge"])
      #expect(merged.status == 0, "\(merged.stderr)")
    }
    for query in [["seoul"], ["da", "nang"]] {
      let sqlite = try sift.run(["search", "--catalog", "cities.sqlite", "--json", "--"] + query)
      let postgres = try sift.run(["search", "--catalog", address, "--json", "--"] + query)
      #expect(postgres.stdout == sqlite.stdout, "\(query)")
      #expect(sqlite.stdout.contains(#""timezone":"UTC+7""#) || query == ["seoul"])
    }
  }

  @Test("synonyms on a PostgreSQL catalog: the same commands, the same searches as a .sqlite file")
  func synonymsAgree() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let sample = SiftProcess.fixtures.appendingPathComponent("cities-sample.jsonl").path
    let address = cluster.address(catalog: "e2e_synonyms")
    for catalog in [address, "cities.sqlite"] {
      let imported = try sift.run(["import", sample, "--catalog", catalog] + Self.cityArguments)
      #expect(imported.status == 0, "\(imported.stderr)")
      let added = try sift.run(["synonyms", "add", "--catalog", catalog, "ny", "new york"])
      #expect(added.stdout == "added: ny = new york\n", "\(added.stderr)")
      let oneWay = try sift.run([
        "synonyms", "add", "--catalog", catalog, "pearl", "--to", "ho chi minh",
      ])
      #expect(oneWay.status == 0, "\(oneWay.stderr)")
    }
    #expect(
      try sift.run(["synonyms", "list", "--catalog", address]).stdout
        == "ny = new york\npearl → ho chi minh\n")
    for query in [["ny"], ["new", "york"], ["pearl"], ["ho", "chi", "minh"], ["pearl | berlin"]] {
      for extra in [["--explain", "--limit", "5"], ["--json", "--facets", "--limit", "3"]] {
        let sqlite = try sift.run(["search", "--catalog", "cities.sqlite"] + extra + query)
        let postgres = try sift.run(["search", "--catalog", address] + extra + query)
        #expect(postgres.status == 0, "\(query): \(postgres.stderr)")
        #expect(postgres.stdout == sqlite.stdout, "\(query) \(extra)")
        #expect(postgres.stderr == sqlite.stderr, "\(query) \(extra)")
      }
    }
    let hcmc = try sift.run(["search", "--catalog", address, "--explain", "pearl"])
    #expect(hcmc.stdout.hasPrefix("Ho Chi Minh City"), "\(hcmc.stdout)")
    #expect(hcmc.stdout.contains("via synonym pearl → ho chi minh"), "\(hcmc.stdout)")
    let removed = try sift.run(["synonyms", "remove", "--catalog", address, "Ho Chi Minh"])
    #expect(removed.stdout == "removed: pearl → ho chi minh\n")
    #expect(try sift.run(["search", "--catalog", address, "--typos", "off", "pearl"]).stdout == "")
    // Pins: the same commands, the same rows, kept in the catalog.
    let paris = try sift.run(["search", "--catalog", address, "--json", "--limit", "1", "paris"])
    let first = try #require(idText(paris.objects.first?["id"]))
    for catalog in [address, "cities.sqlite"] {
      let pinned = try sift.run(["pins", "add", "--catalog", catalog, "Paris", "12", "--at", "1"])
      #expect(pinned.stdout == "pinned: Paris → 12 at 1\n", "\(pinned.stderr)")
      _ = try sift.run(["pins", "hide", "--catalog", catalog, "paris", first])
    }
    #expect(
      try sift.run(["pins", "list", "--catalog", address]).stdout
        == "Paris → 12 at 1\nparis: \(first) hidden\n")
    let sqlite = try sift.run(["search", "--catalog", "cities.sqlite", "--explain", "paris"])
    let postgres = try sift.run(["search", "--catalog", address, "--explain", "paris"])
    #expect(postgres.stdout == sqlite.stdout)
    #expect(postgres.stdout.hasPrefix("Takht-e Qeyşar"), "\(postgres.stdout.prefix(200))")
    #expect(!postgres.stdout.contains("\"id\":\"\(first)\""))
  }

  @Test(
    "sift export of a PostgreSQL catalog: the .sqlite file's items; imported into PostgreSQL with no option, the same searches"
  )
  func exportAgrees() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let sample = SiftProcess.fixtures.appendingPathComponent("cities-sample.jsonl").path
    let address = cluster.address(catalog: "e2e_export")
    for catalog in [address, "cities.sqlite"] {
      let imported = try sift.run(["import", sample, "--catalog", catalog] + Self.cityArguments)
      #expect(imported.status == 0, "\(imported.stderr)")
      _ = try sift.run(["synonyms", "add", "--catalog", catalog, "ny", "new york"])
    }
    let fromPostgres = try sift.run(["export", "--catalog", address])
    let fromFile = try sift.run(["export", "--catalog", "cities.sqlite"])
    #expect(fromPostgres.status == 0, "\(fromPostgres.stderr)")
    #expect(fromPostgres.lines.count == 2956)
    #expect(Array(fromPostgres.lines.dropFirst()) == Array(fromFile.lines.dropFirst()))
    let file = try sift.write("export.jsonl", fromPostgres.stdout)
    let copy = cluster.address(catalog: "e2e_export_copy")
    let imported = try sift.run(["import", file, "--catalog", copy])
    #expect(imported.status == 0, "\(imported.stderr)")
    // As CSV, its settings beside, into another PostgreSQL catalog with --settings.
    let csv = try sift.run([
      "export", "--catalog", address, "--format", "csv", "--output", sift.path("e.csv"),
    ])
    #expect(csv.status == 0, "\(csv.stderr)")
    let fromCSV = cluster.address(catalog: "e2e_export_csv")
    let csvImported = try sift.run([
      "import", sift.path("e.csv"), "--catalog", fromCSV, "--settings",
      sift.path("e.settings.json"),
    ])
    #expect(csvImported.status == 0, "\(csvImported.stderr)")
    for query in [["ny"], ["đà", "nẵng"], ["san"], ["population:>=5000000"]] {
      let original = try sift.run(["search", "--catalog", address, "--json"] + query)
      for copy in [copy, fromCSV] {
        let copied = try sift.run(["search", "--catalog", copy, "--json"] + query)
        #expect(copied.stdout == original.stdout && !original.lines.isEmpty, "\(query) \(copy)")
      }
    }
  }

  @Test("a bad line fails the import with FILE:LINE and leaves the catalog as it was")
  func badImportKeepsCatalog() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let address = cluster.address(catalog: "e2e_keep")
    let good = try sift.write(
      "good.jsonl", "{\"id\":\"1\",\"name\":\"Lisbon\"}\n{\"id\":\"2\",\"name\":\"Porto\"}\n")
    #expect(
      try sift.run(["import", good, "--catalog", address, "--title", "name", "--id", "id"]).status
        == 0)
    let bad = try sift.write(
      "bad.jsonl", "{\"id\":\"3\",\"name\":\"Braga\"}\n{\"id\":\"4\",\"name\":7}\n")
    let failed = try sift.run([
      "import", bad, "--catalog", address, "--title", "name", "--id", "id",
    ])
    #expect(failed.status == 1)
    #expect(failed.stderr.contains("bad.jsonl:2:"), "\(failed.stderr)")
    let after = try sift.run(["search", "--catalog", address, "--json"])
    #expect(after.titles == ["Lisbon", "Porto"], "\(after.stdout)")
    // A second good import updates by id and adds.
    let more = try sift.write(
      "more.jsonl", "{\"id\":\"2\",\"name\":\"Oporto\"}\n{\"id\":\"5\",\"name\":\"Faro\"}\n")
    #expect(
      try sift.run(["import", more, "--catalog", address, "--title", "name", "--id", "id"]).status
        == 0)
    let updated = try sift.run(["search", "--catalog", address, "--json"])
    #expect(updated.titles == ["Lisbon", "Oporto", "Faro"])
  }

  /// Records for a file of several batches (the reader's are 4 MB): names from a few syllables,
  /// a number, and a stored field that is sometimes a number and sometimes text.
  ///   - mergingBelow: ids below it, every other one, get a record of the stored field alone.
  static func manyRecords(
    _ ids: Range<Int>, _ random: inout SplitMix64, mergingBelow: Int = 0
  ) -> String {
    let syllables = ["san", "ta", "mo", "ri", "ka", "lo", "ve", "ni", "da", "nang", "ho", "chi"]
    func name() -> String {
      (0..<Int.random(in: 2...5, using: &random)).map { _ in
        syllables.randomElement(using: &random)!
      }.joined()
    }
    return ids.map { id in
      let note =
        Int.random(in: 0..<50, using: &random) == 0
        ? #""text \#(id)""# : "\(Int.random(in: 0...99, using: &random))"
      let padding = String(repeating: "x", count: Int.random(in: 200...300, using: &random))
      if id < mergingBelow, id % 2 == 0 { return #"{"id": "\#(id)", "note": \#(note)}"# }
      return
        #"{"id": "\#(id)", "name": "\#(name()) \#(name())", "pop": \#(id % 997), "note": \#(note), "pad": "\#(padding)"}"#
    }.joined(separator: "\n") + "\n"
  }

  @Test(
    "an import of many batches into PostgreSQL, a merge over it and a bad last line: the same catalog as a .sqlite file's, the bad import changing nothing"
  )
  func batchedImportAgrees() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let seed: UInt64 = 20_261_127
    print("batched PostgreSQL import seed \(seed)")
    var random = SplitMix64(seed: seed)
    let address = cluster.address(catalog: "e2e_batched")
    let first = try sift.write("first.jsonl", Self.manyRecords(0..<24_000, &random))
    // The reader's batches are 4 MB: the file is read in two or more.
    #expect(try FileManager.default.attributesOfItem(atPath: first)[.size] as! Int > 6 << 20)
    // Ids 18,000 to 30,000: updated (every other one merged, keeping its name) and added.
    let merge = try sift.write(
      "merge.jsonl", Self.manyRecords(18_000..<30_000, &random, mergingBelow: 24_000))
    let bad = try sift.write(
      "bad.jsonl",
      Self.manyRecords(30_000..<54_000, &random) + #"{"id": "x", "name": 7}"# + "\n")
    let flags = ["--title", "name", "--number", "pop", "--id", "id", "--rank-by", "pop"]
    func same(_ step: String) throws {
      for query in [["--limit", "40"], ["san", "ta"], ["nang", "--sort", "pop"], ["chiho"]] {
        let sqlite = try sift.run(["search", "--catalog", "b.sqlite", "--json"] + query)
        let postgres = try sift.run(["search", "--catalog", address, "--json"] + query)
        #expect(postgres.status == 0, "\(step) \(query): \(postgres.stderr)")
        #expect(postgres.stdout == sqlite.stdout, "\(step) \(query)")
        #expect(postgres.stderr == sqlite.stderr, "\(step) \(query)")
      }
    }
    for catalog in ["b.sqlite", address] {
      let imported = try sift.run(["import", first, "--catalog", catalog] + flags)
      #expect(imported.status == 0, "\(imported.stderr)")
      #expect(imported.stderr.contains("(24000 added, 0 updated)"), "\(imported.stderr)")
      #expect(imported.stderr.contains("Kept, not searched: note, pad"), "\(imported.stderr)")
    }
    try same("first")
    for catalog in ["b.sqlite", address] {
      let merged = try sift.run(["import", merge, "--catalog", catalog, "--merge"])
      #expect(merged.stderr.contains("(6000 added, 6000 updated)"), "\(merged.stderr)")
    }
    try same("merged")
    let before = try sift.run(["search", "--catalog", address, "--json", "--limit", "0"])
    for catalog in ["b.sqlite", address] {
      let failed = try sift.run(["import", bad, "--catalog", catalog])
      #expect(failed.status == 1)
      #expect(
        failed.stderr.contains("bad.jsonl:24001: title field \"name\" must be a string"),
        "\(failed.stderr)")
    }
    #expect(
      try sift.run(["search", "--catalog", address, "--json", "--limit", "0"]).stderr
        == before.stderr)
    try same("after the bad import")
  }

  @Test("kill -9 in the middle of an import's transaction leaves the old catalog, unlocked")
  func killedImport() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let address = cluster.address(catalog: "e2e_killed")
    let good = try sift.write(
      "good.jsonl", "{\"id\":\"1\",\"name\":\"Lisbon\"}\n{\"id\":\"2\",\"name\":\"Porto\"}\n")
    #expect(
      try sift.run(["import", good, "--catalog", address, "--title", "name", "--id", "id"]).status
        == 0)
    // Large enough that writing it to PostgreSQL takes a while.
    let lines = (0..<120_000).map { "{\"id\":\"n\($0)\",\"name\":\"Town \($0) of Somewhere\"}" }
    let big = try sift.write("big.jsonl", lines.joined(separator: "\n") + "\n")
    let process = Process()
    process.executableURL = SiftProcess.binary
    process.arguments = ["import", big, "--catalog", address, "--title", "name", "--id", "id"]
    process.currentDirectoryURL = sift.folder
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    // The import's transaction holds the catalog's advisory lock: kill it then.
    let deadline = Date().addingTimeInterval(120)
    var inTransaction = false
    while Date() < deadline, process.isRunning, !inTransaction {
      inTransaction =
        try cluster.psql(
          "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = (hashtext('sift_e2e_killed')::bigint & 4294967295)::text::oid"
        )
        .trimmingCharacters(in: .whitespacesAndNewlines) != "0"
      if !inTransaction { Thread.sleep(forTimeInterval: 0.02) }
    }
    #expect(inTransaction, "the import never reached its transaction (or ended first)")
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal)
    let after = try sift.run(["search", "--catalog", address, "--json"])
    #expect(after.titles == ["Lisbon", "Porto"], "\(after.stderr)")
    // The server let the lock go with the connection: the next import goes through.
    let more = try sift.write("more.jsonl", "{\"id\":\"3\",\"name\":\"Faro\"}\n")
    let next = try sift.run(["import", more, "--catalog", address, "--title", "name", "--id", "id"])
    #expect(next.status == 0, "\(next.stderr)")
    #expect(
      try sift.run(["search", "--catalog", address, "--json"]).titles == [
        "Lisbon", "Porto", "Faro",
      ])
  }

  @Test("a catalog of a newer format, a missing catalog and a bad address are refused by name")
  func refusals() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let address = cluster.address(catalog: "e2e_newer")
    let file = try sift.write("one.jsonl", "{\"id\":\"1\",\"name\":\"Lisbon\"}\n")
    #expect(try sift.run(["import", file, "--catalog", address, "--title", "name"]).status == 0)
    try cluster.psql("UPDATE sift_e2e_newer.catalog SET format = 99")
    let newer = try sift.run(["search", "--catalog", address, "lis"])
    #expect(newer.status == 2)
    #expect(newer.stderr.contains("has format 99, written by a newer Sift"), "\(newer.stderr)")
    let again = try sift.run(["import", file, "--catalog", address, "--title", "name"])
    #expect(again.status != 0 && again.stderr.contains("format 99"), "\(again.stderr)")

    let missing = try sift.run([
      "search", "--catalog", cluster.address(catalog: "nothing_here"), "x",
    ])
    #expect(missing.status == 2 && missing.stderr.contains("no catalog at"), "\(missing.stderr)")
    let noName = try sift.run([
      "search", "--catalog", "postgresql://127.0.0.1:\(cluster.port)/postgres", "x",
    ])
    #expect(noName.status == 2 && noName.stderr.contains("?catalog=NAME"), "\(noName.stderr)")
    let down = try sift.run([
      "search", "--catalog", "postgresql://postgres@127.0.0.1:1/postgres?catalog=x", "x",
    ])
    #expect(down.status == 1 && down.stderr.contains("cannot reach PostgreSQL"), "\(down.stderr)")
  }
}

/// `sift serve` on a catalog in PostgreSQL — several servers on one database, the database going
/// away under a running server — and the terminal app and `sift bench` on one.
@Suite(
  "sift serve, the terminal app and sift bench on PostgreSQL", .serialized,
  .tags(.endToEnd, .postgres), .needs("psql", "tmux"))
struct PostgresServeTests {
  static let flowers = """
    {"id":"1","name":"Red Rose","color":"red"}
    {"id":"2","name":"White Rose","color":"white"}
    {"id":"7","name":"Tulip","color":"yellow"}

    """

  static func titles(_ json: [String: Any]) -> [String] {
    (json["results"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
  }

  @Test("two nodes on one catalog: an edit on one is searched on the other with after=VERSION")
  func twoServers() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let address = cluster.address(catalog: "e2e_two_servers")
    let file = try sift.write("flowers.jsonl", Self.flowers)
    let imported = try sift.run([
      "import", file, "--catalog", address, "--title", "name", "--text", "color", "--id", "id",
    ])
    #expect(imported.status == 0, "\(imported.stderr)")
    let token = try sift.write("token", "secret\n")
    // Each node keeps its local copy in a folder of its own.
    let first = try ServeCommandTests.Server(
      sift, ["--catalog", address, "--token-file", token, "--cache", sift.path("cache1")])
    defer { _ = first.stop() }
    let second = try ServeCommandTests.Server(
      sift, ["--catalog", address, "--token-file", token, "--cache", sift.path("cache2")])
    defer { _ = second.stop() }
    let search = "/catalogs/e2e_two_servers/search?q="
    #expect(
      Self.titles(try second.request("GET", search + "rose").json) == ["Red Rose", "White Rose"])
    // Added on the first, found by the second at the add's version; without an id it gets the
    // next number.
    let added = try first.request(
      "POST", "/catalogs/e2e_two_servers/items",
      body: #"{"name": "Orange Rose", "color": "orange"}"#,
      token: "secret")
    #expect(added.status == 201, "\(added.json)")
    #expect(idText(added.json["id"]) == "8")
    let addedAt = try #require(added.json["version"] as? Int)
    #expect(
      Self.titles(try second.request("GET", search + "rose&after=\(addedAt)").json)
        == ["Red Rose", "White Rose", "Orange Rose"])
    // Changed on the second, read back from the first.
    let changed = try second.request(
      "PUT", "/catalogs/e2e_two_servers/items/8",
      body: #"{"name": "Peach Rose", "color": "peach"}"#,
      token: "secret")
    #expect(changed.status == 200, "\(changed.json)")
    let changedAt = try #require(changed.json["version"] as? Int)
    #expect(changedAt == addedAt + 1)
    #expect(
      Self.titles(try first.request("GET", search + "peach&after=\(changedAt)").json)
        == ["Peach Rose"])
    #expect(
      try first.request("GET", "/catalogs/e2e_two_servers/items/8").json["title"] as? String
        == "Peach Rose")
    // An id taken on one server is refused by the other; a delete on one empties the other.
    #expect(
      try second.request(
        "POST", "/catalogs/e2e_two_servers/items", body: #"{"id": "8", "name": "Again"}"#,
        token: "secret"
      ).status == 409)
    #expect(
      try first.request("DELETE", "/catalogs/e2e_two_servers/items/8", token: "secret").status
        == 204)
    #expect(
      Self.titles(try second.request("GET", search + "peach&after=\(changedAt + 1)").json) == [])
    // A version no node has reached yet is waited for, then refused by name.
    let ahead = try second.request("GET", search + "peach&after=\(changedAt + 50)")
    #expect(ahead.status == 503)
    #expect(
      ahead.json["error"] as? String
        == "after: catalog e2e_two_servers is at version \(changedAt + 1), not yet \(changedAt + 50)"
    )
    #expect(
      try second.request("DELETE", "/catalogs/e2e_two_servers/items/8", token: "secret").status
        == 404)
    // A value no catalog can hold is the request's fault, named before anything is written.
    let nul = try first.request(
      "POST", "/catalogs/e2e_two_servers/items", body: #"{"name": "Lis\u0000bon"}"#,
      token: "secret")
    #expect(nul.status == 400, "\(nul.json)")
    #expect(
      nul.json["error"] as? String == "name: a NUL character (U+0000), which a catalog cannot store"
    )
    let listed = try second.request("GET", "/catalogs").json["catalogs"] as? [[String: Any]]
    #expect(listed?.first?["items"] as? Int == 3)
    #expect(listed?.first?["version"] as? Int == changedAt + 1)
    // And the command line reads what the servers wrote.
    let cli = try sift.run(["search", "--catalog", address, "--json", "rose"])
    #expect(cli.titles == ["Red Rose", "White Rose"])
  }

  @Test(
    "the database frozen, then stopped: searches answer from memory, edits 503 with the cause; back, edits resume"
  )
  func databaseRestart() throws {
    let cluster = try PostgresCluster.own()
    defer { cluster.remove() }
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let address = cluster.address(catalog: "e2e_restart")
    let file = try sift.write("flowers.jsonl", Self.flowers)
    #expect(
      try sift.run(["import", file, "--catalog", address, "--title", "name", "--id", "id"])
        .status == 0)
    let token = try sift.write("token", "secret\n")
    let server = try ServeCommandTests.Server(
      sift,
      [
        "--catalog", address, "--token-file", token, "--request-timeout", "2", "--cache",
        sift.path("c1"),
      ])
    let search = "/catalogs/e2e_restart/search?q=rose"
    let before = try server.request("GET", search)
    #expect(before.status == 200)
    #expect(try server.request("GET", "/health").json["status"] as? String == "ok")
    // A second node, to stop while the database is frozen.
    let second = try ServeCommandTests.Server(
      sift,
      [
        "--catalog", address, "--token-file", token, "--request-timeout", "2", "--cache",
        sift.path("c2"),
      ])
    #expect(try second.request("GET", search).status == 200)
    // A database that stops answering without closing its connections: an edit is answered at
    // the deadline, saying it may have been saved; searches go on from memory.
    cluster.pause()
    let started = Date()
    let frozen = try server.request(
      "POST", "/catalogs/e2e_restart/items", body: #"{"name": "Frozen Rose"}"#, token: "secret")
    #expect(frozen.status == 503, "\(frozen.json)")
    #expect(
      frozen.json["error"] as? String
        == "the edit took longer than 2 s (--request-timeout): it may have been saved; read the item to know"
    )
    #expect(Date().timeIntervalSince(started) < 30, "answered at the deadline, not minutes later")
    let searched = try server.request("GET", search)
    #expect(searched.status == 200)
    #expect(Self.titles(searched.json) == Self.titles(before.json))
    #expect(try server.request("GET", "/health").status == 200)
    // SIGTERM while the database is frozen: the node still exits, at once, not minutes later.
    let stopping = Date()
    let (stopStatus, stopErrors) = second.stop()
    #expect(stopStatus == 0, "\(stopErrors)")
    #expect(Date().timeIntervalSince(stopping) < 10, "SIGTERM with the database frozen")
    cluster.resume()
    cluster.stop()
    let down = try server.request("GET", search)
    #expect(down.status == 200, "\(down.json)")
    // "Frozen Rose" may have been saved once the database thawed (it was answered at the
    // deadline): either way is right.
    #expect(Self.titles(down.json).filter { $0 != "Frozen Rose" } == ["Red Rose", "White Rose"])
    #expect(try server.request("GET", "/catalogs/e2e_restart/items/1").status == 200)
    let edit = try server.request(
      "POST", "/catalogs/e2e_restart/items", body: #"{"name": "Lost Rose"}"#, token: "secret")
    #expect(edit.status == 503, "\(edit.json)")
    let message = edit.json["error"] as? String ?? ""
    #expect(message.hasPrefix("the edit was not saved: cannot reach PostgreSQL at"), "\(message)")
    try cluster.start()
    // The first edit after the restart may find its connection gone; then one is saved.
    var added: (status: Int, json: [String: Any]) = (0, [:])
    for _ in 0..<20 {
      added = try server.request(
        "POST", "/catalogs/e2e_restart/items", body: #"{"name": "Found Rose"}"#, token: "secret")
      if added.status == 201 { break }
      Thread.sleep(forTimeInterval: 0.25)
    }
    #expect(added.status == 201, "\(added.json)")
    let after = try server.request("GET", search)
    #expect(after.status == 200, "\(after.json)")
    // "Frozen Rose" may have been saved (it was answered at the deadline): either way is right.
    #expect(
      Self.titles(after.json).filter { $0 != "Frozen Rose" } == [
        "Red Rose", "White Rose", "Found Rose",
      ])
    let (status, stderr) = server.stop()
    #expect(status == 0, "\(stderr)")
  }

  @Test("the terminal app on a PostgreSQL catalog: searches, and its edits reach the database")
  func terminalApp() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let address = cluster.address(catalog: "e2e_app")
    let file = try sift.write("flowers.jsonl", Self.flowers)
    #expect(
      try sift.run(["import", file, "--catalog", address, "--title", "name", "--id", "id"])
        .status == 0)
    let tmux = try TerminalAppTests.Tmux(sift)
    tmux.launch("--catalog '\(address)'")
    tmux.wait(for: "3 items")
    tmux.keys("r o s")
    var screen = tmux.wait(for: "Items found: 2")
    #expect(screen.contains("Red Rose") && screen.contains("White Rose"))
    tmux.keys("C-n")
    tmux.wait(for: "New Item")
    tmux.keys("R o s e m a r y Enter")
    screen = tmux.wait(for: "Added “Rosemary”")
    // In the database at once, numbered after the largest id.
    let added = try sift.run(["search", "--catalog", address, "--json", "rosemary"])
    #expect(idText(added.objects.first?["id"]) == "8", "\(added.stdout)")
    // Another writer took the next number meanwhile: the app's next add skips it.
    try cluster.psql(
      "INSERT INTO sift_e2e_app.items (id, ord, fields) VALUES ('9', 100, '{\"name\": \"X\"}')"
    )
    tmux.keys("C-n")
    tmux.wait(for: "New Item")
    tmux.keys("R o s e h i p Enter")
    tmux.wait(for: "Added “Rosehip”")
    tmux.keys("C-q")
    screen = tmux.wait(for: "EXIT=0")
    #expect(!screen.contains("Rosemary"), "the alternate screen is gone")
    let after = try sift.run(["search", "--catalog", address, "--json", "rose"])
    #expect(after.titles.sorted() == ["Red Rose", "Rosehip", "Rosemary", "White Rose"])
    #expect(
      idText(after.objects.first { $0["title"] as? String == "Rosehip" }?["id"]) == "10")
  }

  @Test("sift bench types its queries into a PostgreSQL catalog, a search a keystroke")
  func bench() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let address = cluster.address(catalog: "e2e_bench")
    let file = try sift.write("flowers.jsonl", Self.flowers)
    #expect(
      try sift.run(["import", file, "--catalog", address, "--title", "name", "--id", "id"])
        .status == 0)
    let queries = try sift.write("queries.txt", "rose\ntulpi\n")
    let run = try sift.run([
      "bench", "--catalog", address, "--queries", queries, "--json", "--facets",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let json = run.objects.first ?? [:]
    #expect(json["keystrokes"] as? Int == 9)
    #expect(json["items"] as? Int == 3)
    #expect((json["p50_ms"] as? Double ?? 0) > 0)
    // "tulp" and "tulpi" find nothing exactly and Tulip within one edit: the same keystrokes
    // as on the engine.
    #expect(json["near_spelling_keystrokes"] as? Int == 2, "\(json)")
    #expect(
      try sift.run(["import", file, "--catalog", "flowers.sqlite", "--title", "name", "--id", "id"])
        .status == 0)
    let embedded = try sift.run([
      "bench", "--catalog", "flowers.sqlite", "--queries", queries, "--json",
    ])
    #expect(embedded.objects.first?["near_spelling_keystrokes"] as? Int == 2, "\(embedded.stdout)")
  }
}
#endif
