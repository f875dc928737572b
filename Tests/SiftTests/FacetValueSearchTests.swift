import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// Search within a category's values (`Facets.categories(matching:schema:limit:)`): the values
/// whose words start with each typed word, in order, folded — checked against the test's own
/// reading of that rule — else those within the typo budget; counts of the current search.
@Suite("Searching a category's values", .tags(.unit))
struct FacetValueSearchTests {
  static let names = [
    "France", "French Guiana", "Côte d'Ivoire", "United States", "United Kingdom",
    "United Arab Emirates", "Łódź Voivodeship", "São Tomé and Príncipe", "Germany", "Ghana",
    "Straße", "Đà Nẵng", "서울", "Saint-Pierre", "St. Lucia",
  ]
  static let typed = [
    "", "f", "fr", "fra", "french", "u", "uni", "united s", "u k", "cote", "côte", "ivoire",
    "d'iv", "lodz", "łódź", "sao t", "strasse", "da nang", "da n", "서", "saint p", "st", "g",
    "ge", "zz", "kingdom u",
  ]

  /// The test's reading: the folded words of `text`, split at every character that is not a
  /// letter or a digit.
  static func words(_ text: String) -> [String] {
    TextFolding.fold(text).split { !$0.isLetter && !$0.isNumber }.map(String.init)
  }

  /// Whether each typed word starts a word of `name`, in order.
  static func matches(_ name: String, typed: String) -> Bool {
    var rest = words(name)[...]
    for word in words(typed) {
      guard let found = rest.firstIndex(where: { $0.hasPrefix(word) }) else { return false }
      rest = rest[(found + 1)...]
    }
    return true
  }

  @Test("as written: the values the test's own rule keeps, most results first, ties by name")
  func asWritten() {
    let seed: UInt64 = 20_261_128
    print("facet values seed \(seed)")
    var random = SplitMix64(seed: seed)
    let schema = CatalogSchema(
      name: "places", fields: [.text("title"), .category("country")], titleField: "title",
      categoryField: "country", categories: Self.names)
    for round in 0..<300 {
      var counts: [String: Int] = [:]
      for name in Self.names where Bool.random(using: &random) {
        counts[TextFolding.fold(name)] = Int.random(in: 1...4, using: &random)
      }
      let facets = Facets(scopes: [], categories: counts)
      let text = Self.typed.randomElement(using: &random)!
      let expected = Self.names.filter {
        counts[TextFolding.fold($0)] != nil && Self.matches($0, typed: text)
      }.sorted { (counts[TextFolding.fold($1)]!, $0) < (counts[TextFolding.fold($0)]!, $1) }
      let found = facets.categories(matching: text, schema: schema)
      if !expected.isEmpty {
        #expect(found.map(\.value) == expected, "round \(round): \"\(text)\" in \(counts)")
        #expect(found.map(\.count) == expected.map { counts[TextFolding.fold($0)]! })
      } else {
        // None as written: only near spellings, never a value the rule keeps.
        #expect(found.allSatisfy { !Self.matches($0.value, typed: text) })
      }
      let limit = Int.random(in: 1...3, using: &random)
      #expect(
        facets.categories(matching: text, schema: schema, limit: limit).map(\.value)
          == Array(found.prefix(limit)).map(\.value))
    }
  }

  @Test(
    "near spellings only when none matches as written, within a search's typo budget",
    arguments: [
      ("frnace", ["France"]),  // a swap: one edit
      ("gremany", ["Germany"]),
      ("unted stat", ["United States"]),
      ("xrance", []),  // an edit of the first letter counts twice
      ("fran", ["France"]),  // as written: French Guiana is not offered
      ("frn", []),  // three letters: no typo
      ("kingdon", ["United Kingdom"]),
    ])
  func nearSpellings(text: String, expected: [String]) {
    let schema = CatalogSchema(
      name: "places", fields: [.text("title"), .category("country")], titleField: "title",
      categoryField: "country", categories: Self.names)
    let facets = Facets(
      scopes: [],
      categories: Dictionary(uniqueKeysWithValues: Self.names.map { (TextFolding.fold($0), 1) }))
    #expect(facets.categories(matching: text, schema: schema).map(\.value) == expected)
  }

  @Test("the counts are the current search's: a category without a result is not offered")
  func countsOfTheSearch() throws {
    var random = SplitMix64(seed: 12)
    let items = (0..<200).map { EnginePropertyTests.randomItem($0, using: &random) }
    var collection = try FilteredCollection(schema: EnginePropertyTests.schema, items: items)
    for text in ["", "red", "rose", "zzz"] {
      collection.filter(by: SearchCriteria(text: text))
      let rows = Set(collection.rows)
      var expected: [String: Int] = [:]
      for item in items where rows.contains(item.id) {
        if let kind = item["kind"]?.displayText {
          expected[TextFolding.fold(kind), default: 0] += 1
        }
      }
      let found = collection.facets.categories(
        matching: "", schema: EnginePropertyTests.schema)
      #expect(
        Dictionary(uniqueKeysWithValues: found.map { (TextFolding.fold($0.value), $0.count) })
          == expected, "\(text)")
      #expect(found.allSatisfy { $0.count > 0 })
      // The catalog's spelling: "Fruit" though some items say "fruit".
      #expect(found.allSatisfy { ["Fruit", "Tool"].contains($0.value) })
      #expect(
        collection.facets.categories(matching: "fru", schema: EnginePropertyTests.schema).map(
          \.value) == (expected["fruit"] == nil ? [] : ["Fruit"]))
    }
  }

  @Test("#word offers a category within the typo budget when none starts with it")
  func tokenSuggestions() {
    let schema = CatalogSchema(
      name: "candies", fields: [.text("name"), .category("category")], titleField: "name",
      categoryField: "category", categories: ["Chocolate", "Hard", "Other"])
    #expect(schema.suggestedTokens(forText: "#cho", excluding: []).map(\.text) == ["Chocolate"])
    #expect(
      schema.suggestedTokens(forText: "#chocolte", excluding: []).map(\.text) == ["Chocolate"])
    #expect(schema.suggestedTokens(forText: "#xhocolatx", excluding: []).isEmpty)
    #expect(schema.suggestedTokens(forText: "zzzz", excluding: []).isEmpty)
  }

  struct Book: Identifiable, Sendable {
    var id: Int
    var title: String
    var genre: String
  }

  @Test("SearchModel.categories(matching:): the genres of the results, typed for")
  @MainActor
  func model() throws {
    let schema = try SearchSchema<Book>(
      title: .text("title", \.title), fields: [.category("genre", \.genre)])
    let model = try SearchModel(
      [
        Book(id: 1, title: "Emma", genre: "Romance"),
        Book(id: 2, title: "Dracula", genre: "Horror"),
        Book(id: 3, title: "Persuasion", genre: "Romance"),
        Book(id: 4, title: "Rebecca", genre: "Romantic suspense"),
      ], schema: schema)
    #expect(model.categories(matching: "rom").map(\.value) == ["Romance", "Romantic suspense"])
    #expect(model.categories(matching: "rom").map(\.count) == [2, 1])
    #expect(model.categories(matching: "horor").map(\.value) == ["Horror"])
    model.isPresented = true
    model.text = "e"
    // Emma, Persuasion?, Rebecca: what "e" finds, counted by genre.
    let found = Dictionary(
      uniqueKeysWithValues: model.categories(matching: "").map { ($0.value, $0.count) })
    var expected: [String: Int] = [:]
    for book in model.results { expected[book.genre, default: 0] += 1 }
    #expect(found == expected)
  }
}
