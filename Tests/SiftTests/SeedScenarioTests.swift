import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// The four seed tutorials, played through SearchController on the built-in data.
@Suite("Seed scenarios", .tags(.unit))
struct SeedScenarioTests {
  // MARK: CandySearch (seed 002)

  @Test("CandySearch: caramel under All, gone under Chocolate")
  func candyCaramel() throws {
    var search = try Fixtures.activeController(.candies)
    #expect(search.scopeTitles == ["All", "Chocolate", "Hard", "Other"])
    #expect(search.placeholder == "Search candies")
    #expect(search.type("caramel") == ["Caramel"])
    #expect(search.indicator.text == "1 item found")
    #expect(search.indicator.summary == "Filtering 1 of 15")
    search.send(.selectScope(1))
    #expect(search.titles == [])
    #expect(search.indicator.isNoResults)
    #expect(search.indicator.text == "No items match your query")
    search.send(.selectScope(3))
    #expect(search.titles == ["Caramel"])
  }

  @Test("CandySearch: a scope alone filters; inactive shows everything")
  func candyScopes() throws {
    var search = SearchController(collection: try Fixtures.collection(.candies))
    #expect(!search.isFiltering)
    #expect(search.rows.count == 15)
    #expect(search.indicator.text == "15 items")
    search.send(.selectScope(2))
    #expect(!search.isFiltering, "not active: the scope bar is not even shown")
    #expect(search.rows.count == 15)
    search.send(.focus)
    #expect(search.isFiltering)
    #expect(search.titles == ["Lollipop", "Candy Cane", "Jaw Breaker", "Toffee Apple"])
    #expect(search.indicator.summary == "Filtering 4 of 15")
    #expect(search.type("ca") == ["Candy Cane"])
  }

  @Test("CandySearch: ranked by the relevance rules, ties in catalog order")
  func candyRanking() throws {
    var search = try Fixtures.activeController(.candies)
    // "Dark Chocolate" has the match in its second word: after those that start with it.
    #expect(
      search.type("choc") == [
        "Chocolate Bar", "Chocolate Chip", "Chocolate Coin", "Chocolate Egg", "Dark Chocolate",
      ])
    #expect(search.type("ca") == ["Candy Cane", "Caramel", "Candy Floss"])
    #expect(search.type("ram") == ["Caramel"])
    #expect(search.collection.rank(atRow: 0)?.exactness == .substring)
    #expect(search.type("candy cane") == ["Candy Cane"])
    // Still typing: the title equal to the query is a start with a title's points.
    #expect(search.collection.rank(atRow: 0)?.exactness == .startsValue)
    #expect(search.type("candy cane ") == ["Candy Cane"])
    #expect(search.collection.rank(atRow: 0)?.exactness == .equalsQuery)
    #expect(search.type("cane candy") == ["Candy Cane"])
    #expect(search.collection.rank(atRow: 0)?.exactness == .wordStarts)
  }

  @Test("CandySearch: the detail view shows the filtered row's candy; cancel shows all")
  func candyDetailAndCancel() throws {
    var search = try Fixtures.activeController(.candies)
    _ = search.type("floss")
    let actions = search.send(.select(search.rows[0]))
    #expect(actions == [.selectionChanged(search.rows[0])])
    #expect(
      search.selection.flatMap { search.collection.item(id: $0) }?["name"] == .text("Candy Floss"))
    let cancel = search.send(.cancel)
    #expect(cancel == [.willDismiss, .didDismiss, .updateSearchResults])
    #expect(search.text.isEmpty && !search.isActive && !search.isFiltering)
    #expect(search.rows.count == 15)
    #expect(search.selection != nil, "the selected candy is still shown")
  }

  // MARK: The Apple sample (seed 001)

  @Test(
    "Apple sample: multi-word AND over title, year and price",
    arguments: [
      ("2007", ["Ginger", "Orchid", "Carnation White"]),
      ("16.99", ["Orchid", "Geranium", "Daisy"]),
      ("25", ["Sunflower", "Gardenia"]),
      ("25.00", ["Sunflower", "Gardenia"]),
      ("rose 2010", ["Red Rose"]),
      ("red 24.99", ["Red Rose"]),
      ("carnation 2007", ["Carnation White"]),
      ("red", ["Red Rose", "Carnation Red", "Poinsettia Red"]),
      ("red rose", ["Red Rose"]),
      ("rose red", ["Red Rose"]),
      ("ROSE", ["Red Rose", "White Rose"]),
      ("price:<20", ["Orchid", "Geranium", "Daisy"]),
      ("year:2006..2007 -carnation", ["Ginger", "Orchid", "Geranium", "Daisy", "Gardenia"]),
      ("\"red rose\"", ["Red Rose"]),
      ("\"rose red\"", []),
      ("1999", []),
    ])
  func appleSample(_ query: String, _ expected: [String]) throws {
    var search = try Fixtures.activeController(.products)
    #expect(search.type(query) == expected)
    let count = expected.count
    let indicator =
      count == 0
      ? "No items match your query" : count == 1 ? "1 item found" : "Items found: \(count)"
    #expect(search.indicator.text == indicator)
  }

  @Test("Apple sample: the search state is restored on relaunch")
  func appleRestoration() throws {
    var search = try Fixtures.activeController(.products)
    _ = search.type("rose")
    search.send(.selectScope(3))
    search.send(.select(search.rows[1]))
    search.send(.resignFocus)
    let saved = search.encodedSnapshot()

    var relaunched = SearchController(collection: try Fixtures.collection(.products))
    let problems = relaunched.restore(from: saved)
    #expect(problems.isEmpty)
    #expect(relaunched.snapshot == search.snapshot)
    #expect(relaunched.isActive && !relaunched.isFirstResponder)
    #expect(relaunched.text == "rose")
    #expect(relaunched.scopeTitles[relaunched.selectedScopeIndex] == "Funerals")
    #expect(relaunched.titles == ["Red Rose", "White Rose"])
    #expect(relaunched.selection == search.rows[1])
  }

  // MARK: Search tokens (seed 003)

  @Test("Tokens: inserted, removed, read back, ANDed with the text")
  func mediaTokens() throws {
    var search = try Fixtures.activeController(.media)
    let schema = search.schema
    let movies = schema.suggestedTokens[0]
    #expect(movies == SearchToken(text: "Movies", icon: "🎬", identifier: "category:Movies"))
    let since2010 = try #require(schema.extraTokens.first { $0.identifier == "year:>=2010" })

    let actions = search.insertToken(movies, at: 0)
    #expect(actions == [.updateSearchResults])
    #expect(search.rows.count == 14)
    search.insertToken(since2010, at: 5)  // past the end: appended
    #expect(search.tokens.map(\.identifier) == ["category:Movies", "year:>=2010"])
    #expect(
      search.titles == ["Parasite", "The Grand Budapest Hotel", "Arrival", "Moonlight", "Coco"])
    #expect(search.type("moon") == ["Moonlight"])
    #expect(search.tokens(in: 1..<9) == [since2010])
    #expect(search.tokens.first?.representedObject == "category:Movies")

    search.removeToken(at: 0)
    #expect(search.titles == ["Moonlight"], "Lemonade (2016) has no 'moon'")
    #expect(search.removeToken(at: 7) == [], "out of range: nothing happens")
    search.send(.setText(""))
    search.send(.deleteBackward)
    #expect(search.tokens.isEmpty, "Backspace in an empty field removes the last token")
    #expect(search.isFiltering == false)
  }

  @Test("Tokens: suggestions when the text names a category")
  func mediaSuggestions() throws {
    var search = try Fixtures.activeController(.media)
    search.send(.setText("jazz mov"))
    #expect(search.suggestions.map(\.text) == ["Movies"])
    search.send(.acceptSuggestion(0))
    #expect(search.text == "jazz ")
    #expect(search.tokens.map(\.text) == ["Movies"])
    search.send(.setText("#"))
    // Within Movies no music or document is left: those come last, after the year tokens.
    #expect(search.suggestions.map(\.text) == ["Since 2010", "Before 1980", "Music", "Documents"])
    search.send(.setText("#do"))
    #expect(search.suggestions.map(\.text) == ["Documents"])
    search.send(.setText("m"))
    #expect(search.suggestions.isEmpty, "one plain letter is too little to suggest")
    search.send(.setText("-mov"))
    #expect(search.suggestions.isEmpty)
  }

  /// The order of the tokens offered, against a reference that searches with each token: a
  /// category that keeps more results comes first, one that keeps none last, others between.
  @Test(
    "Tokens: offered most results first, as searching with each shows",
    arguments: [
      (SeedCatalog.candies, "#"), (.candies, "caramel #"), (.candies, "choc #"), (.candies, "o #"),
      (.media, "#"), (.media, "the #"), (.media, "19 #"), (.products, "#"), (.products, "rose #"),
      (.products, "20 #"),
    ])
  func suggestionOrder(_ catalog: SeedCatalog, _ text: String) throws {
    var search = try Fixtures.activeController(catalog)
    search.send(.setText(text))
    let offered = search.suggestions
    #expect(
      Set(offered.map(\.identifier))
        == Set(search.schema.suggestedTokens(forText: text, excluding: []).map(\.identifier)))
    func kept(_ token: SearchToken) throws -> Int? {
      guard token.identifier.hasPrefix("category:") else { return nil }
      var alone = try Fixtures.activeController(catalog)
      alone.send(.setText(CatalogSchema.textAcceptingSuggestion(text)))
      alone.send(.insertToken(token, at: 0))
      return alone.rows.count
    }
    let weights = try offered.map { try kept($0).map { $0 > 0 ? $0 : -1 } ?? 0 }
    #expect(weights == weights.sorted(by: >), "\(text): \(zip(offered.map(\.text), weights))")
    // Ties keep the catalog's order.
    let schemaOrder = search.schema.suggestedTokens(forText: text, excluding: []).map(\.identifier)
    for (a, b) in zip(offered.indices, offered.indices.dropFirst()) where weights[a] == weights[b] {
      #expect(
        schemaOrder.firstIndex(of: offered[a].identifier)!
          < schemaOrder.firstIndex(of: offered[b].identifier)!)
    }
  }

  @Test("Tokens: restored with the text and scope")
  func mediaTokenRestoration() throws {
    var search = try Fixtures.activeController(.media)
    search.insertToken(search.schema.suggestedTokens[1], at: 0)
    _ = search.type("bj")
    var relaunched = SearchController(collection: try Fixtures.collection(.media))
    #expect(relaunched.restore(search.snapshot).isEmpty)
    #expect(relaunched.tokens == search.tokens)
    #expect(relaunched.titles == ["Homogenic"])
  }

  @Test(
    "Folding in a real catalog",
    arguments: [
      ("da nang", ["Trip to Đà Nẵng — itinerary"]),
      ("서우", ["서울 여행 계획"]),
      ("ㅅㅇ", ["서울 여행 계획"]),
      ("krakow", ["Kraków walking tour"]),
      ("strasse", ["Straßenbahn timetable"]),
      ("smorrebrod", ["Recipe: Smørrebrød"]),
      ("amelie", ["Amélie"]),
      ("resume", ["Résumé"]),
      ("bjork", ["Homogenic"]),
      ("sigur ros", ["Ágætis byrjun"]),
    ])
  func folding(_ query: String, _ expected: [String]) throws {
    var search = try Fixtures.activeController(.media)
    #expect(search.type(query) == expected)
  }

  // MARK: FoodTracker (seed 004)

  @Test("FoodTracker: Name and Rating scopes")
  func mealScopes() throws {
    var search = try Fixtures.activeController(.meals)
    #expect(search.scopeTitles == ["Name", "Rating"])
    #expect(search.type("pasta") == ["Pasta with Meatballs"])
    #expect(search.type("4") == [], "under Name, 4 is text")
    search.send(.selectScope(1))
    #expect(search.titles == ["Caprese Salad"])
    #expect(search.type("pasta") == [])
    #expect(search.type("") == ["Caprese Salad", "Chicken and Potatoes", "Pasta with Meatballs"])
  }

  @Test("FoodTracker: edits while filtering keep both lists right")
  func mealEdits() throws {
    var search = try Fixtures.activeController(.meals)
    _ = search.type("chicken")
    let chicken = search.rows[0]
    // An edit that stops matching leaves the results.
    var edited = try #require(search.collection.item(id: chicken))
    edited["name"] = .text("Roast Beef")
    let leave = try search.update(edited)
    #expect(leave == RowChanges(deleted: [0]))
    #expect(search.rows.isEmpty)
    #expect(search.collection.totalCount == 3)
    // An added item that matches enters at its ranked place.
    let added = try search.add(
      Item(id: "soup", fields: ["name": .text("Chicken Soup"), "rating": .number(2)]))
    #expect(added == RowChanges(inserted: [0]))
    #expect(search.titles == ["Chicken Soup"])
    try search.add(
      Item(id: "pie", fields: ["name": .text("Pie with chicken"), "rating": .number(4)]))
    try search.add(Item(id: "chk", fields: ["name": .text("Chicken"), "rating": .number(5)]))
    #expect(search.titles == ["Chicken", "Chicken Soup", "Pie with chicken"])
    // Cancelling shows every meal, the edits included, in catalog order.
    search.send(.cancel)
    #expect(
      search.titles == [
        "Caprese Salad", "Roast Beef", "Pasta with Meatballs", "Chicken Soup", "Pie with chicken",
        "Chicken",
      ])
  }

  @Test("FoodTracker: deleting a filtered row deletes that meal, even with duplicate names")
  func mealDuplicateDelete() throws {
    var search = try Fixtures.activeController(.meals)
    try search.add(
      Item(id: "copy", fields: ["name": .text("Caprese Salad"), "rating": .number(1)]))
    _ = search.type("caprese")
    #expect(search.rows == ["1", "copy"])
    let changes = try search.deleteRow(1)
    #expect(changes == RowChanges(deleted: [1]))
    #expect(search.rows == ["1"])
    #expect(search.collection.item(id: "1")?["rating"] == .number(4))
    #expect(search.collection.item(id: "copy") == nil)
    #expect(throws: CatalogEditError.rowOutOfRange(5, rowCount: 1)) { try search.deleteRow(5) }
  }
}
