import SiftTestSupport
import Testing

@testable import Sift

/// A base filter (a tenant's rows) is searched as a token is, and the page around its rows is
/// said of them alone: the reference is the same search with the filter as the searcher's own
/// token, and the catalog's items counted by hand.
@Suite("Base filter", .tags(.unit), .tags(.unit))
struct BaseFilterTests {
  static let categories = ["Chocolate", "Hard", "Other"]
  /// Every prefix of every word of the candies, a few misspellings and a negation.
  static let queries: [String] = {
    let words = [
      "chocolate", "bar", "chip", "dark", "lollipop", "candy", "cane", "jaw", "breaker",
      "caramel", "sour", "chew", "gummi", "bear", "floss", "coin", "egg", "jelly", "beans",
      "liquorice", "toffee", "apple",
    ]
    let prefixes = Set(words.flatMap { word in (1...word.count).map { String(word.prefix($0)) } })
    return [""] + prefixes.sorted() + ["chocolat bar", "carmel", "lolipop", "candy -cane", "c a"]
  }()

  static func request(
    _ text: String, tokens: [String] = [], base: [String] = []
  ) throws -> SearchRequest {
    try SearchRequest(
      SearchRequestInput(text: text, tokens: tokens, base: base),
      schema: SeedCatalog.candies.load().schema)
  }

  @Test("rows and their order are those of the same filter as a token", arguments: categories)
  func rowsAsAToken(category: String) throws {
    let document = try SeedCatalog.candies.load()
    let collection = try document.makeCollection()
    let inCategory = document.items.filter { $0["category"]?.strings == [category] }.count
    for text in Self.queries {
      let framed = try Self.request(text, base: ["category:\(category)"])
      let owned = try Self.request(text, tokens: ["category:\(category)"])
      let searched = collection.searched(framed)
      #expect(
        Array(searched.rows) == Array(collection.searched(owned).rows), "query \"\(text)\"")
      let page = searched.page(PageRequest(limit: 20, explain: true), answering: framed)
      #expect(page.indicator.totalCount == inCategory, "query \"\(text)\"")
      #expect(page.indicator.isFiltering == !text.isEmpty, "query \"\(text)\"")
      // The frame is not what was searched for: never marked, never a place in the catalog.
      for result in page.results {
        #expect(
          !result.fields.contains { $0.name == "category" && !$0.highlights.isEmpty },
          "query \"\(text)\": \(result.item.id)")
        #expect(result.explanation?.hidesCatalogOrder == true)
      }
    }
  }

  @Test("a search refined from the one before gives what a fresh search gives")
  func refined() throws {
    let collection = try SeedCatalog.candies.load().makeCollection()
    var typed = collection
    for length in 1..."chocolate c".count {
      let request = try Self.request(
        String("chocolate c".prefix(length)), base: ["category:Chocolate"])
      typed = typed.searched(request)
      let fresh = collection.searched(request)
      #expect(Array(typed.rows) == Array(fresh.rows))
      #expect(typed.visibleCount == 5 && fresh.visibleCount == 5)
    }
  }

  @Test("tokens offered and did you mean come from the base filter's rows")
  func offeredAndDidYouMean() throws {
    let collection = try SeedCatalog.candies.load().makeCollection()
    let everyone = try Self.request("#")
    let offered = collection.searched(everyone).page(PageRequest(limit: 0), answering: everyone)
    #expect(offered.suggestions.count == 3)
    // Hard's rows hold no chocolate and no other category: nothing to offer.
    let framed = try Self.request("#", base: ["category:Hard"])
    let none = collection.searched(framed).page(PageRequest(limit: 0), answering: framed)
    #expect(none.suggestions.isEmpty)

    // "carmel" under the Chocolate scope finds nothing; the nearest word is Other's caramel.
    func didYouMean(base: [String]) throws -> String? {
      let request = try SearchRequest(
        SearchRequestInput(text: "carmel", scope: "Chocolate", base: base),
        schema: SeedCatalog.candies.load().schema)
      let page = collection.searched(request).page(PageRequest(limit: 1), answering: request)
      #expect(page.indicator.isNoResults)
      return page.didYouMean
    }
    #expect(try didYouMean(base: []) == "caramel")
    #expect(try didYouMean(base: ["category:Other"]) == "caramel")
    // A searcher who sees only the hard candies is not told of a word of others' rows.
    #expect(try didYouMean(base: ["category:Hard"]) == nil)
  }

  @Test("the searcher's own token of the framing category is marked")
  func ownTokenMarked() throws {
    let collection = try SeedCatalog.candies.load().makeCollection()
    let request = try Self.request(
      "bar", tokens: ["category:Chocolate"], base: ["category:Chocolate"])
    let page = collection.searched(request).page(PageRequest(limit: 5), answering: request)
    #expect(page.results.map(\.item.id.rawValue) == ["1"])
    #expect(page.results[0].fields.contains { $0.name == "category" && !$0.highlights.isEmpty })
  }

  @Test("an unknown category is said by the page that it empties")
  func unknownCategory() throws {
    let collection = try SeedCatalog.candies.load().makeCollection()
    let request = try Self.request("bar", tokens: ["category:Chocolat"])
    let page = collection.searched(request).page(PageRequest(limit: 5), answering: request)
    #expect(page.indicator.isNoResults)
    #expect(
      page.unknownCategory?.description
        == #"unknown category "Chocolat" in token "category:Chocolat": no item of catalog candies has it (e.g. category:Chocolate, category:Hard, category:Other)"#
    )
    let known = try Self.request("zzz", tokens: ["category:Chocolate"])
    #expect(
      collection.searched(known).page(PageRequest(limit: 5), answering: known).unknownCategory
        == nil)
  }
}
