import Foundation
import GRDB
import Sift
import SiftTestSupport
import Testing

@testable import SiftStore

/// The search index kept in a file beside the catalog (`IndexFile`), mapped: read when it is
/// the one the catalog records and current, rebuilt (and saved) when it is missing, stale,
/// another's or damaged — never searched when it does not answer the items.
@Suite("Index in the catalog's index file", .tags(.unit))
struct IndexInFileTests {
  static let queries = ["", "rose", "r", "red rose", "2010", "-rose", "wedding", "flwer"]

  /// The archive in the index file, and an archive of the items as they are, folded afresh.
  static func storedAndFresh(_ store: CatalogStore) throws -> (stored: [UInt8]?, fresh: [UInt8]) {
    let stored = try store.mappedIndexFile().map { [UInt8]($0.archive) }
    let document = try store.loadDocument()
    let fresh = try FilteredCollection(schema: document.schema, items: document.items).index
    return (stored, fresh.archived())
  }

  /// The rows a search of the opened collection shows, next to those of a fresh build.
  static func expectSameRows(
    _ collection: FilteredCollection, as store: CatalogStore, queries: [String] = queries
  ) throws {
    expectSameRows(collection, as: try store.loadDocument().makeCollection(), queries: queries)
  }

  /// The rows each query shows in `collection`, next to those it shows in `expected`.
  static func expectSameRows(
    _ collection: FilteredCollection, as expected: FilteredCollection,
    queries: [String] = queries
  ) {
    var (opened, expected) = (collection, expected)
    for query in queries {
      let criteria = SearchCriteria(text: query, tokens: [], scopeIndex: 0)
      opened.filter(by: criteria)
      expected.filter(by: criteria)
      #expect(opened.rows == expected.rows, "\(query)")
    }
  }

  @Test(
    "a created catalog opens from its index; later edits are replayed from the log, a gap in it rebuilds"
  )
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
      let ids = session.collection.allItems.map(\.id)
      let title = ["Rose", "Tulip", "Red Lily", "Candle"].randomElement(using: &random)!
      switch Int.random(in: 0..<3, using: &random) {
      case 0: _ = try session.add(fields: ["title": .text("\(title) \(step)")])
      case 1:
        try session.update(
          Item(id: ids.randomElement(using: &random)!, fields: ["title": .text(title)]))
      default: try session.delete(id: ids.randomElement(using: &random)!)
      }
    }
    // The session did not save its index: the next open applies the logged changes to the
    // saved archive, and gets exactly a fresh fold of the items.
    let replayed = try store.openCollection()
    #expect(replayed.report.indexSource == .archive)
    #expect(replayed.report.replayedChanges > 0)
    try Self.expectSameRows(replayed.collection, as: store)
    #expect(try replayed.collection.index.archived() == Self.storedAndFresh(store).fresh)
    // A change made outside Sift is logged by the file's triggers too.
    try store.queue.write { db in
      try db.execute(sql: "UPDATE items SET f_title = 'Zinnia' WHERE position = 0")
      try db.execute(sql: "DELETE FROM items WHERE position = 1")
    }
    let outside = try store.openCollection()
    #expect(outside.report.indexSource == .archive)
    #expect(try outside.collection.index.archived() == Self.storedAndFresh(store).fresh)
    // A generation the log cannot explain (its entries lost): built afresh and saved.
    try store.queue.write { db in try db.execute(sql: "DELETE FROM items_changes") }
    let stale = try store.openCollection()
    #expect(stale.report.indexSource == .rebuilt(reason: "the items changed since it was saved"))
    try Self.expectSameRows(stale.collection, as: store)
    let repaired = try Self.storedAndFresh(store)
    #expect(repaired.stored == repaired.fresh, "the saved index is a fresh fold of the items")
    let reopened = try store.openCollection()
    #expect(reopened.report.indexSource == .archive && reopened.report.replayedChanges == 0)
  }

  @Test(
    "random edits, deletions and ids added again, replayed on open: a fresh fold, byte for byte",
    arguments: [UInt64(3), 99])
  func replayEqualsFreshFold(seed: UInt64) throws {
    print("seed \(seed)")
    var random = SplitMix64(seed: seed)
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let store = try CatalogStore.create(
      at: folder.file("products.sqlite"), document: try BuiltInCatalog.products.load())
    var deleted: [Item] = []
    for round in 0..<6 {
      for step in 0..<Int.random(in: 0...25, using: &random) {
        let items = try store.loadDocument().items
        let title = ["Rose", "Tulip \(step)", "Red Lily", "Fern"].randomElement(using: &random)!
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
          try store.add(Item(id: ItemID("r\(round)s\(step)"), fields: ["title": .text(title)]))
        case 1 where !deleted.isEmpty:
          // An id deleted before comes back, at the end of catalog order.
          try store.add(deleted.removeLast())
        case 2,
          3 where !items.isEmpty:
          var item = items.randomElement(using: &random)!
          item["title"] = .text(title)
          try store.update(item)
        default:
          guard let item = items.randomElement(using: &random) else { continue }
          try store.delete(id: item.id)
          deleted.append(item)
        }
      }
      let opened = try store.openCollection()
      #expect(opened.report.indexSource == .archive, "round \(round)")
      let fresh = try Self.storedAndFresh(store).fresh
      #expect(opened.collection.index.archived() == fresh, "round \(round)")
      try Self.expectSameRows(opened.collection, as: store)
      // Now and then the archive is saved; the log stays, for the copies that follow the
      // catalog (it is cut only past the store's `retention`).
      if Bool.random(using: &random) {
        let logged = {
          try store.queue.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM items_changes")
          }
        }
        let before = try logged()
        #expect(
          try store.saveIndex(opened.collection.index, builtAtGeneration: opened.report.generation))
        #expect(try logged() == before)
      }
    }
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
    // The next open replays both deletions from the file's log onto the saved archive.
    let reopened = try store.openCollection()
    #expect(reopened.report.indexSource == .archive && reopened.report.replayedChanges == 2)
    #expect(reopened.collection.item(id: "2") == nil && !reopened.collection.contains(id: "3"))
    #expect(try reopened.collection.index.archived() == Self.storedAndFresh(store).fresh)
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

  /// Rewrites the catalog's index file with what `change` makes of its bytes (given the
  /// archive's range in them), as a failing disk or another program would.
  static func alterIndexFile(
    of store: CatalogStore, _ change: (inout [UInt8], IndexFile.Header) -> Void
  ) throws {
    let header = try #require(try store.mappedIndexFile()).header
    let url = IndexFile.url(forCatalogAt: store.url)
    var bytes = [UInt8](try Data(contentsOf: url))
    change(&bytes, header)
    try Data(bytes).write(to: url)
  }

  @Test(
    "a missing, cut, altered or foreign index file is noticed and rebuilt; items changed behind Sift's back are replayed",
    arguments: [
      "missing", "cut", "altered", "emptied", "another catalog's", "items changed outside Sift",
    ])
  func damage(kind: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let store = try CatalogStore.create(
      at: folder.file("products.sqlite"), document: try BuiltInCatalog.products.load())
    let indexFile = IndexFile.url(forCatalogAt: store.url)
    let expected: String
    switch kind {
    case "missing":
      try FileManager.default.removeItem(at: indexFile)
      expected = "the index file is missing"
    case "cut":
      try Self.alterIndexFile(of: store) { bytes, header in
        bytes.removeLast(bytes.count - header.archive.lowerBound - header.archive.count / 3)
      }
      expected = "a damaged index file (cut short)"
    case "altered":
      try Self.alterIndexFile(of: store) { bytes, header in
        bytes[header.archive.lowerBound + header.archive.count / 2] ^= 0x20
      }
      expected = "a damaged index file (checksum)"
    case "emptied":
      try Self.alterIndexFile(of: store) { bytes, _ in bytes = [] }
      expected = "the index file is not one Sift wrote"
    case "another catalog's":
      // The same items in another catalog: its index file is whole, but not the one recorded.
      let other = try CatalogStore.create(
        at: folder.file("other.sqlite"), document: try BuiltInCatalog.products.load())
      try other.close()
      try FileManager.default.removeItem(at: indexFile)
      try FileManager.default.copyItem(
        at: IndexFile.url(forCatalogAt: other.url), to: indexFile)
      expected = "the index file is not the one the catalog records"
    default:
      // As another program (the sqlite3 shell) would: the triggers still see it.
      try store.queue.write { db in
        try db.execute(
          sql: "UPDATE items SET \(CatalogStore.column("title")) = 'Blue Xylophone' WHERE id = '1'")
      }
      expected = ""
    }
    let opened = try store.openCollection()
    if kind == "items changed outside Sift" {
      // The file's triggers logged the change: it is applied to the archive, not refolded.
      #expect(opened.report.indexSource == .archive && opened.report.replayedChanges == 1)
      #expect(try opened.collection.index.archived() == Self.storedAndFresh(store).fresh)
    } else {
      guard case .rebuilt(let reason) = opened.report.indexSource else {
        Issue.record("a \(kind) index was read")
        return
      }
      #expect(reason == expected)
      #expect(opened.report.notice?.contains(expected) == true)
    }
    try Self.expectSameRows(opened.collection, as: store)
    var collection = opened.collection
    collection.filter(by: SearchCriteria(text: "xylophone", tokens: [], scopeIndex: 0))
    #expect(collection.rows == (kind == "items changed outside Sift" ? ["1"] : []))
    #expect(try store.openCollection().report.indexSource == .archive)
  }

  @Test(
    "the trigram index comes from the file, built by no one: the rows of a scan, also after replayed edits; a damaged one is not used"
  )
  func trigramsFromTheFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let store = try CatalogStore.create(
      at: folder.file("products.sqlite"), document: try BuiltInCatalog.products.load())
    let queries = ["ros", "red rose", "wedding", "andl", "서울", "zzz", "r", "ca"]
    // A fresh build, which scans: the rows the trigram index must give.
    func expectScanRows(_ collection: FilteredCollection) throws {
      try Self.expectSameRows(collection, as: store, queries: queries)
    }
    let opened = try store.openCollection().collection
    let stored = try #require(opened.index.substringSearchMemory)
    #expect(stored.buildSeconds == 0 && stored.bytes > 0)
    try expectScanRows(opened)
    // Edits the next open replays: slots added since are checked one by one.
    try store.add(Item(id: "t1", fields: ["title": .text("Rosewood Tray")]))
    try store.delete(id: "2")
    let replayed = try store.openCollection()
    #expect(replayed.report.replayedChanges == 2)
    #expect(replayed.collection.index.substringSearchMemory?.buildSeconds == 0)
    try expectScanRows(replayed.collection)
    // A damaged trigram section: the index is read, the trigrams are not (searches scan).
    #expect(
      try store.saveIndex(replayed.collection.index, builtAtGeneration: replayed.report.generation))
    try Self.alterIndexFile(of: store) { bytes, header in
      let trigrams = header.trigrams!
      bytes[trigrams.lowerBound + trigrams.count / 2] ^= 0x04
    }
    let damaged = try store.openCollection()
    #expect(damaged.report.indexSource == .archive)
    #expect(damaged.collection.index.substringSearchMemory == nil)
    try expectScanRows(damaged.collection)
  }

  @Test(
    "sections longer than one write, shorter, and empty are written whole, each on a page of its own"
  )
  func sectionsWrittenInChunks() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let final = folder.file("cities.sqlite-index")
    var random = SplitMix64(seed: 2811)
    print("sectionsWrittenInChunks: seed 2811")
    func bytes(_ count: Int) -> [UInt8] {
      (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }
    let chunk = IndexFile.writeChunk
    let (archive, near) = (bytes(3 * chunk + 17), bytes(chunk - 1))
    let token = UUID()
    let temporary = try IndexFile.writeTemporary(
      beside: final, token: token, generation: 7, archive: archive, nearSpellings: near,
      trigrams: [])
    try IndexFile.install(temporary, at: final)
    let mapped = try MappedIndexFile(
      url: final, token: token, generation: 7, stamp: IndexFile.Stamp(ofFileAt: final))
    #expect([UInt8](mapped.archive) == archive)
    #expect(mapped.nearSpellings.map { [UInt8]($0) } == near)
    #expect(mapped.header.trigrams == nil)
    #expect(mapped.header.archive.lowerBound % 4096 == 0)
    #expect(
      mapped.header.nearSpellings?.lowerBound
        == IndexFile.roundedUp(mapped.header.archive.upperBound))
    let size = try FileManager.default.attributesOfItem(atPath: final.path)[.size] as? Int
    #expect(size == mapped.header.nearSpellings?.upperBound)
  }

  @Test("a save removes the temporary files of saves killed long ago, not one still being written")
  func abandonedSavesRemoved() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let store = try CatalogStore.create(
      at: folder.file("products.sqlite"), document: try BuiltInCatalog.products.load())
    let abandoned = folder.file(".products.sqlite-index.\(UUID().uuidString).writing")
    let inProgress = folder.file(".products.sqlite-index.\(UUID().uuidString).writing")
    let otherCatalog = folder.file(".other.sqlite-index.\(UUID().uuidString).writing")
    for url in [abandoned, inProgress, otherCatalog] {
      try Data("partial".utf8).write(to: url)
    }
    let hourAgo = Date(timeIntervalSinceNow: -3_600)
    for url in [abandoned, otherCatalog] {
      try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: url.path)
    }
    let opened = try store.openCollection()
    #expect(
      try store.saveIndex(opened.collection.index, builtAtGeneration: opened.report.generation))
    let exists = { (url: URL) in FileManager.default.fileExists(atPath: url.path) }
    #expect(!exists(abandoned))
    #expect(exists(inProgress))
    #expect(exists(otherCatalog))
    #expect(try store.openCollection().report.indexSource == .archive)
  }

  @Test(
    "the index file Sift wrote is read unchecked while it keeps its stamp; written to or copied, it is checked whole"
  )
  func stampedFileIsTrusted() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let store = try CatalogStore.create(
      at: folder.file("products.sqlite"), document: try BuiltInCatalog.products.load())
    let url = IndexFile.url(forCatalogAt: store.url)
    #expect(try #require(try store.mappedIndexFile()).isTrusted)
    // Sift backdates what it writes, so a write, however soon, moves the modification time.
    let modified = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate]
    #expect(try #require(modified as? Date) < Date().addingTimeInterval(-1))
    let stamp = IndexFile.Stamp(ofFileAt: url)
    // The same bytes written again: no longer the file Sift wrote, so checked — and whole, read.
    try Data(contentsOf: url).write(to: url)
    #expect(IndexFile.Stamp(ofFileAt: url) != stamp)
    #expect(try #require(try store.mappedIndexFile()).isTrusted == false)
    let (opened, report) = try store.openCollection()
    #expect(report.indexSource == .archive)
    try Self.expectSameRows(opened, as: store)
    // A save stamps the file it writes.
    var session = try CatalogSession(store: store)
    _ = try session.add(fields: ["title": .text("Violet Rose")])
    #expect(try session.saveIndex())
    #expect(try #require(try store.mappedIndexFile()).isTrusted)
    // Copied with the catalog: another file, checked whole, read.
    try store.close()
    let copy = folder.file("copy.sqlite")
    try FileManager.default.copyItem(at: store.url, to: copy)
    try FileManager.default.copyItem(at: url, to: IndexFile.url(forCatalogAt: copy))
    let copied = try CatalogStore.open(at: copy)
    defer { try? copied.close() }
    #expect(try #require(try copied.mappedIndexFile()).isTrusted == false)
    #expect(try copied.openCollection().report.indexSource == .archive)
  }

  @Test("an index already opened keeps reading its own file when a save replaces it")
  func openedIndexOutlivesItsFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let store = try CatalogStore.create(
      at: folder.file("products.sqlite"), document: try BuiltInCatalog.products.load())
    let early = try store.openCollection().collection
    let before = try store.loadDocument().makeCollection()
    var session = try CatalogSession(store: store)
    _ = try session.add(fields: ["title": .text("Violet Rose")])
    #expect(try session.saveIndex())
    // The file was renamed over; the first open's mapping still holds the old one, whole.
    Self.expectSameRows(early, as: before)
    #expect(early.index.archived() == before.index.archived())
    #expect(try store.openCollection().collection.contains(id: session.collection.rows.last!))
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
          DROP TABLE index_file; DROP TABLE items_generation;
          DROP TRIGGER items_inserted; DROP TRIGGER items_updated; DROP TRIGGER items_deleted;
          DROP TRIGGER schema_changed; DROP TABLE items_changes; DROP INDEX items_by_number;
          DELETE FROM grdb_migrations WHERE identifier IN ('v2', 'v3', 'v4', 'v5', 'v6', 'v7');
          """)
    }
    try store.close()
    let upgraded = try CatalogStore.open(at: url)
    let opened = try upgraded.openCollection()
    #expect(opened.report.indexSource == .rebuilt(reason: "the file had none yet"))
    try Self.expectSameRows(opened.collection, as: upgraded)
    #expect(try upgraded.openCollection().report.indexSource == .archive)
  }

  /// The rows of a misspelt search, and whether its dictionaries were read from the file.
  static func misspeltSearch(_ collection: FilteredCollection) -> (rows: [ItemID], read: Bool) {
    var collection = collection
    collection.filter(by: SearchCriteria(text: "rosse", tokens: [], scopeIndex: 0))
    return (Array(collection.rows), collection.index.nearSpellingMemory.wereStored)
  }

  @Test(
    "near-spelling dictionaries are saved with the index and read on the first misspelling; damaged or another archive's are built instead"
  )
  func nearSpellingsInFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let store = try CatalogStore.create(
      at: folder.file("products.sqlite"), document: try BuiltInCatalog.products.load())
    var expected = try store.loadDocument().makeCollection()
    expected.filter(by: SearchCriteria(text: "rosse", tokens: [], scopeIndex: 0))
    #expect(expected.includesNearSpellings && !expected.rows.isEmpty)

    let stored = Self.misspeltSearch(try store.openCollection().collection)
    #expect(stored.rows == Array(expected.rows) && stored.read)

    // Opened, then another index file saved before the first misspelling: the first open
    // still reads the dictionaries of its own (mapped) file, which answer its index.
    let early = try store.openCollection().collection
    var session = try CatalogSession(store: store)
    _ = try session.add(fields: ["title": .text("Violet")])
    #expect(try session.saveIndex())
    let late = Self.misspeltSearch(early)
    #expect(late.rows == Array(expected.rows) && late.read)
    // The new file came with its own dictionaries.
    #expect(Self.misspeltSearch(try store.openCollection().collection).read)

    // Altered bytes in the dictionaries (whose checksum is their own): built, not read, and the
    // same rows.
    try Self.alterIndexFile(of: store) { bytes, header in
      let near = header.nearSpellings!
      bytes[near.lowerBound + near.count / 2] ^= 0x10
    }
    let damaged = Self.misspeltSearch(try store.openCollection().collection)
    let now = Self.misspeltSearch(try store.loadDocument().makeCollection())
    #expect(damaged.rows == now.rows && !damaged.read)
  }

  @Test(
    "a catalog of the fifth format (its index in a blob) is upgraded: its first open writes the index file"
  )
  func upgradeFromFifthFormat() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("products.sqlite")
    let store = try CatalogStore.create(at: url, document: try BuiltInCatalog.products.load())
    try store.queue.write { db in
      try db.execute(
        sql: """
          DROP TABLE index_file;
          CREATE TABLE search_index (
            id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL,
            archive BLOB NOT NULL, near_spellings BLOB);
          INSERT INTO search_index VALUES (1, (SELECT value FROM items_generation), x'00', NULL);
          DELETE FROM grdb_migrations WHERE identifier IN ('v6', 'v7');
          """)
    }
    try store.close()
    try FileManager.default.removeItem(at: IndexFile.url(forCatalogAt: url))
    let upgraded = try CatalogStore.open(at: url)
    let tables = try upgraded.queue.read { db in
      try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    #expect(!tables.contains("search_index") && tables.contains("index_file"))
    let opened = try upgraded.openCollection()
    #expect(opened.report.indexSource == .rebuilt(reason: "the file had none yet"))
    try Self.expectSameRows(opened.collection, as: upgraded)
    let reopened = try upgraded.openCollection()
    #expect(reopened.report.indexSource == .archive)
    #expect(Self.misspeltSearch(reopened.collection).read)
  }
}
