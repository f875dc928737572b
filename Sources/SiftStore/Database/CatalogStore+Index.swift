import Foundation
import GRDB
import Sift

/// The search index kept in the catalog file (`IndexArchive`), so that opening reads it instead
/// of folding every item again.
///
/// The archive is stamped with the items' generation, which SQLite triggers move with every
/// change to the items or the schema, in the change's own transaction. An archive whose stamp
/// differs, or whose bytes are damaged, is never searched: the index is built from the items
/// and written back.
extension CatalogStore {
  /// Where an opened catalog's index came from.
  public enum IndexSource: Hashable, Sendable {
    /// Read from the file.
    case archive
    /// Built from the items, because of `reason`, and written back for the next open.
    case rebuilt(reason: String)
  }

  /// How a catalog was opened: where its index came from, and what opening cost.
  public struct OpenReport: Hashable, Sendable {
    public var indexSource: IndexSource
    /// The generation of the items the index answers (see `persist(_:tracking:)`).
    public var generation: Int64
    /// Reading the items (and the archive) from the file.
    public var loadDuration: Duration
    /// Reading the archive back, or building the index (and saving it).
    public var indexDuration: Duration
    /// How many items changed since the archive was saved and were applied to it on opening
    /// (`items_changes`), rather than folding every item again.
    public var replayedChanges = 0

    /// What to tell a person when the index was rebuilt; nil when it was read.
    public var notice: String? {
      guard case .rebuilt(let reason) = indexSource else { return nil }
      return "the search index was rebuilt (\(reason)) and saved for the next open"
    }
  }

  /// A search over the catalog's items, its index read from the file when it is current, else
  /// built from the items and saved for the next open. The collection holds the index alone:
  /// the items it shows are read from the file when shown (`CatalogItemSource`).
  ///
  /// - Complexity: O(size of the archive) when it is current; otherwise reading every item and
  ///   a full build.
  public func openCollection(
    typoTolerance: TypoTolerance = .automatic
  ) throws(StoreError) -> (collection: FilteredCollection, report: OpenReport) {
    let clock = ContinuousClock()
    let started = clock.now
    var decodingStarted = started
    // One read transaction: the schema, the items' generation, and the archive — read in
    // place (not copied) when it is stamped with that generation. `archive` is nil when the
    // file has none, `.some(nil)` when it is stale and the change log cannot bring it up to date.
    typealias Opened = Result<
      (index: SearchIndex<ItemID>, replayed: Int, stamp: Int64), IndexArchive.Failure
    >
    let opened: (schema: CatalogSchema, generation: Int64, archive: Opened??) = try read { db in
      let schema = try Self.schema(db, path: path)
      let generation = try Self.itemsGeneration(db)
      let archive = try Self.withStoredArchive(db) { stamp, bytes -> Opened? in
        decodingStarted = clock.now
        if stamp == generation {
          return Opened { () throws(IndexArchive.Failure) in
            (try SearchIndex<ItemID>(archive: bytes, schema: schema), 0, stamp)
          }
        }
        return try Self.replayed(
          archive: bytes, stamp: stamp, generation: generation, schema: schema, db
        ).map { Opened.success(($0.index, $0.replayed, stamp)) }
      }
      return (schema, generation, archive)
    }
    let schema = try searchSchema(opened.schema)
    let reason: String
    switch opened.archive {
    case .success(let read)??:
      var index = read.index
      let (replayed, stamp) = (read.replayed, read.stamp)
      // A long log is folded into a fresh archive, so later opens replay nothing.
      if replayed > Self.replaySaveThreshold(itemCount: index.count) {
        _ = try? saveIndex(index, builtAtGeneration: opened.generation)
      } else {
        // Read when first needed, if the file still holds those of this archive then.
        index.readNearSpellings { [self] read in try? withStoredNearSpellings(stamp: stamp, read) }
      }
      let collection = FilteredCollection(
        index: index, schema: schema, source: CatalogItemSource(store: self, schema: opened.schema),
        typoTolerance: typoTolerance)
      var report = OpenReport(
        indexSource: .archive, generation: opened.generation,
        loadDuration: decodingStarted - started, indexDuration: clock.now - decodingStarted)
      report.replayedChanges = replayed
      return (collection, report)
    case .failure(let failure)??:
      reason = "\(failure)"
    case .some(nil):
      reason = "the items changed since it was saved"
    case nil:
      reason = "the file had none yet"
    }
    let loaded = clock.now
    // Repair: every item and the generation they are at, in one read transaction.
    let current: (CatalogDocument, Int64) = try read { db in
      (try self.document(db), try Self.itemsGeneration(db))
    }
    let (document, builtAt) = current
    // Another writer may have changed the schema between the two reads: the items' own.
    let documentSchema = try searchSchema(document.schema)
    let index: SearchIndex<ItemID>
    do throws(CatalogEditError) {
      index = try SearchIndex(schema: documentSchema, elements: document.items)
    } catch {
      throw .edit(error)
    }
    // Saving only speeds up the next open: a read-only file or a full disk does not stop this one.
    _ = try? saveIndex(index, builtAtGeneration: builtAt)
    let collection = FilteredCollection(
      index: index, schema: documentSchema,
      source: CatalogItemSource(store: self, schema: document.schema),
      typoTolerance: typoTolerance)
    let report = OpenReport(
      indexSource: .rebuilt(reason: reason), generation: builtAt,
      loadDuration: loaded - started, indexDuration: clock.now - loaded)
    return (collection, report)
  }

  func searchSchema(_ schema: CatalogSchema) throws(StoreError) -> SearchSchema<Item> {
    do throws(CatalogSchemaError) {
      return try SearchSchema<Item>(schema)
    } catch {
      throw .invalidSchema(path, error)
    }
  }

  /// Saves `index` as the file's archive if the items are still those it was built from
  /// (generation `generation`); returns whether it was saved.
  @discardableResult
  public func saveIndex(
    _ index: SearchIndex<ItemID>, builtAtGeneration generation: Int64
  ) throws(StoreError) -> Bool {
    let archive = index.archived()
    let nearSpellings = index.archivedNearSpellings()
    return try write { db in
      guard try Self.itemsGeneration(db) == generation else { return false }
      try Self.storeArchive(archive, nearSpellings: nearSpellings, generation: generation, db)
      return true
    }
  }

  /// Calls `body` with the near-spelling dictionaries saved with the archive stamped `stamp`,
  /// read in place; not at all when the file has none, or holds another archive by now.
  func withStoredNearSpellings(
    stamp: Int64, _ body: (UnsafeRawBufferPointer) -> Void
  ) throws(StoreError) {
    try read { db in
      let rows = try Row.fetchCursor(
        db, sql: "SELECT generation, near_spellings FROM search_index WHERE id = 1")
      guard let row = try rows.next(), row[0] as Int64 == stamp else { return }
      try row.withUnsafeData(atIndex: 1) { data in data?.withUnsafeBytes(body) }
    }
  }

  /// Builds the index of `document` — the items as they are in this transaction — and saves
  /// it stamped with their generation: what a create or an import leaves for the first open.
  func writeIndex(of document: CatalogDocument, _ db: Database) throws {
    // The index alone: no map of the items, no first search.
    let index = try SearchIndex(
      schema: SearchSchema<Item>(document.schema), elements: document.items)
    try Self.storeArchive(
      index.archived(), nearSpellings: index.archivedNearSpellings(),
      generation: try Self.itemsGeneration(db), db)
  }

  /// Writes one edit (`persist(_:)`) and follows which generation of the items an index kept
  /// current by the same edit answers: one edit moves the generation by exactly one, so when it
  /// moved by anything else another writer was at work, and `generation` becomes nil (that index
  /// must not be saved as current).
  public func persist(_ edit: CatalogEdit, tracking generation: inout Int64?) throws(StoreError) {
    let before = try itemsGeneration()
    try persist(edit)
    let after = try itemsGeneration()
    generation = generation == before && after == before + 1 ? after : nil
  }

  /// The items' generation now (it moves with every change to them).
  public func itemsGeneration() throws(StoreError) -> Int64 {
    try read { db in try Self.itemsGeneration(db) }
  }

  static func itemsGeneration(_ db: Database) throws -> Int64 {
    try Int64.fetchOne(db, sql: "SELECT value FROM items_generation WHERE id = 1") ?? 0
  }

  /// Above this many replayed items an open saves the archive it brought up to date.
  static func replaySaveThreshold(itemCount: Int) -> Int { max(256, itemCount / 100) }

  /// The archive's index brought up to date with the items changed since its stamp, read from
  /// the change log in the caller's transaction; nil when the log cannot explain every
  /// generation since (a schema change, an older format's edits), holds more changes than a
  /// fresh build would cost, or does not fit the index — the caller then builds afresh.
  static func replayed(
    archive bytes: UnsafeRawBufferPointer, stamp: Int64, generation: Int64,
    schema: CatalogSchema, _ db: Database
  ) throws -> (index: SearchIndex<ItemID>, replayed: Int)? {
    guard stamp < generation,
      try Int64.fetchOne(
        db, sql: "SELECT count(DISTINCT generation) FROM items_changes WHERE generation > ?",
        arguments: [stamp]) == generation - stamp
    else { return nil }
    // Per changed id: whether it took a new place (added, or deleted and added again).
    var changed: [ItemID: Bool] = [:]
    let rows = try Row.fetchCursor(
      db, sql: "SELECT id, max(inserted) FROM items_changes WHERE generation > ? GROUP BY id",
      arguments: [stamp])
    while let row = try rows.next() { changed[ItemID(row[0] as String)] = (row[1] as Int64) == 1 }
    guard var index = try? SearchIndex<ItemID>(archive: bytes, schema: schema),
      changed.count <= max(1_000, index.count / 10)
    else { return nil }
    let items = Dictionary(
      try items(withIDs: Array(changed.keys), fields: schema.fields, db).map { ($0.id, $0) },
      uniquingKeysWith: { first, _ in first })
    var removed: [ItemID] = []
    var updated: [Item] = []
    var placed: [ItemID] = []
    for (id, tookNewPlace) in changed {
      let inIndex = index.contains(id: id)
      if tookNewPlace || items[id] == nil {
        if inIndex { removed.append(id) }
        if items[id] != nil { placed.append(id) }
      } else if inIndex {
        updated.append(items[id]!)
      } else {
        return nil  // changed in place, yet never indexed: the log does not fit the archive
      }
    }
    // Items that took a new place went to the end of catalog order, after every item kept in
    // place: they must be the last ones by position, and join the index in that order.
    let last = try String.fetchAll(
      db, sql: "SELECT id FROM items ORDER BY position DESC LIMIT ?", arguments: [placed.count])
    guard Set(last) == Set(placed.map(\.rawValue)) else { return nil }
    let appended = last.reversed().compactMap { items[ItemID($0)] }
    do {
      try index.replay(
        removing: removed, updating: updated, appending: appended,
        schema: SearchSchema<Item>(schema))
    } catch {
      return nil
    }
    return (index, changed.count)
  }

  /// What `body` makes of the stored archive's stamp (the generation it answers) and bytes,
  /// read in place from SQLite's buffer; nil when the file has no archive.
  static func withStoredArchive<T>(
    _ db: Database, _ body: (Int64, UnsafeRawBufferPointer) throws -> T
  ) throws -> T? {
    let rows = try Row.fetchCursor(
      db, sql: "SELECT generation, archive FROM search_index WHERE id = 1")
    guard let row = try rows.next() else { return nil }
    let generation: Int64 = row[0]
    return try row.withUnsafeData(atIndex: 1) { data in
      try (data ?? Data()).withUnsafeBytes { try body(generation, $0) }
    }
  }

  /// The stored archive's stamp and a copy of its bytes (for tests and tools).
  static func storedArchive(_ db: Database) throws -> (generation: Int64, archive: [UInt8])? {
    try withStoredArchive(db) { generation, bytes in (generation, [UInt8](bytes)) }
  }

  /// Saves the archive and the near-spelling dictionaries that go with it, stamped together.
  static func storeArchive(
    _ archive: [UInt8], nearSpellings: [UInt8]?, generation: Int64, _ db: Database
  ) throws {
    // The archive answers every change up to its generation: their log entries are done with.
    try db.execute(sql: "DELETE FROM items_changes WHERE generation <= ?", arguments: [generation])
    try db.execute(
      sql: """
        INSERT INTO search_index (id, generation, archive, near_spellings) VALUES (1, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET generation = excluded.generation,
          archive = excluded.archive, near_spellings = excluded.near_spellings
        """,
      arguments: [generation, Data(archive), nearSpellings.map { Data($0) }])
  }
}
