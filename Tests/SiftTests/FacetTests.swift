import SiftTestSupport
import Testing

@testable import Sift

@Suite("Facet counts", .tags(.unit))
struct FacetTests {
  @Test("CandySearch: All 15 · Chocolate 5 · Hard 4 · Other 6, then for a query")
  func candies() throws {
    var candies = try SearchCollection(Candy.all, schema: Candy.schema.get())
    let titles = candies.schema.scopeTitles
    #expect(
      candies.facets.summary(scopeTitles: titles) == "All 15 · Chocolate 5 · Hard 4 · Other 6")
    candies.filter(by: SearchCriteria(text: "c", scopeIndex: 1))
    #expect(
      candies.facets.summary(scopeTitles: titles) == "All 10 · Chocolate 5 · Hard 1 · Other 4")
    // Tokens add to the scope in force: only Chocolate's token shows anything here.
    #expect(candies.facets.count(ofCategory: "chocolate") == 5)
    #expect(candies.facets.count(ofCategory: "Hard") == 0)
  }

  /// Counts describe what is shown: a category's count (its scope button, its token) is how
  /// many of the rows shown under All are in it, so the counts add up to All's; a field scope's
  /// and All's count are what that scope really shows.
  @Test(
    "every count is what is shown: rows under All by category, a scope's own rows (random catalogs, typos)"
  )
  func equalsFiltering() throws {
    let seed: UInt64 = 7_411
    print("FacetTests seed \(seed)")
    var random = SplitMix64(seed: seed)
    let schema = EnginePropertyTests.schema
    let items = (0..<400).map { EnginePropertyTests.randomItem($0, using: &random) }
    let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
    let collection = try FilteredCollection(schema: schema, items: items)
    let texts = [
      "", "a", "ap", "apple", "appel", "red -ap", "year:>2006", "strase", "tags:b", "nang", "zz",
      // Found only inside words: exact matches that do not hold near spellings back.
      "rasse", "pple", "pple -red",
    ]
    for text in texts {
      var all = collection
      all.filter(by: SearchCriteria(text: text, scopeIndex: 0))
      let kinds = all.rows.map { byID[$0]?["kind"]?.displayText.lowercased() ?? "" }
      for scope in schema.scopes.indices {
        var current = collection
        current.filter(by: SearchCriteria(text: text, scopeIndex: scope))
        let facets = current.facets
        for other in schema.scopes.indices {
          switch schema.scopes[other].filter {
          case .category(let value):
            #expect(
              facets.scopes[other] == kinds.filter { $0 == value.lowercased() }.count,
              "\(text) scope \(scope) → \(other)")
          default:
            var shown = collection
            shown.filter(by: SearchCriteria(text: text, scopeIndex: other))
            #expect(facets.scopes[other] == shown.rows.count, "\(text) scope \(scope) → \(other)")
          }
        }
        // Under All the categories are counted among its rows; a token adds to another scope
        // in force (not checked here).
        for category in ["fruit", "tool", "toy"] where scope == 0 {
          #expect(
            facets.count(ofCategory: category) == kinds.filter { $0 == category }.count,
            "\(text) \(category)")
        }
        if scope == 0 {
          let uncategorized = kinds.filter { $0.isEmpty }.count
          #expect(
            facets.categories.values.reduce(0, +) + uncategorized == all.rows.count, "\(text)")
        }
      }
    }
  }

  @Test(
    "a category whose only match is a near spelling counts nothing while exact matches are shown")
  func countsAddUp() throws {
    let schema = EnginePropertyTests.schema
    let items = [
      Item(id: "1", fields: ["title": .text("Xapple"), "kind": .text("Fruit")]),
      Item(id: "2", fields: ["title": .text("Appel"), "kind": .text("Fruit")]),
      Item(id: "3", fields: ["title": .text("Apple"), "kind": .text("Tool")]),
    ]
    var collection = try FilteredCollection(schema: schema, items: items)
    collection.filter(by: SearchCriteria(text: "apple"))
    #expect(collection.rows == ["3", "1"])
    // What is shown: Apple (Tool) and Xapple (Fruit); Appel, a near spelling, is not.
    #expect(collection.facets.count(ofCategory: "fruit") == 1)
    #expect(collection.facets.scopes == [2, 1, 1, 0, 0])
    #expect(collection.facets.count(ofCategory: "tool") == 1)
    // Nothing exact at all: the near spellings are what is shown, and what is counted.
    collection.filter(by: SearchCriteria(text: "aple"))
    #expect(collection.includesNearSpellings)
    #expect(
      collection.facets.count(ofCategory: "fruit") + collection.facets.count(ofCategory: "tool")
        == collection.rows.count)
  }
}
