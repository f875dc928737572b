import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// Results by a field: the relevance order, stably sorted by the field's value — the reference
/// every sorted search is checked against, through searches, lazy pages and edits.
@Suite("Sort by a field", .tags(.unit))
struct SortTests {
  static let schema = EnginePropertyTests.schema
  static let sorts = ["title", "year", "price"].flatMap {
    [SearchSort($0), SearchSort($0, descending: true)]
  }

  /// The reference: `relevance` (ids best first) stably sorted by `sort`'s value, items without
  /// one last; titles compare folded, byte by byte.
  static func sorted(
    _ relevance: [ItemID], items: [Item], by sort: SearchSort
  ) -> [ItemID] {
    let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
    enum Key: Equatable {
      case number(Double)
      case text([UInt8])
      case none
    }
    func key(_ id: ItemID) -> Key {
      switch byID[id]?[sort.field] {
      case .number(let value): .number(value)
      case .text(let text): .text(Array(TextFolding.fold(text).utf8))
      default: sort.field == "title" ? .text([]) : .none
      }
    }
    func before(_ a: Key, _ b: Key) -> Bool {
      switch (a, b) {
      case (.none, _): false
      case (_, .none): true
      case (.number(let x), .number(let y)): sort.isDescending ? x > y : x < y
      case (.text(let x), .text(let y)):
        sort.isDescending ? y.lexicographicallyPrecedes(x) : x.lexicographicallyPrecedes(y)
      default: false
      }
    }
    // A stable sort: the relevance position breaks ties.
    return relevance.enumerated().sorted { a, b in
      let (keyA, keyB) = (key(a.element), key(b.element))
      if before(keyA, keyB) { return true }
      if before(keyB, keyA) { return false }
      return a.offset < b.offset
    }.map(\.element)
  }

  @Test("a sorted search is the relevance order stably sorted by the value")
  func sortedEqualsReference() throws {
    let seed: UInt64 = 20_261_125
    print("sort seed \(seed)")
    var random = SplitMix64(seed: seed)
    for round in 0..<1_000 {
      let (items, filtered, unsorted) = try EnginePropertyTests.randomFilteredCatalog(
        upTo: 40, using: &random)
      let relevance = Array(filtered.rows)
      let sort = Self.sorts.randomElement(using: &random)!
      var (collection, criteria) = (filtered, unsorted)
      criteria.sort = sort
      collection.filter(by: criteria)
      #expect(
        Array(collection.rows) == Self.sorted(relevance, items: items, by: sort),
        "round \(round): \(criteria)")
      #expect(collection.indicator.matchCount == relevance.count)
    }
  }

  @Test(
    "many matches: the first page, a later page and the whole list follow the reference",
    arguments: ["title", "year:desc", "price"])
  func manyMatches(sort text: String) throws {
    var random = SplitMix64(seed: 4242)
    let items = (0..<3_000).map { EnginePropertyTests.randomItem($0, using: &random) }
    let sort = try #require(SearchSort(parsing: text))
    for query in ["", "a", "rose", "year:>=2007"] {
      var collection = try FilteredCollection(schema: Self.schema, items: items)
      collection.filter(by: SearchCriteria(text: query))
      let expected = Self.sorted(Array(collection.rows), items: items, by: sort)
      collection.filter(by: SearchCriteria(text: query, sort: sort))
      // Only the first rows are put in order at once; later ones when read.
      #expect(collection.matches.orderedCount < max(expected.count, 129))
      #expect(collection.ids(atRows: 0..<20) == Array(expected.prefix(20)), "\(query)")
      #expect(
        collection.ids(atRows: 1_000..<1_020) == Array(expected.dropFirst(1_000).prefix(20)))
      #expect(Array(collection.rows) == expected, "\(query) sorted by \(sort)")
      // Without a query and no filter the indicator still counts every item.
      if query.isEmpty { #expect(!collection.indicator.isFiltering) }
    }
  }

  @Test("edits under a sort land where a search from scratch puts them, and replay")
  func editsUnderSort() throws {
    var random = SplitMix64(seed: 99)
    for round in 0..<40 {
      let items = (0..<Int.random(in: 1...30, using: &random)).map {
        EnginePropertyTests.randomItem($0, using: &random)
      }
      let criteria = SearchCriteria(
        text: ["", "a", "rose", "da"].randomElement(using: &random)!,
        sort: Self.sorts.randomElement(using: &random)!)
      try EditReplay.check(
        items, schema: Self.schema, criteria: criteria, round: round,
        newItem: { EnginePropertyTests.randomItem($0, using: &$1) }, using: &random)
    }
  }

  @Test(
    "sorts are read as FIELD, FIELD:asc or FIELD:desc",
    arguments: [
      ("price", SearchSort("price")), ("price:asc", SearchSort("price")),
      ("Price:DESC", SearchSort("Price", descending: true)), ("price:up", nil), ("", nil),
      (":desc", nil), ("a:b:c", nil),
    ])
  func parsing(text: String, expected: SearchSort?) {
    #expect(SearchSort(parsing: text) == expected)
  }

  @Test("a request names the field it cannot sort by and the ones it can")
  func unsortableField() throws {
    let input = SearchRequestInput(text: "a", sort: SearchSort("kind"))
    #expect(throws: SearchRequestError.self) { try SearchRequest(input, schema: Self.schema) }
    do {
      _ = try SearchRequest(input, schema: Self.schema)
    } catch {
      #expect(
        error.description
          == "cannot sort by \"kind\": catalog things sorts by title, year, price (FIELD, FIELD:asc or FIELD:desc)"
      )
    }
    // Any case of a sortable field reads as the schema spells it.
    let request = try SearchRequest(
      SearchRequestInput(text: "", sort: SearchSort("YEAR", descending: true)),
      schema: Self.schema)
    #expect(request.sort == SearchSort("year", descending: true))
    #expect(request.criteria.sort == SearchSort("year", descending: true))
    #expect(!request.isFiltering)
    // "title" is the title field whatever it is called, as the help says.
    let named = CatalogSchema(
      name: "airports", fields: [.text("name"), .number("elevation")], titleField: "name")
    #expect(
      named.resolved(SearchSort("title", descending: true)) == SearchSort("name", descending: true))
    #expect(named.resolved(SearchSort("Title")) == SearchSort("name"))
    // A field called "title" that is not the title is sorted by itself, never the title.
    let titled = CatalogSchema(
      name: "books", fields: [.text("name"), .number("title")], titleField: "name")
    #expect(titled.resolved(SearchSort("title")) == SearchSort("title"))
  }

  @Test("--explain under a sort: the sort's value, and the sort as the rule when values differ")
  func explanationUnderSort() throws {
    let collection = try SeedCatalog.products.load().makeCollection()
    var controller = SearchController(collection: collection)
    controller.send(.setSort(SearchSort("price")))
    let page = controller.searchPage(PageRequest(limit: 5, explain: true))
    let explained = page.results.compactMap(\.explanation)
    #expect(explained.map(\.sortValue) == ["16.99", "16.99", "16.99", "23.99", "23.99"])
    #expect(explained.allSatisfy { $0.sortField == "price" })
    // Equal prices go by the other rules; a lower price is ahead by the sort.
    #expect(
      explained.map(\.aheadOfNext) == [
        "catalog order", "catalog order", "price", "catalog order", nil,
      ])
    controller.send(.setSort(nil))
    let unsorted = controller.searchPage(PageRequest(limit: 1, explain: true))
    #expect(unsorted.results.first?.explanation?.sortField == nil)
  }

  @Test("facets give each number field's smallest and largest value among the rows shown")
  func numberRanges() throws {
    let seed: UInt64 = 515
    print("ranges seed \(seed)")
    var random = SplitMix64(seed: seed)
    for round in 0..<300 {
      let (_, collection, criteria) = try EnginePropertyTests.randomFilteredCatalog(
        upTo: 40, using: &random)
      // The reference: the values of the rows shown, read from the items.
      var expected: [String: ClosedRange<Double>] = [:]
      for field in ["year", "price"] {
        let values = collection.rows.compactMap { id -> Double? in
          guard case .number(let value) = collection.item(id: id)?[field] else { return nil }
          return value
        }
        if let low = values.min(), let high = values.max() { expected[field] = low...high }
      }
      #expect(collection.facets.ranges == expected, "round \(round): \(criteria)")
    }
  }

  struct Product: Identifiable, Sendable {
    var id: Int
    var name: String
    var price: Double
    var maker: String
  }

  @Test("an app sorts its own type by key path; the controller and its snapshot keep the sort")
  @MainActor
  func typedSortAndRestoration() throws {
    let schema = try SearchSchema<Product>(
      title: .text("name", \.name), fields: [.number("price", \.price), .text("maker", \.maker)])
    #expect(try schema.sort(by: \.price, descending: true) == SearchSort("price", descending: true))
    #expect(try schema.sort(by: \.name) == SearchSort("name"))
    #expect(throws: CatalogSchemaError.self) { try schema.sort(by: \.maker) }
    let products = [
      Product(id: 1, name: "Rose", price: 20, maker: "A"),
      Product(id: 2, name: "Red rose", price: 5, maker: "B"),
      Product(id: 3, name: "Tulip", price: 12, maker: "C"),
    ]
    let model = try SearchModel(products, schema: schema)
    model.isPresented = true
    model.text = "rose"
    #expect(model.results.map(\.id) == [1, 2])
    model.sort = try schema.sort(by: \.price)
    #expect(model.results.map(\.id) == [2, 1])
    #expect(model.range(of: \.price) == 5...20)
    #expect(model.range(of: \.maker) == nil, "not a number")
    model.text = "tulip"
    #expect(model.range(of: \.price) == 12...12)

    let catalog = CatalogSchema(
      name: "p", fields: [.text("name"), .number("price")], titleField: "name")
    let items = products.map {
      Item(id: ItemID(String($0.id)), fields: ["name": .text($0.name), "price": .number($0.price)])
    }
    var controller = SearchController(
      collection: try FilteredCollection(schema: catalog, items: items))
    controller.send(.setSort(SearchSort("price", descending: true)))
    #expect(controller.rows == ["1", "3", "2"])
    controller.send(.cancel)
    #expect(controller.rows == ["1", "3", "2"], "a sort outlasts Cancel")
    var restored = SearchController(
      collection: try FilteredCollection(schema: catalog, items: items))
    #expect(restored.restore(from: controller.encodedSnapshot()) == [])
    #expect(restored.sort == SearchSort("price", descending: true))
    var snapshot = controller.snapshot
    snapshot.sort = "weight:asc"
    #expect(restored.restore(snapshot) == [.unknownSort("weight:asc")])
    #expect(restored.sort == nil)
  }
}
