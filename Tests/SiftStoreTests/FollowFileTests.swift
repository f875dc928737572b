import Foundation
import Sift
import SiftTestSupport
import Testing

@testable import SiftStore

/// A served catalog that follows its file (`StoredCatalog(followsFile:)`): what another process
/// writes to the file — edits, synonyms, pins, an import that writes it again — mixed with the
/// served catalog's own edits, in random order. After each catch-up it must answer every query
/// as a catalog opened from the file at that moment does, at the same version.
@Suite("A served catalog following its file", .tags(.unit))
struct FollowFileTests {
  static let queries = ["rose", "edit", "lily", "flower", "r", "wedding", "tulip ", "2001"]

  /// The ids of the first 20 results of each query, and the version.
  static func answers(_ catalog: StoredCatalog) async throws -> [String] {
    var answers = ["version \(catalog.version)"]
    for query in queries {
      let page = try await catalog.search(
        try SearchRequest(SearchRequestInput(text: query), schema: catalog.schema),
        page: PageRequest(limit: 20))
      answers.append(query + ": " + page.results.map(\.item.id.rawValue).joined(separator: " "))
    }
    return answers
  }

  @Test(
    "another process's writes, mixed with its own edits, answer as the file does",
    arguments: [
      UInt64(20_261_128), 7, 99,
    ])
  func followsWritesOfAnotherProcess(seed: UInt64) async throws {
    print("seed \(seed)")
    // The other process: a served catalog of the same file (it follows the file too, so that
    // its edits are checked against what the import wrote).
    var other = try ChangeFeedTests.Served(seed: seed, followsFile: true)
    defer { other.folder.cleanup() }
    let file = other.folder.file("shop.sqlite")
    // Its timer never fires here: the test catches up itself, so each step is checked.
    let follower = try StoredCatalog(
      name: "shop", store: CatalogStore.open(at: file, concurrentReads: true), warmsUp: false,
      followsFile: true, followInterval: .seconds(3_600))
    defer { follower.close() }
    var random = SplitMix64(seed: seed &+ 1)
    var own = 0
    for step in 0..<60 {
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<6:
        try await other.edit()
      case 6..<8:
        // Its own edit: checked against the file as the other process left it.
        own += 1
        let ids = try other.store.loadDocument().items.map(\.id)
        let fields: [String: FieldValue] = [
          "title": .text("Own \(own) lily"), "type": .text("Weddings"), "year": .number(2001),
          "price": .number(Double(own)),
        ]
        if let id = ids.randomElement(using: &random), Bool.random(using: &random) {
          _ = try await follower.commit(
            Bool.random(using: &random) ? .delete(id) : .update(Item(id: id, fields: fields)))
        } else {
          _ = try await follower.commit(.add(nil, fields: fields))
        }
      case 8:
        let ids = try other.store.loadDocument().items.map(\.id)
        guard let id = ids.randomElement(using: &random) else { continue }
        try await other.catalog.replacePins(
          Pins([Pins.Entry(query: "rose", id: id, position: 1)]))
      default:
        // An import writes the file again: its log cannot explain the way, the follower opens
        // the file anew.
        let records = try other.folder.write(
          "import.jsonl", #"{"title": "Imported \#(step) rose", "type": "Birthdays"}"# + "\n")
        _ = try CatalogImporter.run(
          file: records, into: file, spec: ImportSpec(titleField: "title"))
      }
      try await follower.catchUpWithFile()
      let fresh = try StoredCatalog(
        name: "shop", store: CatalogStore.open(at: file), editable: false, warmsUp: false)
      let expected = try await Self.answers(fresh)
      fresh.close()
      let answered = try await Self.answers(follower)
      let differ = zip(answered, expected).first { $0.0 != $0.1 }
      #expect(answered == expected, "step \(step): \(String(describing: differ))")
      if answered != expected { return }
    }
  }

  @Test(
    "an upstream batch that puts an id and deletes it, puts it twice or moves it ends as the file")
  func upstreamBatches() async throws {
    let served = try ChangeFeedTests.Served(seed: 5)
    defer { served.folder.cleanup() }
    let file = served.folder.file("shop.sqlite")
    let item = { (id: String, title: String) in
      Item(id: ItemID(id), fields: ["title": .text(title), "type": .text("Weddings")])
    }
    let first = try #require(try served.store.loadDocument().items.first)
    let source = SyncSource(
      url: "postgresql://test/shop", catalog: "shop", identity: "upstream", version: 7,
      rows: "all")
    try await served.catalog.followUpstream(
      [
        .put(item("gone", "Gone Rose"), at: 1_000, version: 1), .delete("gone", version: 2),
        .put(item("twice", "First Rose"), at: 1_001, version: 3),
        .put(item("twice", "Second Rose"), at: 1_001, version: 4),
        .delete(first.id, version: 5), .put(first, at: 1_002, version: 6),
      ], source: source)
    let fresh = try StoredCatalog(
      name: "shop", store: CatalogStore.open(at: file), editable: false, warmsUp: false)
    defer { fresh.close() }
    #expect(try await Self.answers(served.catalog) == Self.answers(fresh))
    #expect(try CatalogStore.open(at: file).syncedVersion() == 7)
    let roses = try await served.catalog.search(
      try SearchRequest(SearchRequestInput(text: "rose"), schema: served.catalog.schema),
      page: PageRequest(limit: 50))
    let titles = roses.results.compactMap { $0.item["title"]?.displayText }
    #expect(titles.contains("Second Rose") && !titles.contains("First Rose"))
    #expect(!titles.contains("Gone Rose"))
  }
}
