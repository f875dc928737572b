import SiftTestSupport
import Testing

@testable import Sift

/// Either of two: `rose | tulip`, `rose OR tulip`, parsed, matched, ranked, highlighted and
/// edited through, checked against `ReferenceMatcher`.
@Suite("Either of two", .tags(.unit))
struct AlternativesTests {
  static let schema = QueryParserTests.schema

  /// The terms of `text`, an `either` spelt `(a | b)`.
  static func spell(_ text: String) -> [String] { QueryParserTests.spell(text) }

  @Test(
    "reads `|` and `OR` between terms",
    arguments: [
      ("rose | tulip", ["(\"rose\" | \"tulip\")"]),
      ("rose OR tulip", ["(\"rose\" | \"tulip\")"]),
      ("rose|tulip", ["(\"rose\" | \"tulip\")"]),
      ("red rose | tulip 2007", ["\"red\"", "(\"rose\" | \"tulip\")", "\"2007\" #2007"]),
      ("a | b | c", ["(\"a\" | \"b\" | \"c\")"]),
      ("a | b c | d", ["(\"a\" | \"b\")", "(\"c\" | \"d\")"]),
      ("-tulip | year:>2009", ["(-\"tulip\" | year>2009)"]),
      ("\"red rose\" | type:weddings", ["(\"red rose\" phrase | type=weddings)"]),
      ("\"a|b\"", ["\"a|b\" phrase"]),
      // `OR` is a word anywhere else, and in lower case.
      ("Portland OR", ["\"portland\"", "\"or\""]),
      ("OR rose", ["\"or\"", "\"rose\""]),
      ("rose or tulip", ["\"rose\"", "\"or\"", "\"tulip\""]),
      ("rose OR OR tulip", ["(\"rose\" | \"or\")", "\"tulip\""]),
    ])
  func reads(text: String, expected: [String]) {
    let query = Query(parsing: text, schema: Self.schema)
    #expect(Self.spell(text) == expected)
    #expect(query.diagnostics.isEmpty, "\(query.diagnostics)")
  }

  @Test(
    "a `|` with no term on one side is ignored and reported at its column",
    arguments: [
      ("rose |", ["\"rose\""], 5),
      ("| rose", ["\"rose\""], 0),
      ("rose | | tulip", ["(\"rose\" | \"tulip\")"], 7),
      ("rose |", ["\"rose\""], 5),
      ("rose OR |", ["\"rose\"", "\"or\""], 8),
      ("-| rose", ["\"rose\""], 0),
    ])
  func dangling(text: String, terms: [String], column: Int) throws {
    let query = Query(parsing: text, schema: Self.schema)
    #expect(Self.spell(text) == terms)
    let first = try #require(query.diagnostics.first)
    #expect(first.range.lowerBound == column)
    #expect(throws: QueryError.self) { try Query(validating: text, schema: Self.schema) }
  }

  @Test("the strict door names the dangling `|` and its column")
  func strictDoor() {
    do {
      _ = try Query(validating: "rose |", schema: Self.schema)
      Issue.record("no error")
    } catch {
      #expect(
        error.description
          == "query \"rose |\", column 6: `|` needs a term on each side (`rose | tulip`); ignored")
    }
  }

  /// A random query with alternatives: pieces joined by spaces, `|` or `OR`.
  static func randomQuery(using random: inout SplitMix64) -> String {
    var text = ""
    for index in 0..<Int.random(in: 1...4, using: &random) {
      if index > 0 {
        text += [" ", " | ", "|", " OR ", " | "].randomElement(using: &random)!
      }
      text += EnginePropertyTests.randomQuery(using: &random)
    }
    return text
  }

  @Test("search with alternatives agrees with the reference on random catalogs")
  func searchMatchesReference() throws {
    let seed: UInt64 = 3232
    print("AlternativesTests seed \(seed)")
    var random = SplitMix64(seed: seed)
    let schema = EnginePropertyTests.schema
    let reference = ReferenceMatcher(schema: schema)
    var withAlternatives = 0
    for round in 0..<150 {
      let items = (0..<Int.random(in: 0...40, using: &random)).map {
        EnginePropertyTests.randomItem($0, using: &random)
      }
      var collection = try FilteredCollection(schema: schema, items: items)
      for _ in 0..<20 {
        let criteria = SearchCriteria(
          text: Self.randomQuery(using: &random),
          tokens: EnginePropertyTests.randomTokens(using: &random),
          scopeIndex: Int.random(in: 0..<5, using: &random),
          sort: Int.random(in: 0..<4, using: &random) == 0 ? SearchSort("year") : nil)
        if ResolvedCriteria(criteria, schema: schema).allTerms.contains(where: {
          $0.alternatives != nil
        }) {
          withAlternatives += 1
        }
        collection.filter(by: criteria)
        let expected =
          criteria.sort == nil
          ? reference.rows(items: items, criteria: criteria)
          : SortTests.sorted(
            reference.rows(items: items, criteria: criteria), items: items, by: SearchSort("year"))
        #expect(collection.rows == expected, "round \(round): \(criteria)")
        #expect(collection.indicator.matchCount == expected.count)
      }
    }
    #expect(withAlternatives > 1000)
  }

  @Test(
    "typing a query with alternatives, and back, agrees with searching from scratch", .tags(.large),
    .notInFastRun)
  func typingMatchesReference() throws {
    var random = SplitMix64(seed: 4242)
    let schema = EnginePropertyTests.schema
    let reference = ReferenceMatcher(schema: schema)
    for _ in 0..<80 {
      let items = (0..<30).map { EnginePropertyTests.randomItem($0, using: &random) }
      var collection = try FilteredCollection(schema: schema, items: items)
      let query = Self.randomQuery(using: &random)
      var typed = ""
      for character in query + String(repeating: "\u{8}", count: query.count) {
        if character == "\u{8}" { typed.removeLast() } else { typed.append(character) }
        let criteria = SearchCriteria(text: typed)
        collection.filter(by: criteria)
        #expect(collection.rows == reference.rows(items: items, criteria: criteria), "\(typed)")
      }
    }
  }

  @Test("edits under a query with alternatives land where a search from scratch puts them")
  func editsMatchReference() throws {
    var random = SplitMix64(seed: 5151)
    let schema = EnginePropertyTests.schema
    let reference = ReferenceMatcher(schema: schema)
    for _ in 0..<40 {
      var items = (0..<20).map { EnginePropertyTests.randomItem($0, using: &random) }
      var collection = try FilteredCollection(schema: schema, items: items)
      let criteria = SearchCriteria(text: Self.randomQuery(using: &random))
      collection.filter(by: criteria)
      for step in 0..<20 {
        let before = Array(collection.rows)
        let changes: RowChanges
        if Bool.random(using: &random) || items.isEmpty {
          let item = EnginePropertyTests.randomItem(100 + step, using: &random)
          items.append(item)
          changes = try collection.add(item)
        } else {
          let position = Int.random(in: 0..<items.count, using: &random)
          var item = EnginePropertyTests.randomItem(0, using: &random)
          item.id = items[position].id
          items[position] = item
          changes = try collection.update(item)
        }
        #expect(collection.rows == reference.rows(items: items, criteria: criteria), "\(criteria)")
        for item in items {
          #expect(collection.row(of: item.id) == collection.rows.firstIndex(of: item.id))
        }
        #expect(changes.applied(to: before) { collection.rows[$0] } == collection.rows)
      }
    }
  }

  @Test(
    "many matches: the first page, a later page and the whole list follow the reference",
    arguments: ["a | b", "ro | da", "red | 2007", "app OR -a", "b | ss", "l | red"])
  func manyMatches(query: String) throws {
    var random = SplitMix64(seed: 7373)
    var schema = EnginePropertyTests.schema
    schema.synonyms = Synonyms([.init(group: ["pie", "apple"]), .init(["red"], to: ["rose"])])
    let items = (0..<3_000).map { EnginePropertyTests.randomItem($0, using: &random) }
    let reference = ReferenceMatcher(schema: schema).rows(
      items: items, criteria: SearchCriteria(text: query))
    #expect(reference.count > 520, "the first rows are cut from many")
    for sort in [nil, SearchSort("year", descending: true)] {
      var collection = try FilteredCollection(schema: schema, items: items)
      collection.filter(by: SearchCriteria(text: query, sort: sort))
      let expected =
        sort == nil ? reference : SortTests.sorted(reference, items: items, by: sort!)
      // The first page, then a page far past the rows first put in order, then all.
      #expect(Array(collection.rows.prefix(20)) == Array(expected.prefix(20)), "\(query)")
      #expect(Array(collection.rows[500..<520]) == Array(expected[500..<520]), "\(query)")
      #expect(Array(collection.rows) == expected, "\(query) \(String(describing: sort))")
    }
  }

  @Test("each item is ranked, explained and highlighted by the alternative that matched it")
  func rankedAndHighlighted() throws {
    var collection = try FilteredCollection(
      schema: Self.schema, items: try SeedCatalog.products.load().items)
    collection.filter(by: SearchCriteria(text: "rose | tulip"))
    let titles = collection.rows.map { collection.item(id: $0)?["title"]?.strings.first ?? "" }
    // "Tulip" equals the alternative "tulip"; the roses only start a word.
    #expect(titles == ["Tulip", "Red Rose", "White Rose"])
    let first = try #require(collection.explanation(forRow: 0))
    #expect(first.rank.exactness == .equalsQuery)
    #expect(first.aheadOfNext == "exactness")
    let rose = try #require(collection.item(id: collection.rows[1]))
    let text = rose["title"]?.strings.first ?? ""
    let ranges = collection.highlightRanges(in: text, field: "title", of: rose)
    #expect(ranges.map { String(text[$0]) } == ["Rose"])
    // Facets and counts follow the union.
    #expect(collection.indicator.matchCount == 3)
    #expect(collection.facets.categories == ["funerals": 2, "weddings": 1])
    #expect(collection.facets.scopes == [3, 0, 1, 2])
  }
}
