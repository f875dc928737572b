#if Server
import Foundation
import Sift
import SiftTestSupport
import Testing

/// "Kept as it came": random records whose fields no flag names hold every kind of JSON value —
/// booleans, null, numbers, lists of numbers and of objects, objects, empty strings, texts that
/// look like numbers or lists — and ids given as numbers or strings. Each record must come back
/// the same JSON (member order aside) through every door: `sift search --json`, the HTTP API's
/// search and item, `sift export` as JSON Lines and as CSV and an import of either, and
/// `sift sync` of a served copy, exported.
@Suite("Kept fields come back as they came, through every door", .serialized, .tags(.endToEnd))
struct KeptValuesTests {
  static let admin = "kept-values-admin-token"

  /// Random records: `sku` a number or a string, a title, and up to four kept fields.
  static func records(count: Int, seed: UInt64) -> [JSONValue] {
    var random = SplitMix64(seed: seed)
    return (0..<count).map { index in
      let id: JSONValue =
        Bool.random(using: &random) ? .number(Double(index + 1)) : .string("k\(index + 1)")
      var members: [(String, JSONValue)] = [("sku", id), ("title", .string("Item \(index)"))]
      for name in ["in_stock", "note", "sizes", "dims"] where Bool.random(using: &random) {
        members.append((name, RandomJSON.value(&random)))
      }
      return .object(members)
    }
  }

  /// What search answers for `record`: its id as `"id"`, as it came, and every other field.
  static func expected(_ record: JSONValue) -> String {
    guard case .object(let members) = record else { return "" }
    return RandomJSON.canonical(
      .object(members.map { $0.0 == "sku" ? ("id", $0.1) : $0 }))
  }

  /// Canonical texts of JSON lines, without the members `dropping` names.
  static func canonical(_ lines: [String], dropping: Set<String> = []) -> [String] {
    lines.map { line in
      guard case .object(let members)? = try? JSONValue.parse(Data(line.utf8)) else {
        return "not an object: \(line)"
      }
      return RandomJSON.canonical(.object(members.filter { !dropping.contains($0.0) }))
    }
  }

  @Test("a list is a category: each value counts, a token or scope of any keeps the item")
  func listCategories() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let films = [
      #"{"id":1,"title":"Heat","genres":["Action","Crime","Drama"],"votes":5}"#,
      #"{"id":2,"title":"Toy Story","genres":["Animation","Children","Comedy"],"votes":9}"#,
      #"{"id":3,"title":"War of the Worlds","genres":"Action","votes":3}"#,
      #"{"id":4,"title":"Fargo","genres":["Comedy","Crime","Drama"],"votes":7}"#,
      #"{"id":5,"title":"Nothing at all","votes":1}"#,
    ]
    let file = try sift.write("films.jsonl", films.joined(separator: "\n") + "\n")
    let imported = try sift.run([
      "import", file, "--catalog", "films.sqlite", "--title", "title", "--category", "genres",
      "--number", "votes", "--rank-by", "votes", "--id", "id",
    ])
    try #require(imported.status == 0, "\(imported.stderr)")
    let crime = try sift.run([
      "search", "--catalog", "films.sqlite", "--token", "category:crime", "--facets",
    ])
    #expect(crime.stdout.hasPrefix("Fargo  —  Votes: 7 · Genres: Comedy, Crime, Drama\nHeat  —"))
    #expect(crime.stdout.contains("Categories: Crime 2 · Drama 2 · Action 1 · Comedy 1"))
    let comedy = try sift.run([
      "search", "--catalog", "films.sqlite", "--scope", "Comedy", "--json",
    ])
    #expect(comedy.titles == ["Toy Story", "Fargo"])
    let values = try sift.run(["facets", "--catalog", "films.sqlite"])
    #expect(values.stdout.hasPrefix("Action     2\nComedy     2\nCrime      2\nDrama      2\n"))
    // An import's category is text too, the weakest: any value of the list finds the film.
    let searched = try sift.run(["search", "--catalog", "films.sqlite", "crime", "--json"])
    #expect(searched.titles == ["Fargo", "Heat"])
    let unsearched = try sift.run([
      "import", file, "--catalog", "films.sqlite", "--no-search-category",
    ])
    try #require(unsearched.status == 0, "\(unsearched.stderr)")
    let filtered = try sift.run(["search", "--catalog", "films.sqlite", "crime", "--json"])
    #expect(filtered.titles == [])

    let token = try sift.write("admin.key", Self.admin)
    let server = try ServeCommandTests.Server(
      sift, ["--catalog", sift.path("films.sqlite"), "--token-file", token])
    defer { _ = server.stop() }
    let added = try server.request(
      "POST", "/catalogs/films/items",
      body: #"{"id": 6, "title": "Alien", "genres": ["Horror", "Sci-Fi"], "votes": 8}"#,
      token: Self.admin)
    #expect(added.status == 201, "\(added.json)")
    let horror = try server.request("GET", "/catalogs/films/search?token=category:Sci-Fi")
    #expect(ServeCommandTests.ids(horror.json) == ["6"])
    // A page puts the values that matched first.
    let genres = (horror.json["results"] as? [[String: Any]])?.first?["genres"] as? [String]
    #expect(genres.map(Set.init) == ["Horror", "Sci-Fi"])
    let refused = try server.request(
      "POST", "/catalogs/films/items", body: #"{"title": "X", "genres": ["Horror", 1]}"#,
      token: Self.admin)
    #expect(refused.status == 400)
    #expect(refused.json["error"] as? String == "genres: expected a string or a list of strings")
  }

  @Test("search, the API, export and import (JSON Lines and CSV), and sync", arguments: [71, 72])
  func everyDoor(seed: UInt64) throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let records = Self.records(count: 60, seed: seed)
    let file = try sift.write(
      "kept.jsonl", records.map(\.text).joined(separator: "\n") + "\n")
    let imported = try sift.run([
      "import", file, "--catalog", "kept.sqlite", "--title", "title", "--id", "sku",
    ])
    try #require(imported.status == 0, "\(imported.stderr)")
    let expected = records.map(Self.expected)
    let recordTexts = records.map(RandomJSON.canonical)

    // sift search --json, every item in catalog order.
    let searched = try sift.run(["search", "--catalog", "kept.sqlite", "--json"])
    #expect(Self.canonical(searched.lines) == expected)

    // sift export as JSON Lines: the records themselves; imported again, the same.
    let exported = try sift.run(["export", "--catalog", "kept.sqlite"])
    #expect(Self.canonical(Array(exported.lines.dropFirst())) == recordTexts)
    let exportFile = try sift.write("export.jsonl", exported.stdout)
    let again = try sift.run(["import", exportFile, "--catalog", "again.sqlite"])
    try #require(again.status == 0, "\(again.stderr)")
    let reexported = try sift.run(["export", "--catalog", "again.sqlite"])
    #expect(Self.canonical(Array(reexported.lines.dropFirst())) == recordTexts)

    // As CSV with its settings, imported again, the same.
    let csv = try sift.run([
      "export", "--catalog", "kept.sqlite", "--format", "csv", "--output", sift.path("kept.csv"),
    ])
    try #require(csv.status == 0, "\(csv.stderr)")
    let fromCSV = try sift.run([
      "import", sift.path("kept.csv"), "--catalog", "csv.sqlite", "--settings",
      sift.path("kept.settings.json"),
    ])
    try #require(fromCSV.status == 0, "\(fromCSV.stderr)")
    let csvExported = try sift.run(["export", "--catalog", "csv.sqlite"])
    #expect(Self.canonical(Array(csvExported.lines.dropFirst())) == recordTexts)

    // The HTTP API: a search and each item, then a copy that follows the server.
    let token = try sift.write("admin.key", Self.admin)
    let server = try ServeCommandTests.Server(
      sift, ["--catalog", sift.path("kept.sqlite"), "--token-file", token])
    defer { _ = server.stop() }
    let (status, body) = try Host.request(
      "GET", URL(string: "http://127.0.0.1:\(server.port)/catalogs/kept/search?limit=1000")!)
    #expect(status == 200)
    guard case .object(let answer)? = try? JSONValue.parse(body),
      case .array(let results)? = answer.first(where: { $0.0 == "results" })?.1
    else {
      Issue.record("the search answered \(String(decoding: body, as: UTF8.self))")
      return
    }
    // A page holds the first values of a long list and counts the rest under "more" (a page
    // costs a page): those fields are compared through the item's own door below.
    for (result, expectedText) in zip(results, expected) {
      guard case .object(let members) = result else { continue }
      var cut: Set<String> = ["highlights", "more"]
      if case .object(let more)? = members.first(where: { $0.0 == "more" })?.1 {
        cut.formUnion(more.map(\.0))
      }
      let expectedMembers = Self.canonical([expectedText], dropping: cut)
      #expect(Self.canonical([result.text], dropping: cut) == expectedMembers)
    }
    #expect(results.count == expected.count)
    for (record, expectedText) in zip(records, expected) {
      guard case .object(let members) = record, let id = members.first?.1 else { continue }
      let path = "/catalogs/kept/items/" + (id.text.trimmingCharacters(in: ["\""]))
      let (itemStatus, item) = try Host.request(
        "GET", URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
      #expect(itemStatus == 200)
      #expect(
        Self.canonical([String(decoding: item, as: UTF8.self)], dropping: ["highlights"])
          == [expectedText])
    }
    let synced = try sift.run([
      "sync", "http://127.0.0.1:\(server.port)/catalogs/kept", "--catalog", "copy.sqlite",
      "--token-file", token,
    ])
    try #require(synced.status == 0, "\(synced.stderr)")
    let copy = try sift.run(["export", "--catalog", "copy.sqlite"])
    #expect(Self.canonical(Array(copy.lines.dropFirst())) == recordTexts)
  }
}
#endif
