import Foundation
import Sift
import SiftTestSupport
import Testing

@testable import SiftStore

@Suite("Edits and search state on disk", .tags(.unit))
struct CatalogSessionTests {
  @Test("FoodTracker edits through a filtered view are saved and reload in place")
  func editsPersist() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("meals.sqlite")
    var session = try CatalogSession(
      store: try CatalogStore.create(at: url, document: try BuiltInCatalog.meals.load()))
    session.filter(by: SearchCriteria(text: "chicken"))
    var chicken = try #require(session.collection.item(atRow: 0))
    chicken["name"] = .text("Roast Beef")
    #expect(try session.update(chicken) == RowChanges(deleted: [0]))
    let (soupID, added) = try session.add(fields: [
      "name": .text("Chicken Soup"), "rating": .number(2),
    ])
    #expect(added == RowChanges(inserted: [0]))
    try session.add(Item(id: "dup", fields: ["name": .text("Chicken Soup"), "rating": .number(1)]))
    #expect(session.collection.rows == [soupID, "dup"])
    #expect(try session.deleteRow(1) == RowChanges(deleted: [1]))
    #expect(throws: StoreError.self) { try session.update(Item(id: "nope", fields: [:])) }
    #expect(throws: StoreError.self) { try session.add(Item(id: soupID, fields: [:])) }
    // A NUL would come back from SQLite cut short: refused, and the view is unchanged.
    let rowsBefore = Array(session.collection.rows)
    #expect {
      try session.add(Item(id: "nul", fields: ["name": .text("Chicken\u{0} Pie")]))
    } throws: { "\($0)".contains("field \"name\" contains a NUL character") }
    #expect(session.collection.rows == rowsBefore)
    try session.store.close()

    let reopened = try CatalogStore.open(at: url)
    #expect(
      try reopened.titles() == [
        "Caprese Salad", "Roast Beef", "Pasta with Meatballs", "Chicken Soup",
      ])
    #expect(try reopened.item(id: soupID)?["rating"] == .number(2))
    #expect(try reopened.item(id: "dup") == nil)
  }

  @Test("imports and edits name new items by one rule, in one sequence")
  func oneIDAllocator() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("notes.sqlite")
    let withIDs = ImportSpec(titleField: "name", idField: "id")
    let withoutIDs = ImportSpec(titleField: "name")
    _ = try CatalogImporter.run(
      file: try folder.write("first.jsonl", "{\"id\":\"4\",\"name\":\"Four\"}\n"), into: url,
      spec: withIDs)
    _ = try CatalogImporter.run(
      file: try folder.write("second.csv", "name\nFive\nSix\n"), into: url, spec: withoutIDs)
    var session = try CatalogSession(store: try CatalogStore.open(at: url))
    let (edited, _) = try session.add(fields: ["name": .text("Seven")])
    _ = try CatalogImporter.run(
      file: try folder.write("third.csv", "name\nEight\n"), into: url, spec: withoutIDs)
    let document = try CatalogStore.open(at: url).loadDocument()
    #expect(edited == "7")
    #expect(document.items.map(\.id) == ["4", "5", "6", "7", "8"])
    #expect(
      document.items.map { $0["name"]?.displayText } == ["Four", "Five", "Six", "Seven", "Eight"])
  }

  @Test("the search state is saved in the catalog and restored exactly")
  func searchState() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("media.sqlite")
    let store = try CatalogStore.create(at: url, document: try BuiltInCatalog.media.load())
    #expect(try store.loadSearchState() == nil, "nothing saved yet: a clean start")
    // The terminal app's controller over the session's items.
    var controller = SearchController(collection: try CatalogSession(store: store).collection)
    controller.send(.focus)
    controller.send(.insertToken(controller.schema.suggestedTokens[0], at: 0))
    controller.send(.setText("o"))
    controller.send(.selectScope(0))
    controller.send(.select(controller.rows[2]))
    try store.saveSearchState(controller.encodedSnapshot())
    let saved = controller.snapshot
    try store.close()

    let reopened = try CatalogStore.open(at: url)
    var relaunched = SearchController(collection: try CatalogSession(store: reopened).collection)
    #expect(relaunched.restore(from: try #require(try reopened.loadSearchState())).isEmpty)
    #expect(relaunched.snapshot == saved)
    #expect(relaunched.rows == controller.rows)

    // A damaged saved state gives a clean start and a reported problem.
    try reopened.saveSearchState(Data("{broken".utf8))
    let problems = relaunched.restore(from: try #require(try reopened.loadSearchState()))
    #expect(problems.count == 1)
    #expect(!relaunched.isActive)
  }
}
