import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// One result per group (`SearchCriteria.distinct`): the reference is the same search without
/// it, less every row whose group an earlier row holds — the group read by the test from the
/// item's own value, folded as a search folds it; an item without a value is a group of its own.
@Suite("One result per group", .tags(.unit))
struct DistinctTests {
  static let schema = EnginePropertyTests.schema
  /// Every kind of field that can group: the category (by its field name and as `category`),
  /// two numbers, a text and a list of texts, and one no search reads.
  static let fields = ["kind", "category", "year", "price", "title", "tags", "note"]

  /// What groups `item` by `field`, as the test reads it; nil: no value.
  static func group(_ item: Item, _ field: String) -> String? {
    let name = field == "category" ? "kind" : field
    switch item[name] {
    case .none: return nil
    case .number(let number): return "n\(number == 0 ? 0 : number)"
    case .some(let value): return value.strings.map(TextFolding.fold).joined(separator: "\u{0}")
    }
  }

  /// `rows` less each row whose group an earlier row holds.
  static func reference(_ rows: [ItemID], items: [Item], field: String) -> [ItemID] {
    let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
    var seen = Set<String>()
    return rows.filter { id in
      guard let group = group(byID[id]!, field) else { return true }
      return seen.insert(group).inserted
    }
  }

  static func randomCriteria(using random: inout SplitMix64) -> SearchCriteria {
    SearchCriteria(
      text: EnginePropertyTests.randomQuery(using: &random),
      tokens: EnginePropertyTests.randomTokens(using: &random),
      scopeIndex: Int.random(in: 0..<5, using: &random),
      sort: [nil, nil, SearchSort("year"), SearchSort("price", descending: true)]
        .randomElement(using: &random)!)
  }

  @Test("the rows are the first of each group in the order without it; facets still count items")
  func distinctEqualsReference() throws {
    let seed: UInt64 = 20_261_128
    print("distinct seed \(seed)")
    var random = SplitMix64(seed: seed)
    var (collapsed, groupsKept) = (0, 0)
    for round in 0..<800 {
      let items = (0..<Int.random(in: 0...40, using: &random)).map {
        EnginePropertyTests.randomItem($0, using: &random)
      }
      var collection = try FilteredCollection(schema: Self.schema, items: items)
      var criteria = Self.randomCriteria(using: &random)
      collection.filter(by: criteria)
      let all = Array(collection.rows)
      let facets = collection.facets
      let field = Self.fields.randomElement(using: &random)!
      criteria.distinct = field
      collection.filter(by: criteria)
      let expected = Self.reference(all, items: items, field: field)
      #expect(Array(collection.rows) == expected, "round \(round): \(criteria)")
      #expect(collection.indicator.matchCount == expected.count)
      #expect(collection.indicator.isFiltering)
      #expect(collection.facets == facets, "round \(round): facets count items, not groups")
      for id in items.map(\.id) {
        #expect(collection.row(of: id) == expected.firstIndex(of: id))
      }
      if expected.count < all.count { collapsed += 1 }
      groupsKept += expected.count
    }
    #expect(collapsed > 60, "\(collapsed) searches had rows to fold into a group")
    #expect(groupsKept > 1_000)
  }

  @Test(
    "many matches, whose order is made as far as it is read: the same first of each group",
    arguments: ["", "a", "r", "rose", "da n"])
  func manyMatches(query: String) throws {
    let seed: UInt64 = 4_000
    print("distinct many seed \(seed)")
    var random = SplitMix64(seed: seed)
    let items = (0..<3_000).map { EnginePropertyTests.randomItem($0, using: &random) }
    var collection = try FilteredCollection(schema: Self.schema, items: items)
    for field in ["kind", "year", "tags"] {
      for sort in [nil, SearchSort("price", descending: true)] {
        collection.filter(by: SearchCriteria(text: query, sort: sort))
        let all = Array(collection.rows)
        let criteria = SearchCriteria(text: query, sort: sort, distinct: field)
        let expected = Self.reference(all, items: items, field: field)
        // Rows found by rank before the rows are read, then the rows themselves.
        var fresh = try FilteredCollection(schema: Self.schema, items: items)
        fresh.filter(by: criteria)
        #expect(fresh.rows.count == expected.count)
        for id in items.prefix(200).map(\.id) {
          #expect(fresh.row(of: id) == expected.firstIndex(of: id), "\(query) by \(field): \(id)")
        }
        collection.filter(by: criteria)
        #expect(
          Array(collection.rows) == expected, "\(query) by \(field), \(all.count) matches")
      }
    }
  }

  @Test("edits under a group: rows equal a search from scratch, and the changes replay")
  func editsMatchReference() throws {
    let seed: UInt64 = 57
    print("distinct edits seed \(seed)")
    var random = SplitMix64(seed: seed)
    var rounds = 0
    for _ in 0..<40 {
      var items = (0..<Int.random(in: 0...25, using: &random)).map {
        EnginePropertyTests.randomItem($0, using: &random)
      }
      var criteria = Self.randomCriteria(using: &random)
      criteria.distinct = Self.fields.randomElement(using: &random)!
      var collection = try FilteredCollection(schema: Self.schema, items: items)
      collection.filter(by: criteria)
      var nextID = items.count
      for _ in 0..<30 {
        let before = Array(collection.rows)
        let changes: RowChanges
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
          let item = EnginePropertyTests.randomItem(nextID, using: &random)
          nextID += 1
          items.append(item)
          changes = try collection.add(item)
        case 1 where !items.isEmpty:
          let position = Int.random(in: 0..<items.count, using: &random)
          var item = EnginePropertyTests.randomItem(0, using: &random)
          item.id = items[position].id
          items[position] = item
          changes = try collection.update(item)
        case 2 where !collection.rows.isEmpty:
          // A group's first row goes: the next of its group, if any, takes its place.
          let row = Int.random(in: 0..<collection.rows.count, using: &random)
          let id = collection.rows[row]
          items.removeAll { $0.id == id }
          changes = try collection.deleteRow(row)
        default:
          continue
        }
        rounds += 1
        var fresh = try FilteredCollection(schema: Self.schema, items: items)
        fresh.filter(by: criteria)
        #expect(Array(collection.rows) == Array(fresh.rows), "\(criteria)")
        #expect(changes.applied(to: before) { collection.rows[$0] } == Array(collection.rows))
      }
    }
    #expect(rounds > 800)
  }

  @Test("deleting a group's first shows the next of its group in its place")
  func nextOfGroup() throws {
    let items = [
      Item(id: "1", fields: ["title": .text("rose red"), "kind": .text("Fruit")]),
      Item(id: "2", fields: ["title": .text("rose"), "kind": .text("Tool")]),
      Item(id: "3", fields: ["title": .text("red rose"), "kind": .text("fruit")]),
      Item(id: "4", fields: ["title": .text("rose bud")]),
      Item(id: "5", fields: ["title": .text("rose hip")]),
    ]
    var collection = try FilteredCollection(schema: Self.schema, items: items)
    collection.filter(by: SearchCriteria(text: "rose", distinct: "category"))
    // "rose" equals item 2's title; 1 leads Fruit; 4 and 5 have no kind, each its own group.
    #expect(Array(collection.rows) == ["2", "1", "4", "5"])
    #expect(collection.indicator.summary == "Filtering 4 of 5")
    // Item 3 takes Fruit's row where it stands among all the matches: after the titles that
    // start with "rose".
    let changes = try collection.delete(id: "1")
    #expect(Array(collection.rows) == ["2", "4", "5", "3"])
    #expect(changes == RowChanges(deleted: [1], inserted: [3]))
    #expect(changes.applied(to: ["2", "1", "4", "5"]) { collection.rows[$0] } == collection.rows)
  }

  @Test(
    "a field the catalog does not index is named, with the fields it can group by",
    arguments: [
      (
        "nope",
        "cannot keep one result per \"nope\": catalog things groups by title, tags, year, price, kind, note"
      ),
      (
        "stored",
        "cannot keep one result per \"stored\": catalog things groups by title, tags, year, price, kind, note (stored is kept, not searched: import it with --text or --number)"
      ),
    ])
  func unknownField(field: String, message: String) {
    var schema = Self.schema
    schema.storedFields = [.text("stored")]
    #expect(throws: SearchRequestError.self) {
      try SearchRequest(SearchRequestInput(text: "a", distinct: field), schema: schema)
    }
    do {
      _ = try SearchRequest(SearchRequestInput(text: "a", distinct: field), schema: schema)
    } catch {
      #expect(error.description == message)
    }
    // The controller and the model let an unknown field go: every match shows.
    var controller = SearchController(
      collection: try! FilteredCollection(schema: schema, items: []))
    controller.send(.setDistinct(field))
    #expect(controller.distinct == nil)
  }

  @Test("a request names the field as the schema spells it, and the controller applies it")
  func requestAndController() throws {
    var random = SplitMix64(seed: 3)
    let items = (0..<80).map { EnginePropertyTests.randomItem($0, using: &random) }
    let request = try SearchRequest(
      SearchRequestInput(text: "a", distinct: "Category"), schema: Self.schema)
    #expect(request.distinct == "kind" && request.isFiltering)
    var applied = SearchController(
      collection: try FilteredCollection(schema: Self.schema, items: items))
    applied.apply(request)
    var sent = SearchController(
      collection: try FilteredCollection(schema: Self.schema, items: items))
    sent.send(.activate)
    sent.send(.setDistinct("kind"))
    sent.send(.setText("a"))
    #expect(Array(sent.rows) == Array(applied.rows))
    // Fruit and Tool once each ("fruit" is Fruit folded), and every item without a kind.
    let kinds = applied.rows.compactMap { id in
      items.first { $0.id == id }!["kind"].map { TextFolding.fold($0.displayText) }
    }
    #expect(kinds.sorted() == ["fruit", "tool"])
    #expect(applied.rows.count > 2)
    sent.send(.setDistinct(nil))
    #expect(sent.rows.count > applied.rows.count)
  }

  struct Book: Identifiable, Sendable {
    var id: Int
    var title: String
    var author: String
    var sales: Double
  }

  @Test("SearchModel.distinct: the best-selling book of each author")
  @MainActor
  func model() throws {
    let schema = try SearchSchema<Book>(
      title: .text("title", \.title),
      fields: [.text("author", \.author), .number("sales", \.sales, searchable: false)],
      rankedBy: \.sales)
    let model = try SearchModel(
      [
        Book(id: 1, title: "Emma", author: "Jane Austen", sales: 10),
        Book(id: 2, title: "Persuasion", author: "Jane Austen", sales: 30),
        Book(id: 3, title: "Middlemarch", author: "George Eliot", sales: 20),
        Book(id: 4, title: "Adam Bede", author: "george eliot", sales: 5),
      ], schema: schema)
    model.isPresented = true
    #expect(model.results.map(\.id) == [2, 3, 1, 4])
    model.distinct = try schema.distinct(by: \.author)
    #expect(model.distinct == "author")
    #expect(model.results.map(\.id) == [2, 3])
    #expect(model.indicator.summary == "Filtering 2 of 4")
    // Each author's best match for "e" stands first: Emma's title starts with it.
    model.text = "e"
    #expect(model.results.map(\.id) == [1, 3])
    model.distinct = nil
    #expect(model.results.count == 4)
  }
}
