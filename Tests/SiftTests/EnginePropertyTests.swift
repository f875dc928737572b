import SiftTestSupport
import Testing

@testable import Sift

/// Seeded random catalogs, queries and edits, checked against `ReferenceMatcher`.
@Suite("Engine properties", .tags(.unit))
struct EnginePropertyTests {
  static let schema = schema(searchingCategory: false)

  /// The schema; `searchingCategory`: plain terms find the kind too, as the weakest text.
  static func schema(searchingCategory: Bool) -> CatalogSchema {
    CatalogSchema(
      name: "things",
      fields: [
        .text("title"), .text("tags"), .number("year"), .number("price", decimals: 2),
        .category("kind", searchable: searchingCategory), .text("note", searchable: false),
      ],
      titleField: "title", categoryField: "kind",
      scopes: [
        .all(), .category("Fruit"), .category("Tool"), .fields("Tags", ["tags"]),
        .fields("Year", ["year"]),
      ])
  }

  static let words = [
    "red", "rose", "Đà", "Nẵng", "da", "nang", "서울", "부산", "apple", "APPLE", "app", "ß",
    "strasse", "Straße", "ab", "ba", "a", "b", "pie", "Łódź", "lodz", "2007", "16.99",
    "北京", "重庆", "トヨタ", "とうきょう",
  ]

  static func randomItem(_ id: Int, using random: inout SplitMix64) -> Item {
    func phrase() -> String {
      (0..<Int.random(in: 0...3, using: &random)).map { _ in words.randomElement(using: &random)! }
        .joined(separator: Bool.random(using: &random) ? " " : "-")
    }
    var fields: [String: FieldValue] = ["title": .text(phrase())]
    if Bool.random(using: &random) { fields["tags"] = .texts((0..<2).map { _ in phrase() }) }
    if Bool.random(using: &random) {
      fields["year"] = .number(Double(Int.random(in: 2005...2010, using: &random)))
    }
    if Bool.random(using: &random) {
      fields["price"] = .number([16.99, 25, 2007, 3.5].randomElement(using: &random)!)
    }
    if Bool.random(using: &random) {
      fields["kind"] = .text(["Fruit", "Tool", "fruit"].randomElement(using: &random)!)
    }
    if Bool.random(using: &random) { fields["note"] = .text(phrase()) }
    return Item(id: ItemID(String(id)), fields: fields)
  }

  static func randomQuery(using random: inout SplitMix64) -> String {
    let pieces = [
      "red", "ro", "rose", "da nang", "\"da n\"", "-a", "-\"red rose\"", "ㅅ", "ㅅㅇ", "서", "부",
      "app", "ss", "2007", "16.99", "25", "year:2006..2008", "price:<20", "year:>=2009",
      "title:a", "tags:b", "kind:fruit", "-kind:tool", "category:Tool", "note:pie", "pie", "b",
      "prise:3", "price:<", "l", "lodz", "Ł", "fruit", "too", "frut", "bj", "beij", "jing",
      "zhong", "toyota", "tokyo", "to",
    ]
    return (0..<Int.random(in: 0...3, using: &random))
      .map { _ in pieces.randomElement(using: &random)! }.joined(separator: " ")
  }

  static func randomTokens(using random: inout SplitMix64) -> [SearchToken] {
    let all = [
      SearchToken(text: "Fruit", identifier: "category:Fruit"),
      SearchToken(text: "Recent", identifier: "year:>=2008"),
      SearchToken(text: "Red", identifier: "red"),
    ]
    return all.filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
  }

  @Test(
    "search agrees with the reference on random catalogs and queries",
    arguments: [false, true])
  func searchMatchesReference(searchingCategory: Bool) throws {
    var random = SplitMix64(seed: 2026)
    let schema = Self.schema(searchingCategory: searchingCategory)
    let reference = ReferenceMatcher(schema: schema)
    for round in 0..<200 {
      let items = (0..<Int.random(in: 0...40, using: &random)).map {
        Self.randomItem($0, using: &random)
      }
      var collection = try FilteredCollection(schema: schema, items: items)
      for _ in 0..<20 {
        let criteria = SearchCriteria(
          text: Self.randomQuery(using: &random), tokens: Self.randomTokens(using: &random),
          scopeIndex: Int.random(in: 0..<6, using: &random))
        collection.filter(by: criteria)
        #expect(
          collection.rows == reference.rows(items: items, criteria: criteria),
          "round \(round): \(criteria)")
      }
    }
  }

  @Test(
    "typing character by character (refinement) agrees with searching from scratch", .tags(.large),
    .notInFastRun)
  func refinementMatchesReference() throws {
    var random = SplitMix64(seed: 77)
    let reference = ReferenceMatcher(schema: Self.schema)
    for round in 0..<150 {
      let items = (0..<30).map { Self.randomItem($0, using: &random) }
      var collection = try FilteredCollection(schema: Self.schema, items: items)
      // With the trigram index, a term that begins to read refines with the items it reads.
      if round % 2 == 0 { collection.index.prepareSubstringSearch() }
      let query = Self.randomQuery(using: &random) + " " + Self.randomQuery(using: &random)
      let scope = Int.random(in: 0..<5, using: &random)
      var typed = ""
      for character in query {
        typed.append(character)
        let criteria = SearchCriteria(text: typed, scopeIndex: scope)
        collection.filter(by: criteria)
        #expect(collection.rows == reference.rows(items: items, criteria: criteria), "\(typed)")
      }
      // And back again with Backspace, which never refines.
      while !typed.isEmpty {
        typed.removeLast()
        let criteria = SearchCriteria(text: typed, scopeIndex: scope)
        collection.filter(by: criteria)
        #expect(collection.rows == reference.rows(items: items, criteria: criteria), "\(typed)")
      }
    }
  }

  /// Up to `count` random items, a collection of them and random criteria it is filtered by.
  static func randomFilteredCatalog(
    upTo count: Int, schema: CatalogSchema = schema, using random: inout SplitMix64
  ) throws -> (items: [Item], collection: FilteredCollection, criteria: SearchCriteria) {
    let items = (0..<Int.random(in: 0...count, using: &random)).map {
      randomItem($0, using: &random)
    }
    var collection = try FilteredCollection(schema: schema, items: items)
    let criteria = SearchCriteria(
      text: randomQuery(using: &random), tokens: randomTokens(using: &random),
      scopeIndex: Int.random(in: 0..<5, using: &random))
    collection.filter(by: criteria)
    return (items, collection, criteria)
  }

  @Test(
    "random edits while filtering: rows equal filtering from scratch; changes replay",
    arguments: [false, true])
  func editsMatchReference(searchingCategory: Bool) throws {
    var random = SplitMix64(seed: 31337)
    let schema = Self.schema(searchingCategory: searchingCategory)
    let reference = ReferenceMatcher(schema: schema)
    var rounds = 0
    for _ in 0..<60 {
      var (items, collection, criteria) = try Self.randomFilteredCatalog(
        upTo: 25, schema: schema, using: &random)
      var nextID = items.count
      for _ in 0..<40 {
        rounds += 1
        let before = Array(collection.rows)
        var changed: ItemID?
        let changes: RowChanges
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
          let item = Self.randomItem(nextID, using: &random)
          nextID += 1
          items.append(item)
          changes = try collection.add(item)
        case 1 where !items.isEmpty:
          let position = Int.random(in: 0..<items.count, using: &random)
          var item = Self.randomItem(0, using: &random)
          item.id = items[position].id
          items[position] = item
          changed = item.id
          changes = try collection.update(item)
        case 2 where !items.isEmpty:
          let position = Int.random(in: 0..<items.count, using: &random)
          changes = try collection.delete(id: items.remove(at: position).id)
        case 3 where !collection.rows.isEmpty:
          let row = Int.random(in: 0..<collection.rows.count, using: &random)
          let id = collection.rows[row]
          items.removeAll { $0.id == id }
          changes = try collection.deleteRow(row)
          #expect(collection.item(id: id) == nil)
        case 4 where !collection.rows.isEmpty:
          // Same title as another item: duplicates must not confuse edits.
          let row = Int.random(in: 0..<collection.rows.count, using: &random)
          let title = items.randomElement(using: &random)!["title"]
          changes = try collection.updateRow(row) { $0["title"] = title }
          let id = before[row]
          if let position = items.firstIndex(where: { $0.id == id }) {
            items[position]["title"] = title
          }
          changed = id
        default:
          continue
        }
        let expected = reference.rows(items: items, criteria: criteria)
        #expect(collection.index.invariantViolations() == [])
        #expect(collection.rows == expected)
        #expect(collection.allItems == items, "catalog order survives edits")
        for item in items + [Self.randomItem(-1, using: &random)] {
          #expect(
            collection.row(of: item.id) == collection.rows.firstIndex(of: item.id),
            "row(of:) finds by rank what a linear search finds")
        }
        let replayed = changes.applied(to: before) { collection.rows[$0] }
        #expect(replayed == collection.rows, "row changes replay old rows into new ones")
        if let changed, before.contains(changed), let row = collection.rows.firstIndex(of: changed)
        {
          #expect(changes.reloaded.contains(row))
        }
      }
    }
    #expect(rounds > 1000)
  }

  @Test("the index's parallel arrays stay in step through edits and the compactions they cause")
  func invariantsThroughCompactions() throws {
    let seed: UInt64 = 20_261_125
    var random = SplitMix64(seed: seed)
    var items = (0..<30).map { Self.randomItem($0, using: &random) }
    var collection = try FilteredCollection(schema: Self.schema, items: items)
    collection.filter(by: SearchCriteria(text: "a"))
    let reference = ReferenceMatcher(schema: Self.schema)
    var nextID = items.count
    var compactions = 0
    for _ in 0..<600 {
      let layout = collection.index.layout
      if items.isEmpty || Int.random(in: 0..<4, using: &random) == 0 {
        let item = Self.randomItem(nextID, using: &random)
        nextID += 1
        items.append(item)
        try collection.add(item)
      } else if Bool.random(using: &random) {
        let position = Int.random(in: 0..<items.count, using: &random)
        var item = Self.randomItem(0, using: &random)
        item.id = items[position].id
        items[position] = item
        try collection.update(item)
      } else {
        let position = Int.random(in: 0..<items.count, using: &random)
        try collection.delete(id: items.remove(at: position).id)
      }
      if collection.index.layout != layout { compactions += 1 }
      #expect(collection.index.invariantViolations() == [])
    }
    #expect(compactions > 0, "the edits crossed at least one compaction")
    // The check sees a broken index: one array left a slot short, popularity ranks swapped.
    let sample = (0..<30).map { Self.randomItem($0, using: &random) }
    let whole = try SearchIndex(schema: SearchSchema<Item>(Self.schema), elements: sample).storage
    var numbers = whole.numbers
    numbers[0].removeLast()
    var ranks = whole.popularityRanks
    ranks.swapAt(0, 1)
    let broken = SearchIndex(
      schema: Self.schema,
      storage: SlotStorage(
        schema: Self.schema, ids: whole.ids, count: whole.count, columns: whole.columns,
        readingColumns: whole.readingColumns, summaries: whole.summaries, numbers: numbers,
        categoryIDs: whole.categoryIDs, categorySpellings: whole.categorySpellings,
        categorySets: whole.categorySets, categories: whole.categories,
        popularityOrder: whole.popularityOrder, popularityRanks: ranks))
    #expect(broken.invariantViolations().count == 3)
    #expect(collection.rows == reference.rows(items: items, criteria: SearchCriteria(text: "a")))
  }

  @Test("row changes between random lists replay exactly, with the fewest moves")
  func rowChangesReplay() {
    var random = SplitMix64(seed: 5)
    for _ in 0..<3000 {
      let old = Array(
        (0..<12).shuffled(using: &random).prefix(Int.random(in: 0...12, using: &random)))
      let new = Array(
        (0..<12).shuffled(using: &random).prefix(Int.random(in: 0...12, using: &random)))
      let changes = RowChanges(from: old, to: new)
      #expect(changes.applied(to: old) { new[$0] } == new, "\(old) → \(new)")
      let kept = old.filter(new.contains)
      #expect(changes.moved.count <= kept.count)
      #expect(
        changes.deleted.count + changes.moved.count + (kept.count - changes.moved.count)
          == old.count)
    }
    #expect(RowChanges(from: [1, 2, 3], to: [1, 2, 3]).isEmpty)
    #expect(RowChanges(from: [1, 2, 3], to: [3, 1, 2]).moved == [.init(from: 2, to: 0)])
  }
}

@Suite("Large catalogs", .tags(.unit))
struct LargeCatalogTests {
  @Test(
    "a catalog folded on every core searches exactly like one built item by item", .tags(.large),
    .notInFastRun)
  func parallelBuildEqualsSequential() throws {
    var random = SplitMix64(seed: 100_001)
    let items = (0..<110_000).map { EnginePropertyTests.randomItem($0, using: &random) }
    let parallel = try FilteredCollection(schema: EnginePropertyTests.schema, items: items)
    // Item by item straight into an index: the collection's row changes would make it quadratic.
    let schema = try SearchSchema<Item>(EnginePropertyTests.schema)
    var sequential = try SearchIndex(schema: schema, elements: [Item]())
    for item in items { try sequential.add(item.id, schema.indexedValues(of: item)) }
    #expect(parallel.index.invariantViolations() == [])
    #expect(sequential.invariantViolations() == [])
    for text in ["red", "ㅅㅇ", "서", "da nang", "2007", "tags:b", "-a app", "lodz", "ß", "zzz"] {
      var a = parallel
      a.filter(by: SearchCriteria(text: text))
      let b = sequential.search(a.request)
      #expect(a.rows == b.ids, "\(text)")
    }
    // Both builds scan and rank on every core at this size ("a" matches over half the items):
    // check them against the reference too.
    let reference = ReferenceMatcher(schema: EnginePropertyTests.schema)
    for text in ["ro", "ㅅ", "b -red", "a"] {
      var a = parallel
      a.filter(by: SearchCriteria(text: text))
      #expect(
        a.rows == reference.rows(items: items, criteria: SearchCriteria(text: text)), "\(text)")
    }
    #expect(throws: CatalogEditError.duplicateID("5")) {
      try FilteredCollection(schema: EnginePropertyTests.schema, items: items + [items[5]])
    }
  }
}
