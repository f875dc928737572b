import Foundation
import Sift
import SiftTestSupport
import Testing

@testable import SiftStore

/// A catalog session holds only the index: the items it shows are read from the file. Replayed
/// against a collection that holds its items, the same edits and searches give the same rows,
/// the same row changes and the same items on every row.
@Suite("Items read from the file when shown", .tags(.unit))
struct ReadWhenShownTests {
  static let queries = ["", "rose", "r", "red", "red rose", "-rose", "tulip 3", "flwer", "ca"]

  @Test(
    "random edits and searches: rows, changes and items equal those of held items",
    arguments: [UInt64(7), 1_234])
  func replayAgainstHeldItems(seed: UInt64) throws {
    print("seed \(seed)")
    var random = SplitMix64(seed: seed)
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let document = try BuiltInCatalog.products.load()
    let store = try CatalogStore.create(at: folder.file("products.sqlite"), document: document)
    var session = try CatalogSession(store: store)
    var held = try document.makeCollection()
    #expect(session.collection.readsElementsWhenShown)
    #expect(!held.readsElementsWhenShown)
    let titles = ["Rose", "Tulip", "Red Lily", "Candle", "Red Rose Bouquet", "Cactus"]
    for step in 0..<60 {
      let ids = held.allItems.map(\.id)
      let criteria = SearchCriteria(
        text: Self.queries.randomElement(using: &random)!, tokens: [], scopeIndex: 0)
      session.filter(by: criteria)
      held.filter(by: criteria)
      let title = "\(titles.randomElement(using: &random)!) \(step % 5)"
      let changes: (RowChanges, RowChanges)
      switch Int.random(in: 0..<4, using: &random) {
      case 0:
        let (id, sessionChanges) = try session.add(fields: ["title": .text(title)])
        changes = (sessionChanges, try held.add(Item(id: id, fields: ["title": .text(title)])))
      case 1, 2:
        let item = Item(id: ids.randomElement(using: &random)!, fields: ["title": .text(title)])
        changes = (try session.update(item), try held.update(item))
      default:
        let id = ids.randomElement(using: &random)!
        changes = (try session.delete(id: id), try held.delete(id: id))
      }
      #expect(changes.0 == changes.1, "step \(step)")
      let shown = session.collection
      #expect(shown.rows == held.rows, "step \(step)")
      let page = Int.random(in: 0...max(0, held.rows.count), using: &random)
      let rows = page..<(page + Int.random(in: 0...12, using: &random))
      #expect(
        shown.elements(atRows: rows) == held.elements(atRows: rows), "step \(step) rows \(rows)")
      #expect(Array(shown.results) == Array(held.results), "step \(step)")
      for id in ids.shuffled(using: &random).prefix(3) {
        #expect(shown.item(id: id) == held.item(id: id), "step \(step) \(id)")
      }
    }
    #expect(session.collection.allItems == held.allItems)
    #expect(try store.loadDocument().items == held.allItems)
  }

  @Test("rows past the end, an empty range and a closed file read nothing, and nothing fails")
  func readsThatFindNothing() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let store = try CatalogStore.create(
      at: folder.file("candies.sqlite"), document: try BuiltInCatalog.candies.load())
    let session = try CatalogSession(store: store)
    let collection = session.collection
    let count = collection.rows.count
    #expect(collection.elements(atRows: count..<(count + 5)).isEmpty)
    #expect(collection.elements(atRows: 0..<0).isEmpty)
    #expect(collection.elements(atRows: (count - 2)..<(count + 5)).count == 2)
    #expect(collection.item(id: "no such id") == nil)
    try store.close()
    // The file closed under the view: rows stay, their items cannot be read and are left out.
    #expect(collection.rows.count == count)
    #expect(collection.elements(atRows: 0..<3) == [nil, nil, nil])
    #expect(collection.item(atRow: 0) == nil)
  }
}
