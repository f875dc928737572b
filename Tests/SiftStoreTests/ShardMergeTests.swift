import Foundation
import Sift
import SiftStore
import SiftTestSupport
import Testing

/// Past one node's memory, simulated: the cities split in two shards by id, each searched on
/// its own, and a front merging their pages by each result's own ranking — rank (typos,
/// exactness, attribute, word position), then popularity, then catalog order. The merged page
/// must be the single catalog's, and the counts must add up (docs/SCALING.md).
///
/// One rule is not the item's alone: near spellings are looked for only when the catalog has
/// no exact match. Each shard says whether it added them; when one did and another did not,
/// the whole catalog has an exact match, and the front asks the first again without them.
@Suite("Shards merged give the single catalog's pages", .tags(.unit))
struct ShardMergeTests {
  /// One result as the front sees it: the shard's explanation carries what orders it.
  struct Ranked {
    var id: String
    var rank: MatchRank
    var popularity: Double?
    /// Its place in the whole catalog's order (each shard keeps its items in that order).
    var order: Int

    /// The engine's order: rank, then popularity (larger first, none last), then catalog order.
    static func precedes(_ a: Ranked, _ b: Ranked) -> Bool {
      if a.rank != b.rank { return a.rank < b.rank }
      if a.popularity != b.popularity {
        return (a.popularity ?? -.infinity) > (b.popularity ?? -.infinity)
      }
      return a.order < b.order
    }
  }

  /// The first `limit` rows of `text` on `collection` with what orders them, and the count.
  static func page(
    _ text: String, on collection: FilteredCollection, limit: Int, order: [String: Int]
  ) throws -> (rows: [Ranked], matched: Int, categories: [String: Int], near: Bool) {
    var controller = SearchController(collection: collection)
    try controller.apply(SearchRequestInput(text: text))
    let shown = controller.collection
    let count = min(limit, shown.rows.count)
    let rows = try (0..<count).map { row in
      let explanation = try #require(shown.explanation(forRow: row))
      let id = shown.ids(atRows: row..<row + 1)[0].rawValue
      return Ranked(
        id: id, rank: explanation.rank, popularity: explanation.popularity, order: order[id]!)
    }
    return (rows, shown.rows.count, controller.facets.categories, shown.includesNearSpellings)
  }

  /// Queries typed into the cities: prefixes of names, whole names, two words, one edit.
  static func queries(_ document: CatalogDocument, count: Int, seed: UInt64) -> [String] {
    var random = SplitMix64(seed: seed)
    let names = document.items.compactMap { $0["name"]?.displayText }
    var queries: [String] = []
    while queries.count < count {
      let name = names.randomElement(using: &random)!.lowercased()
      let letters = Array(name)
      switch Int.random(in: 0..<5, using: &random) {
      case 0: queries.append(String(letters.prefix(Int.random(in: 1...3, using: &random))))
      case 1: queries.append(name)
      case 2:
        guard letters.count >= 5 else { continue }
        var misspelt = letters
        misspelt.swapAt(2, 3)
        queries.append(String(misspelt))
      case 3:
        let other = names.randomElement(using: &random)!.lowercased()
        queries.append(
          String(letters.prefix(4)) + " "
            + (other.split(separator: " ").first.map(String.init) ?? ""))
      default: queries.append(String(letters.prefix(Int.random(in: 4...6, using: &random))))
      }
    }
    return queries
  }

  @Test(
    "the cities in two shards by id: 300 merged pages equal the single catalog's, counts and facets add up",
    .tags(.large), .notInFastRun
  )
  func twoShards() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("cities.sqlite")
    _ = try CatalogImporter.run(file: ImportTests.citySample, into: url, spec: ImportTests.citySpec)
    let store = try CatalogStore.open(at: url)
    defer { try? store.close() }
    let document = try store.loadDocument()
    var order: [String: Int] = [:]
    for (index, item) in document.items.enumerated() { order[item.id.rawValue] = index }
    let whole = try document.makeCollection()
    // By id: each item's shard is its numeric id's parity, as a front would route it.
    let parts = [0, 1].map { parity in
      CatalogDocument(
        schema: document.schema,
        items: document.items.filter { (Int($0.id.rawValue) ?? 0) % 2 == parity })
    }
    let shards = try parts.map { try $0.makeCollection() }
    let exactShards = try parts.map { try $0.makeCollection(typoTolerance: .off) }
    let seed: UInt64 = 50_500
    print("shard merge: seed \(seed)")
    let limit = 20
    var differences = 0
    var found = 0
    var askedAgain = 0
    for text in Self.queries(document, count: 300, seed: seed) {
      let single = try Self.page(text, on: whole, limit: limit, order: order)
      var parts = try shards.map { try Self.page(text, on: $0, limit: limit, order: order) }
      // A shard with an exact match means the catalog has one: no near spellings anywhere.
      if parts.contains(where: { !$0.near && $0.matched > 0 }) {
        for index in parts.indices where parts[index].near {
          parts[index] = try Self.page(text, on: exactShards[index], limit: limit, order: order)
          askedAgain += 1
        }
      }
      let merged = parts.flatMap(\.rows).sorted(by: Ranked.precedes).prefix(limit)
      if !single.rows.isEmpty { found += 1 }
      let same =
        merged.map(\.id) == single.rows.map(\.id)
        && parts.map(\.matched).reduce(0, +) == single.matched
        && parts.map(\.categories).reduce(into: [:]) { $0.merge($1, uniquingKeysWith: +) }
          == single.categories
      if !same {
        differences += 1
        if differences <= 5 {
          Issue.record(
            "\"\(text)\": single \(single.matched) \(single.rows.map(\.id).prefix(8)); merged \(parts.map(\.matched)) \(merged.map(\.id).prefix(8))"
          )
        }
      }
    }
    print(
      "shard merge: 300 queries, \(found) found something, \(askedAgain) shard pages asked again without near spellings, \(differences) differ"
    )
    #expect(found > 200)
    #expect(differences == 0)
  }
}
