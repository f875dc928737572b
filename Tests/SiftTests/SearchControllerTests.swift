import Foundation
import SiftTestSupport
import Testing

@testable import Sift

@Suite("SearchController", .tags(.unit))
struct SearchControllerTests {
  @Test("presents, updates and dismisses like UISearchController")
  func lifecycle() throws {
    var search = SearchController(collection: try Fixtures.collection(.candies))
    #expect(!search.isActive && !search.isFirstResponder)
    #expect(search.send(.focus) == [.willPresent, .didPresent, .updateSearchResults])
    #expect(search.isActive && search.isFirstResponder)
    #expect(search.send(.focus) == [])
    #expect(search.send(.setText("c")) == [.updateSearchResults])
    #expect(search.send(.setText("c")) == [], "no change, no update")
    #expect(search.send(.resignFocus) == [])
    #expect(search.isActive && !search.isFirstResponder)
    #expect(search.send(.selectScope(1)) == [.updateSearchResults])
    #expect(search.send(.selectScope(9)) == [], "no such scope: nothing happens")
    #expect(search.send(.cancel) == [.willDismiss, .didDismiss, .updateSearchResults])
    #expect(search.send(.cancel) == [])
    #expect(search.selectedScopeIndex == 1, "like UIKit, the scope index survives cancel")
    #expect(search.send(.activate) == [.willPresent, .didPresent, .updateSearchResults])
    #expect(!search.isFirstResponder)
    #expect(search.send(.deactivate) == [.willDismiss, .didDismiss, .updateSearchResults])
  }

  @Test("isFiltering follows CandySearch's rule")
  func isFiltering() throws {
    var search = SearchController(collection: try Fixtures.collection(.candies))
    search.send(.setText("x"))
    #expect(!search.isFiltering, "inactive")
    #expect(search.rows.count == 15)
    search.send(.activate)
    #expect(search.isFiltering)
    search.send(.setText(""))
    #expect(!search.isFiltering)
    search.send(.insertToken(SearchToken(text: "Hard", identifier: "category:Hard"), at: 0))
    #expect(search.isFiltering)
    #expect(search.rows.count == 4)
  }

  @Test("diagnostics reach the status line")
  func diagnostics() throws {
    var search = try Fixtures.activeController(.products)
    search.send(.setText("price:<"))
    #expect(search.diagnostics.map(\.problem) == [.missingValue(field: "price")])
    search.send(.setText("price:<20"))
    #expect(search.diagnostics.isEmpty)
    search.send(.insertToken(SearchToken(text: "Bad", identifier: "nope:1"), at: 0))
    #expect(search.diagnostics.map(\.problem) == [.invalidToken("nope:1")])
  }

  @Test("a selection that leaves the rows is dropped")
  func selection() throws {
    var search = try Fixtures.activeController(.candies)
    search.send(.select(search.rows[3]))
    #expect(search.selection == "4")
    #expect(search.send(.setText("choc")) == [.updateSearchResults, .selectionChanged(nil)])
    #expect(search.send(.select("999")) == [], "an item not shown cannot be selected")
  }

  @Test(
    "restoration survives garbage: clean state plus a reported problem",
    arguments: [
      Data(), Data("{".utf8), Data("null".utf8), Data([0xFF, 0xFE, 0x00]),
      Data(#"{"version":1}"#.utf8),
      Data(
        #"{"version":1,"isActive":"yes","isFirstResponder":false,"text":"a","tokens":[],"selectedScopeIndex":0}"#
          .utf8),
    ])
  func garbage(_ data: Data) throws {
    var search = try Fixtures.activeController(.candies)
    _ = search.type("choc")
    let problems = search.restore(from: data)
    #expect(problems.count == 1)
    if case .unreadable = problems.first {
    } else {
      Issue.record("expected unreadable, got \(problems)")
    }
    #expect(!search.isActive && search.text.isEmpty && search.rows.count == 15)
  }

  @Test("restoration repairs what it can and says what it could not")
  func partialRestore() throws {
    var search = SearchController(collection: try Fixtures.collection(.candies))
    let snapshot = SearchController.Snapshot(
      isActive: true, isFirstResponder: true, text: "a",
      tokens: [
        SearchToken(text: "Hard", identifier: "category:Hard"),
        SearchToken(text: "?", identifier: "flavour:sour"),
      ],
      selectedScopeIndex: 7, selectedScopeTitle: "Sour", selection: "999")
    let problems = search.restore(snapshot)
    #expect(
      problems == [.unknownScope("Sour"), .invalidToken("flavour:sour"), .missingSelection("999")])
    #expect(search.isActive && search.isFirstResponder && search.text == "a")
    #expect(search.selectedScopeIndex == 0)
    #expect(search.tokens.map(\.identifier) == ["category:Hard"])
    #expect(search.titles == ["Toffee Apple", "Candy Cane", "Jaw Breaker"], "word start first")

    let newer = SearchController.Snapshot(version: 99, isActive: true, text: "x")
    #expect(search.restore(newer) == [.newerVersion(99)])
    #expect(!search.isActive)

    // A scope found by title when its index moved.
    let moved = SearchController.Snapshot(
      isActive: true, selectedScopeIndex: 1, selectedScopeTitle: "Other")
    #expect(search.restore(moved).isEmpty)
    #expect(search.selectedScopeIndex == 3)
  }

  @Test("restoration round-trips random states exactly")
  func randomRoundTrip() throws {
    var random = SplitMix64(seed: 42)
    let base = SearchController(collection: try Fixtures.collection(.media))
    let tokens = base.schema.suggestedTokens
    let texts = ["", "a", "moon", "da nang", "서우", "\"red", "year:<2000", "-the"]
    for _ in 0..<300 {
      var search = base
      if Bool.random(using: &random) { search.send(.focus) }
      search.send(.setText(texts.randomElement(using: &random)!))
      search.send(.selectScope(Int.random(in: 0..<4, using: &random)))
      for _ in 0..<Int.random(in: 0...2, using: &random) {
        search.send(
          .insertToken(
            tokens.randomElement(using: &random)!, at: Int.random(in: 0...2, using: &random)))
      }
      if let row = search.rows.indices.randomElement(using: &random) {
        search.send(.select(search.rows[row]))
      }
      if Bool.random(using: &random) { search.send(.resignFocus) }
      var restored = base
      #expect(restored.restore(from: search.encodedSnapshot()).isEmpty)
      #expect(restored.snapshot == search.snapshot)
      #expect(restored.rows == search.rows)
    }
  }
}
