import Foundation
import GRDB
import Sift
import SiftTestSupport
import Testing

@testable import SiftStore

/// The search index kept in the catalog file: read when current, rebuilt (and saved) when it is
/// missing, stale or damaged — never searched when it does not answer the items.
@Suite("Index in the catalog file")
struct IndexInFileTests {
  static let queries = ["", "rose", "r", "red rose", "2010", "-rose", "wedding", "flwer"]

  /// The archive stored in the file, and an archive of the items as they are, folded afresh.
  static func storedAndFresh(_ store: CatalogStore) throws -> (stored: [UInt8]?, fresh: [UInt8]) {
    let stored = try store.queue.read { db in try CatalogStore.storedArchive(db)?.archive }
    let document = try store.loadDocument()
    let fresh = try FilteredCollection(schema: document.schema, items: document.items).index
    return (stored, fresh.archived())
  }

  /// The rows a search of the opened collection shows, next to those of a fresh build.
  static func expectSameRows(_ collection: FilteredCollection, as store: CatalogStore) throws {
    var opened = collection
    var fresh = try store.loadDocument().makeCollection()
    for query in queries {
      let criteria = SearchCriteria(text: query, tokens: [], scopeIndex: 0)
      opened.filter(by: criteria)
      fresh.filter(by: criteria)
      #expect(opened.rows == fresh.rows, "\(query)")
    }
  }

  @Test("a created catalog opens from its index; edits make it stale, the next open repairs it")
  func createEditReopen() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("products.sqlite")
    let store = try CatalogStore.create(at: url, document: try BuiltInCatalog.products.load())
    let first = try store.openCollection()
    #expect(first.report.indexSource == .archive)
    #expect(first.report.notice == nil)
    try Self.expectSameRows(first.collection, as: store)

    var session = try CatalogSession(store: store)
    #expect(session.openReport.indexSource == .archive)
    var random = SplitMix64(seed: 31)
    for step in 0..<30 {
      let ids = session.controller.collection.allItems.map(\.id)
      let title = ["Rose", "Tulip", "Red Lily", "Candle"].randomElement(using: &random)!
      switch Int.random(in: 0..<3, using: &random) {
      case 0: _ = try session.add(fields: ["title": .text("\(title) \(step)")])
      case 1:
        try session.update(
          Item(id: ids.randomElement(using: &random)!, fields: ["title": .text(title)]))
      default: try session.delete(id: ids.randomElement(using: &random)!)
      }
    }
    let stale = try store.openCollection()
    #expect(stale.report.indexSource == .rebuilt(reason: "the items changed since it was saved"))
    try Self.expectSameRows(stale.collection, as: store)
    let repaired = try Self.storedAndFresh(store)
    #expect(repaired.stored == repaired.fresh, "the saved index is a fresh fold of the items")
    #expect(try store.openCollection().report.indexSource == .archive)
  }

  @Test("a session saves the index its edits kept current, unless another writer was at work")
  func sessionSavesItsIndex() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("candies.sqlite")
    let store = try CatalogStore.create(at: url, document: try BuiltInCatalog.candies.load())
    var session = try CatalogSession(store: store)
    _ = try session.add(fields: ["name": .text("Zebra Toffee"), "category": .text("Other")])
    try session.delete(id: "1")
    #expect(try session.saveIndex())
    let files = try Self.storedAndFresh(store)
    #expect(files.stored == files.fresh)
    #expect(try store.openCollection().report.indexSource == .archive)

    // Another writer (a second handle, as another process would be) edits in between: this
    // session's index no longer answers the file, so it is not saved as current.
    let other = try CatalogStore.open(at: url)
    try other.delete(id: "2")
    try session.delete(id: "3")
    #expect(try session.saveIndex() == false)
    let reopened = try store.openCollection()
    #expect(reopened.report.indexSource == .rebuilt(reason: "the items changed since it was saved"))
    #expect(reopened.collection.item(id: "2") == nil)
  }

  @Test("an import leaves the index of every item, re-imports too")
  func imports() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("cities.sqlite")
    let spec = ImportSpec(
      titleField: "name", textFields: ["alternates"], numberFields: ["population"],
      categoryField: "country", idField: "id", rankingField: RankingField("population"))
    let file = try folder.write(
      "cities.jsonl",
      """
      {"id": 1, "name": "Đà Nẵng", "alternates": ["Da Nang"], "country": "VN", "population": 752493}
      {"id": 2, "name": "Seoul", "alternates": ["서울"], "country": "KR", "population": 10349312}
      {"id": 3, "name": "Paris", "country": "FR", "population": 2138551}

      """)
    _ = try CatalogImporter.run(file: file, into: url, spec: spec)
    var store = try CatalogStore.open(at: url)
    var files = try Self.storedAndFresh(store)
    #expect(files.stored == files.fresh)
    let more = try folder.write(
      "more.jsonl",
      """
      {"id": 3, "name": "Paris", "alternates": ["Lutetia"], "country": "FR", "population": 2100000}
      {"id": 4, "name": "Nantes", "country": "FR", "population": 320732}

      """)
    try store.close()
    _ = try CatalogImporter.run(file: more, into: url, spec: spec)
    store = try CatalogStore.open(at: url)
    files = try Self.storedAndFresh(store)
    #expect(files.stored == files.fresh)
    let opened = try store.openCollection()
    #expect(opened.report.indexSource == .archive)
    var collection = opened.collection
    collection.filter(by: SearchCriteria(text: "lutetia", tokens: [], scopeIndex: 0))
    #expect(collection.rows == ["3"])
    collection.filter(by: SearchCriteria(text: "da nang", tokens: [], scopeIndex: 0))
    #expect(collection.rows == ["1"])
  }

  @Test(
    "a cut or altered index, or items changed behind Sift's back, are noticed and rebuilt",
    arguments: ["cut", "altered", "emptied", "items changed outside Sift"])
  func damage(kind: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let store = try CatalogStore.create(
      at: folder.file("products.sqlite"), document: try BuiltInCatalog.products.load())
    try store.queue.write { db in
      let archive = try CatalogStore.storedArchive(db)!.archive
      var damaged = archive
      switch kind {
      case "cut": damaged.removeLast(archive.count / 3)
      case "altered": damaged[archive.count / 2] ^= 0x20
      case "emptied": damaged = []
      default:
        // As another program (the sqlite3 shell) would: the triggers still see it.
        try db.execute(
          sql: "UPDATE items SET \(CatalogStore.column("title")) = 'Blue Xylophone' WHERE id = '1'")
      }
      try db.execute(
        sql: "UPDATE search_index SET archive = ? WHERE id = 1", arguments: [Data(damaged)])
    }
    let opened = try store.openCollection()
    guard case .rebuilt(let reason) = opened.report.indexSource else {
      Issue.record("a \(kind) index was read")
      return
    }
    let expected =
      switch kind {
      case "emptied": "not an index archive"
      case "items changed outside Sift": "the items changed since it was saved"
      default: "a damaged index archive (checksum)"
      }
    #expect(reason == expected)
    #expect(opened.report.notice?.contains(expected) == true)
    try Self.expectSameRows(opened.collection, as: store)
    var collection = opened.collection
    collection.filter(by: SearchCriteria(text: "xylophone", tokens: [], scopeIndex: 0))
    #expect(collection.rows == (kind == "items changed outside Sift" ? ["1"] : []))
    #expect(try store.openCollection().report.indexSource == .archive)
  }

  @Test("a catalog of the first format is upgraded; its first open builds and saves the index")
  func upgradeFromFirstFormat() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("meals.sqlite")
    let store = try CatalogStore.create(at: url, document: try BuiltInCatalog.meals.load())
    // Back to the first format: what a catalog written before the index was kept looks like.
    try store.queue.write { db in
      try db.execute(
        sql: """
          DROP TABLE search_index; DROP TABLE items_generation;
          DROP TRIGGER items_inserted; DROP TRIGGER items_updated; DROP TRIGGER items_deleted;
          DROP TRIGGER schema_changed;
          DELETE FROM grdb_migrations WHERE identifier = 'v2';
          """)
    }
    try store.close()
    let upgraded = try CatalogStore.open(at: url)
    let opened = try upgraded.openCollection()
    #expect(opened.report.indexSource == .rebuilt(reason: "the file had none yet"))
    try Self.expectSameRows(opened.collection, as: upgraded)
    #expect(try upgraded.openCollection().report.indexSource == .archive)
  }
}
