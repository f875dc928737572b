import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// A request is read once, below the UI (`SearchRequest`); the reference here is what the app
/// does with the same request typed and tapped: activate, choose the scope, insert each token,
/// type the text — one event at a time on a `SearchController`.
@Suite("SearchRequest", .tags(.unit))
struct SearchRequestTests {
  /// The UI's way, event by event: the reading must agree with it.
  static func replayed(_ input: SearchRequestInput, on catalog: SeedCatalog) throws
    -> SearchController
  {
    var controller = SearchController(collection: try Fixtures.collection(catalog))
    controller.send(.activate)
    if let scope = input.scope,
      let index = controller.scopeTitles.firstIndex(where: {
        $0.lowercased() == scope.lowercased()
      })
    {
      controller.send(.selectScope(index))
    }
    for (position, identifier) in input.tokens.enumerated() {
      let known = controller.schema.suggestedTokens.first { $0.identifier == identifier }
      controller.send(
        .insertToken(known ?? SearchToken(text: identifier, identifier: identifier), at: position))
    }
    controller.send(.setText(input.text))
    return controller
  }

  static let requests: [(SeedCatalog, SearchRequestInput)] = [
    (.candies, SearchRequestInput(text: "")),
    (.candies, SearchRequestInput(text: "choc")),
    (.candies, SearchRequestInput(text: "c #cho")),
    (.candies, SearchRequestInput(text: "#")),
    (.candies, SearchRequestInput(text: "bar ", scope: "chocolate")),
    (.candies, SearchRequestInput(text: "", scope: "Hard")),
    (.candies, SearchRequestInput(text: "ca", tokens: ["category:Other"])),
    (.products, SearchRequestInput(text: "rose", tokens: ["price:<20", "year:>=2010"])),
    (.products, SearchRequestInput(text: "-rose und", scope: "Funerals")),
    (.products, SearchRequestInput(text: "gingr")),
    (.media, SearchRequestInput(text: "#mo", tokens: ["year:>=2010"])),
    (.meals, SearchRequestInput(text: "\"fried rice\"")),
  ]

  @Test("reads a request as the app's events would leave the controller", arguments: requests)
  func readingAgreesWithEvents(catalog: SeedCatalog, input: SearchRequestInput) throws {
    let reference = try Self.replayed(input, on: catalog)
    let schema = try Fixtures.collection(catalog).schema
    let request = try SearchRequest(input, schema: schema)
    #expect(request.criteria == reference.criteria)
    #expect(request.isFiltering == reference.isFiltering)
    #expect(request.tokens == reference.tokens)
    #expect(request.scopeIndex == reference.selectedScopeIndex)
    // The request offers them in the catalog's order; a page orders them by its counts.
    #expect(reference.facets.ordering(request.suggestions) == reference.suggestions)

    // `apply` shows the same rows as the events, searched once.
    var applied = SearchController(collection: try Fixtures.collection(catalog))
    try applied.apply(input)
    #expect(Array(applied.rows) == Array(reference.rows))
    #expect(applied.indicator == reference.indicator)
    #expect(applied.isActive && applied.text == input.text)
  }

  @Test("apply replaces the search before it rather than adding to it")
  func applyReplaces() throws {
    var controller = try Fixtures.activeController(.products)
    try controller.apply(SearchRequestInput(text: "rose", scope: "Funerals", tokens: ["price:<20"]))
    try controller.apply(SearchRequestInput(text: "tulip"))
    #expect(controller.tokens.isEmpty && controller.selectedScopeIndex == 0)
    #expect(Fixtures.column("title", of: controller) == ["Tulip"])
  }

  @Test(
    "an unknown scope or token is an error naming it, and the controller is unchanged",
    arguments: [
      (
        SearchRequestInput(text: "x", scope: "Sweets"),
        "unknown scope \"Sweets\" for catalog candies: its scopes are All, Chocolate, Hard, Other"
      ),
      (
        SearchRequestInput(text: "x", tokens: ["colour:red"]),
        "invalid token \"colour:red\": not one filter of catalog candies (e.g. category:VALUE, FIELD:<NUMBER)"
      ),
    ])
  func refusals(input: SearchRequestInput, message: String) throws {
    var controller = try Fixtures.activeController(.candies)
    controller.send(.setText("cho"))
    #expect(throws: SearchRequestError.self) { try controller.apply(input) }
    do {
      _ = try SearchRequest(input, schema: controller.schema)
      Issue.record("no error for \(input)")
    } catch {
      #expect(error.description == message)
    }
    #expect(controller.text == "cho" && controller.rows.count == 5)
  }

  @Test(
    "SearchModel filters by the controller's rule: a #word typed for a token is not searched",
    arguments: ["", "cho", "#", "#cho", "c #ch", "bar #", "-#x", "choc "])
  @MainActor
  func modelAndControllerAgree(text: String) throws {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let model = try SearchModel(Candy.all, schema: Candy.schema.get())
    model.isPresented = true
    model.text = text
    var controller = SearchController(collection: try Fixtures.collection(.candies))
    controller.send(.activate)
    controller.send(.setText(text))
    #expect(model.criteria == controller.criteria)
    #expect(model.isFiltering == controller.isFiltering)
  }
}

extension SearchRequestTests {
  @Test("a token is shown as the catalog shows it, however its identifier names the category")
  func tokenDisplay() throws {
    let schema = try Fixtures.collection(.products).schema
    let read = try SearchRequest(
      SearchRequestInput(
        text: "", tokens: ["type:funerals", "category:Funerals", "category:Gifts", "year:>=2010"]),
      schema: schema)
    #expect(read.tokens.map(\.text) == ["Funerals", "Funerals", "Gifts", "Since 2010"])
    #expect(read.tokens.map(\.icon) == ["🕊", "🕊", nil, "📅"])
    #expect(
      read.tokens.map(\.identifier) == [
        "type:funerals", "category:Funerals", "category:Gifts", "year:>=2010",
      ])
  }
}
