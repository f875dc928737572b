import SiftTestSupport
import Testing

@testable import Sift

@Suite("Facet counts")
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

  @Test("every count equals the rows that scope or token really shows (random catalogs, typos)")
  func equalsFiltering() throws {
    let seed: UInt64 = 7_411
    var random = SplitMix64(seed: seed)
    let schema = EnginePropertyTests.schema
    let items = (0..<400).map { EnginePropertyTests.randomItem($0, using: &random) }
    let collection = try FilteredCollection(schema: schema, items: items)
    let texts = [
      "", "a", "ap", "apple", "appel", "red -ap", "year:>2006", "strase", "tags:b", "nang", "zz",
      // Found only inside words: exact matches that do not hold near spellings back.
      "rasse", "pple", "pple -red",
    ]
    for text in texts {
      for scope in schema.scopes.indices {
        var current = collection
        current.filter(by: SearchCriteria(text: text, scopeIndex: scope))
        let facets = current.facets
        for other in schema.scopes.indices {
          var shown = collection
          shown.filter(by: SearchCriteria(text: text, scopeIndex: other))
          #expect(facets.scopes[other] == shown.rows.count, "\(text) scope \(scope) → \(other)")
        }
        for category in ["fruit", "tool", "toy"] {
          var shown = current
          let token = SearchToken(text: category, identifier: "category:\(category)")
          shown.filter(by: SearchCriteria(text: text, tokens: [token], scopeIndex: scope))
          #expect(facets.count(ofCategory: category) == shown.rows.count, "\(text) \(category)")
        }
      }
    }
  }

  @Test("a category whose exact matches are all inside words counts its near spellings")
  func infixMatchesDoNotCount() throws {
    let schema = EnginePropertyTests.schema
    let items = [
      Item(id: "1", fields: ["title": .text("Xapple"), "kind": .text("Fruit")]),
      Item(id: "2", fields: ["title": .text("Appel"), "kind": .text("Fruit")]),
      Item(id: "3", fields: ["title": .text("Apple"), "kind": .text("Tool")]),
    ]
    var collection = try FilteredCollection(schema: schema, items: items)
    collection.filter(by: SearchCriteria(text: "apple"))
    #expect(collection.rows == ["3", "1"])
    // Fruit alone: "apple" only inside a word, so that search shows near spellings too.
    var fruit = collection
    fruit.filter(by: SearchCriteria(text: "apple", scopeIndex: 1))
    #expect(fruit.rows.count == 2 && fruit.includesNearSpellings)
    #expect(collection.facets.count(ofCategory: "fruit") == 2)
    #expect(collection.facets.scopes[1] == 2)
    #expect(collection.facets.count(ofCategory: "tool") == 1)
  }
}
