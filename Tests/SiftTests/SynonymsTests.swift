import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// Synonyms: groups and one-way rules, expanded into alternatives, ranked after what was typed,
/// checked against `ReferenceMatcher`'s plain rule.
@Suite("Synonyms", .tags(.unit))
struct SynonymsTests {
  static let synonyms = Synonyms([
    .init(group: ["sofa", "couch", "settee"]),
    .init(group: ["NY", "New York"]),
    .init(["phone"], to: ["iphone"]),
  ])

  static func spell(_ text: String, _ synonyms: Synonyms = Self.synonyms) -> [String] {
    let schema = QueryParserTests.schema
    return synonyms.expanding(Query(parsing: text, schema: schema).terms).map(
      QueryParserTests.spell)
  }

  @Test(
    "a term or a run of terms equal to an expression is offered with what it finds",
    arguments: [
      ("sofa", ["(\"sofa\" | \"couch\" | \"settee\")"]),
      ("red Couch", ["\"red\"", "(\"couch\" | \"sofa\" | \"settee\")"]),
      ("ny", ["(\"ny\" | \"new york\" phrase)"]),
      ("new york pizza", ["(\"new\" \"york\" | \"ny\")", "\"pizza\""]),
      ("\"new york\"", ["(\"new york\" phrase | \"ny\")"]),
      ("phone", ["(\"phone\" | \"iphone\")"]),
      // One way only, and only whole expressions.
      ("iphone", ["\"iphone\""]),
      ("sof", ["\"sof\""]),
      ("new", ["\"new\""]),
      ("-sofa", ["-\"sofa\""]),
      ("title:sofa", ["title:\"sofa\""]),
      ("sofa | chair", ["((\"sofa\" | \"couch\" | \"settee\") | \"chair\")"]),
    ])
  func expands(text: String, expected: [String]) {
    #expect(Self.spell(text) == expected)
  }

  @Test(
    "an entry that cannot work is refused with what to do",
    arguments: [
      (
        Synonyms.Entry(group: ["sofa"]),
        "a synonym group needs two expressions or more (`sofa couch`); for one that only finds another, use `--to`"
      ),
      (Synonyms.Entry(group: ["sofa", "Sofa"]), "\"Sofa\" is named twice"),
      (Synonyms.Entry(group: ["sofa", " "]), "the expression \" \" has no searchable characters"),
      (
        Synonyms.Entry(["phone"], to: []),
        "a one-way synonym needs an expression and what it finds (`phone --to iphone`)"
      ),
    ])
  func refused(entry: Synonyms.Entry, problem: String) {
    #expect(Synonyms.problem(with: entry) == problem)
  }

  @Test("they are kept in the schema's JSON, and a schema without them reads as before")
  func coding() throws {
    var schema = QueryParserTests.schema
    let plain = try JSONEncoder().encode(schema)
    #expect(!String(decoding: plain, as: UTF8.self).contains("synonyms"))
    schema.synonyms = Self.synonyms
    let data = try JSONEncoder().encode(schema)
    #expect(try JSONDecoder().decode(CatalogSchema.self, from: data).synonyms == Self.synonyms)
    #expect(try JSONDecoder().decode(CatalogSchema.self, from: plain).synonyms.isEmpty)
  }

  @Test(
    "a synonym is a finished expression: whole words, ranked with what was typed when it is all"
  )
  func rankedAfterTyped() throws {
    var collection = try FilteredCollection(
      schema: QueryParserTests.schema, items: try SeedCatalog.products.load().items)
    collection.synonyms = Synonyms([.init(group: ["flower", "rose"])])
    collection.filter(by: SearchCriteria(text: "flower"))
    func titles() -> [String] {
      collection.rows.map { collection.item(id: $0)?["title"]?.strings.first ?? "" }
    }
    // The query is the synonym: the roses rank with its own matches, at word starts, before
    // Sunflower, which holds "flower" only inside a word.
    #expect(titles() == ["Red Rose", "White Rose", "Sunflower"])
    let rose = try #require(collection.explanation(forRow: 0))
    #expect(rose.synonym == "flower → rose" && !rose.rank.viaSynonym)
    #expect(rose.highlights.first?.ranges.map { String(rose.highlights[0].value[$0]) } == ["Rose"])
    let last = try #require(collection.explanation(forRow: 1))
    #expect(last.aheadOfNext == "word start")
    // A synonym matches whole words only: "rose" finds the roses, and "flower" as a word —
    // never Sunflower, where it is part of a word.
    collection.filter(by: SearchCriteria(text: "rose"))
    #expect(titles() == ["Red Rose", "White Rose"])
    // Beside a word typed, a synonym ranks after what was typed.
    collection.synonyms = Synonyms([
      .init(group: ["flower", "rose"]), .init(group: ["red", "white"]),
    ])
    collection.filter(by: SearchCriteria(text: "red rose"))
    #expect(titles() == ["Red Rose", "White Rose"])
    let white = try #require(collection.explanation(forRow: 1))
    #expect(white.synonym == "red → white" && white.rank.viaSynonym)
    #expect(try #require(collection.explanation(forRow: 0)).aheadOfNext == "synonym")
    // Setting synonyms searches again: without them, only Sunflower.
    collection.synonyms = Synonyms()
    collection.filter(by: SearchCriteria(text: "flower"))
    #expect(collection.rows.count == 1)
  }

  @Test("ny = new york: no prefixes in the expansion, and \"ny\" ranks New York on its own")
  func expressionsNotPrefixes() throws {
    let items = [
      RelevanceTests.item("nyack", "Nyack", population: 7_000),
      RelevanceTests.item("nyir", "Nyíregyháza", population: 116_000),
      RelevanceTests.item("sunny", "Sunnyvale", population: 150_000),
      RelevanceTests.item("nyc", "New York", alternates: ["New York City"], population: 8_000_000),
    ]
    var collection = try FilteredCollection(schema: RelevanceTests.schema(), items: items)
    collection.synonyms = Synonyms([.init(group: ["ny", "new york"])])
    // Finished, "new york" also finds what "ny" is a whole word of: nothing here.
    collection.filter(by: SearchCriteria(text: "new york "))
    #expect(collection.rows == ["nyc"])
    // "ny" means New York as much as the names that start with it; the most popular first.
    collection.filter(by: SearchCriteria(text: "ny"))
    #expect(collection.rows.first == "nyc")
    #expect(Set(collection.rows) == ["nyc", "nyack", "nyir", "sunny"])
    let reference = ReferenceMatcher(
      schema: {
        var schema = RelevanceTests.schema()
        schema.synonyms = collection.synonyms
        return schema
      }())
    for text in ["new york ", "ny", "ny "] {
      collection.filter(by: SearchCriteria(text: text))
      #expect(reference.rows(items: items, criteria: SearchCriteria(text: text)) == collection.rows)
    }
  }

  /// Random synonyms over the property tests' words.
  static func randomSynonyms(using random: inout SplitMix64) -> Synonyms {
    let expressions = [
      "red", "rose", "da nang", "apple", "pie", "ss", "2007", "lodz", "ab", "red rose", "app",
    ]
    var entries: [Synonyms.Entry] = []
    for _ in 0..<Int.random(in: 1...3, using: &random) {
      let picked = Array(expressions.shuffled(using: &random).prefix(3))
      entries.append(
        Bool.random(using: &random)
          ? .init(group: Array(picked.prefix(Int.random(in: 2...3, using: &random))))
          : .init([picked[0]], to: [picked[1]]))
    }
    return Synonyms(entries)
  }

  @Test(
    "search with random synonyms agrees with the reference, typed and refined", .tags(.large),
    .notInFastRun)
  func matchesReference() throws {
    let seed: UInt64 = 6161
    print("SynonymsTests seed \(seed)")
    var random = SplitMix64(seed: seed)
    var schema = EnginePropertyTests.schema
    var expanded = 0
    for round in 0..<120 {
      schema.synonyms = Self.randomSynonyms(using: &random)
      let reference = ReferenceMatcher(schema: schema)
      let items = (0..<Int.random(in: 0...40, using: &random)).map {
        EnginePropertyTests.randomItem($0, using: &random)
      }
      var collection = try FilteredCollection(schema: schema, items: items)
      for _ in 0..<8 {
        let query =
          Bool.random(using: &random)
          ? AlternativesTests.randomQuery(using: &random)
          : EnginePropertyTests.randomQuery(using: &random)
        var typed = ""
        // Letter by letter: a word that grows into an expression must not refine.
        for character in query {
          typed.append(character)
          let criteria = SearchCriteria(text: typed)
          collection.filter(by: criteria)
          #expect(
            collection.rows == reference.rows(items: items, criteria: criteria),
            "round \(round) \(schema.synonyms.entries.map(\.description)): \(typed)")
        }
        if ResolvedCriteria(SearchCriteria(text: query), schema: schema).usesSynonyms {
          expanded += 1
        }
      }
    }
    #expect(expanded > 100, "\(expanded) queries used synonyms")
  }
}
