import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// Curated results (`Pins`): the reference is the search without pins, less its hidden and
/// pinned items, with each pinned item put back at its row in the order of rows (past the end:
/// last) — whatever the tokens and scope would have kept.
@Suite("Pinned and hidden results", .tags(.unit))
struct PinsTests {
  static let schema = EnginePropertyTests.schema
  static let queries = ["red", "rose", "da nang", "app", "a", "ß"]

  /// `rows` with `pins`' rule for the query applied, as the test reads it.
  static func reference(
    _ rows: [ItemID], pinned: [(ItemID, Int)], hidden: Set<ItemID>, items: [Item]
  )
    -> [ItemID]
  {
    let existing = Set(items.map(\.id))
    let placed = pinned.filter { existing.contains($0.0) && !hidden.contains($0.0) }
    var seen = Set<ItemID>()
    let kept = placed.filter { seen.insert($0.0).inserted }
    var next = 0
    var result = rows.filter { id in !hidden.contains(id) && !kept.contains { $0.0 == id } }
    for (id, row) in kept.enumerated().sorted(by: {
      ($0.element.1, $0.offset) < ($1.element.1, $1.offset)
    }).map(\.element) {
      next = max(row - 1, next)
      result.insert(id, at: min(next, result.count))
      next += 1
    }
    return result
  }

  @Test("the rows are the search's, less what is hidden, each pin at its row, filters or not")
  func pinsEqualReference() throws {
    let seed: UInt64 = 20_261_129
    print("pins seed \(seed)")
    var random = SplitMix64(seed: seed)
    var (pinnedShown, hiddenGone) = (0, 0)
    for round in 0..<500 {
      let items = (0..<Int.random(in: 1...40, using: &random)).map {
        EnginePropertyTests.randomItem($0, using: &random)
      }
      let query = Self.queries.randomElement(using: &random)!
      var criteria = SearchCriteria(
        text: query, tokens: EnginePropertyTests.randomTokens(using: &random),
        scopeIndex: Int.random(in: 0..<5, using: &random))
      var collection = try FilteredCollection(schema: Self.schema, items: items)
      collection.filter(by: criteria)
      let plain = Array(collection.rows)
      var pins = Pins()
      var pinned: [(ItemID, Int)] = []
      var hidden = Set<ItemID>()
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        // Ids the catalog has and one it has not; the query as typed, in another case, spaced.
        let id = ItemID(String(Int.random(in: 0...items.count, using: &random)))
        let typed = [query, query.uppercased(), " \(query)  "].randomElement(using: &random)!
        if Bool.random(using: &random) {
          let row = Int.random(in: 1...6, using: &random)
          pins.pin(id, at: row, for: typed)
          hidden.remove(id)
          pinned.removeAll { $0.0 == id }
          pinned.append((id, row))
        } else {
          pins.hide(id, for: typed)
          pinned.removeAll { $0.0 == id }
          hidden.insert(id)
        }
      }
      collection.pins = pins
      let expected = Self.reference(plain, pinned: pinned, hidden: hidden, items: items)
      #expect(Array(collection.rows) == expected, "round \(round): \(criteria) \(pins.entries)")
      #expect(collection.indicator.matchCount == expected.count)
      for id in items.map(\.id) {
        #expect(collection.row(of: id) == expected.firstIndex(of: id), "round \(round): \(id)")
      }
      pinnedShown += pinned.count { id, _ in expected.contains(id) && !plain.contains(id) }
      hiddenGone += hidden.count { plain.contains($0) }
      // Another query is not curated.
      criteria.text = query + " zz"
      collection.filter(by: criteria)
      var fresh = try FilteredCollection(schema: Self.schema, items: items)
      fresh.filter(by: criteria)
      #expect(Array(collection.rows) == Array(fresh.rows))
    }
    #expect(pinnedShown > 100, "\(pinnedShown) pinned items shown that did not match")
    #expect(hiddenGone > 15, "\(hiddenGone) matching items hidden")
  }

  @Test(
    "many matches, whose order is made as far as it is read: the same rows, rows found by id",
    arguments: ["a", "r", "rose", ""])
  func manyMatches(query: String) throws {
    var random = SplitMix64(seed: 4_001)
    print("pins many seed 4001")
    let items = (0..<3_000).map { EnginePropertyTests.randomItem($0, using: &random) }
    var plainCollection = try FilteredCollection(schema: Self.schema, items: items)
    plainCollection.filter(by: SearchCriteria(text: query))
    let plain = Array(plainCollection.rows)
    let pinned: [(ItemID, Int)] = [("7", 1), ("2999", 3), (plain.last ?? "5", 2), ("11", 200)]
    let hidden: Set<ItemID> = Set(plain.prefix(3)).union(["13"])
    var schema = Self.schema
    for (id, row) in pinned { schema.pins.pin(id, at: row, for: query.isEmpty ? "x" : query) }
    for id in hidden { schema.pins.hide(id, for: query.isEmpty ? "x" : query) }
    let expected =
      query.isEmpty ? plain : Self.reference(plain, pinned: pinned, hidden: hidden, items: items)
    var collection = try FilteredCollection(schema: schema, items: items)
    collection.filter(by: SearchCriteria(text: query))
    #expect(collection.rows.count == expected.count)
    let probes: [ItemID] = ["7", "2999", "11", "13", plain.first ?? "1", plain.last ?? "1"]
    for id in probes {
      #expect(collection.row(of: id) == expected.firstIndex(of: id), "\(query): \(id)")
    }
    var fresh = try FilteredCollection(schema: schema, items: items)
    fresh.filter(by: SearchCriteria(text: query))
    #expect(Array(fresh.ids(atRows: 0..<20)) == Array(expected.prefix(20)))
    #expect(Array(fresh.rows) == expected, "\(query): \(plain.count) matches")
  }

  @Test("edits of a pinned query: rows equal a search from scratch, and the changes replay")
  func edits() throws {
    var random = SplitMix64(seed: 77)
    print("pins edits seed 77")
    for _ in 0..<30 {
      var items = (0..<20).map { EnginePropertyTests.randomItem($0, using: &random) }
      var pins = Pins()
      pins.pin(ItemID(String(Int.random(in: 0..<20, using: &random))), at: 2, for: "rose")
      pins.hide(ItemID(String(Int.random(in: 0..<20, using: &random))), for: "rose")
      var schema = Self.schema
      schema.pins = pins
      var collection = try FilteredCollection(schema: schema, items: items)
      collection.filter(by: SearchCriteria(text: "rose"))
      for serial in 0..<20 {
        let before = Array(collection.rows)
        let changes: RowChanges
        if Bool.random(using: &random), !items.isEmpty {
          let position = Int.random(in: 0..<items.count, using: &random)
          changes = try collection.delete(id: items.remove(at: position).id)
        } else {
          let item = EnginePropertyTests.randomItem(100 + serial, using: &random)
          items.append(item)
          changes = try collection.add(item)
        }
        var fresh = try FilteredCollection(schema: schema, items: items)
        fresh.filter(by: SearchCriteria(text: "rose"))
        #expect(Array(collection.rows) == Array(fresh.rows))
        #expect(changes.applied(to: before) { collection.rows[$0] } == Array(collection.rows))
      }
    }
  }

  @Test("a tenant's base filter holds for a pinned item: outside it, it is not shown")
  func baseFilterHolds() throws {
    let items = [
      Item(id: "1", fields: ["title": .text("red rose"), "kind": .text("Fruit")]),
      Item(id: "2", fields: ["title": .text("apple"), "kind": .text("Tool")]),
      Item(id: "3", fields: ["title": .text("pie"), "kind": .text("Fruit")]),
    ]
    var schema = Self.schema
    schema.pins.pin("2", at: 1, for: "rose")
    schema.pins.pin("3", at: 1, for: "rose")
    var collection = try FilteredCollection(schema: schema, items: items)
    collection.filter(by: SearchCriteria(text: "rose"))
    #expect(Array(collection.rows) == ["2", "3", "1"])
    let fruit = try SearchRequest(
      SearchRequestInput(text: "rose", base: ["category:Fruit"]), schema: schema)
    collection.filter(by: fruit.criteria)
    #expect(Array(collection.rows) == ["3", "1"])
    // A token the searcher chose does not keep a pin out.
    collection.filter(
      by: SearchCriteria(
        text: "rose", tokens: [SearchToken(text: "Fruit", identifier: "category:Fruit")]))
    #expect(Array(collection.rows) == ["2", "3", "1"])
  }

  @Test("--explain says pinned; a pinned item that matches keeps its rule values")
  func explanation() throws {
    let items = [
      Item(id: "1", fields: ["title": .text("red rose")]),
      Item(id: "2", fields: ["title": .text("apple")]),
      Item(id: "3", fields: ["title": .text("rose")]),
    ]
    var schema = Self.schema
    schema.pins.pin("2", at: 1, for: "rose")
    schema.pins.pin("1", at: 2, for: "rose")
    var collection = try FilteredCollection(schema: schema, items: items)
    collection.filter(by: SearchCriteria(text: "rose"))
    #expect(Array(collection.rows) == ["2", "1", "3"])
    let apple = try #require(collection.explanation(forRow: 0))
    #expect(apple.pinned && apple.field == nil && apple.aheadOfNext == "pinned")
    let red = try #require(collection.explanation(forRow: 1))
    #expect(red.pinned && red.field == "title" && red.aheadOfNext == "pinned")
    let plain = try #require(collection.explanation(forRow: 2))
    #expect(!plain.pinned && plain.aheadOfNext == nil)
  }

  @Test("pins read and write as JSON; a fault is named")
  func coding() throws {
    var pins = Pins()
    pins.pin("42", at: 3, for: "iPhone")
    pins.hide("7", for: "charger")
    let json = String(decoding: try JSONEncoder().encode(pins), as: UTF8.self)
    #expect(try JSONDecoder().decode(Pins.self, from: Data(json.utf8)) == pins)
    #expect(json.contains(#""at":3"#) && json.contains(#""hidden":true"#))
    #expect(pins.rule(for: "  IPHONE ")?.pinned.map(\.row) == [2])
    #expect(pins.rule(for: "iphone 15") == nil)
    #expect(
      Pins.problem(with: Pins.Entry(query: "  ", id: "1", position: 1))
        == "the query has no word to pin for")
    #expect(
      Pins.problem(with: Pins.Entry(query: "a", id: "1", position: 1_001))
        == "at: 1001 is past row 1000, the last a pin may take")
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(Pins.self, from: Data(#"[{"query": "a", "id": "1"}]"#.utf8))
    }
    // What a query says of an item is one thing: a pin replaces a hide, and the other way.
    pins.pin("7", at: 1, for: "Charger")
    #expect(pins.entries.count == 2 && pins.rule(for: "charger")?.hidden.isEmpty == true)
    #expect(pins.remove("7", for: "CHARGER") && !pins.remove("7", for: "charger"))
  }
}
