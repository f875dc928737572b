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
    // place (not copied) when it is stamped with that generation.
    let opened:
      (
        schema: CatalogSchema, generation: Int64,
        archive: Result<SearchIndex<ItemID>, IndexArchive.Failure>?
      ) = try read { db in
        let schema = try Self.schema(db, path: path)
        let generation = try Self.itemsGeneration(db)
        let archive = try Self.withStoredArchive(db) { stamp, bytes in
          decodingStarted = clock.now
          return stamp == generation
            ? Result { () throws(IndexArchive.Failure) in
              try SearchIndex<ItemID>(archive: bytes, schema: schema)
            } : nil
        }
        return (schema, generation, archive ?? nil)
      }
    let schema = try searchSchema(opened.schema)
    let reason: String
    switch opened.archive {
    case .success(let index):
      let collection = FilteredCollection(
        index: index, schema: schema, source: CatalogItemSource(store: self, schema: opened.schema),
        typoTolerance: typoTolerance)
      let report = OpenReport(
        indexSource: .archive, generation: opened.generation,
        loadDuration: decodingStarted - started, indexDuration: clock.now - decodingStarted)
      return (collection, report)
    case .failure(let failure):
      reason = "\(failure)"
    case nil:
      reason =
        try hasStoredArchive() ? "the items changed since it was saved" : "the file had none yet"
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
    return try write { db in
      guard try Self.itemsGeneration(db) == generation else { return false }
      try Self.storeArchive(archive, generation: generation, db)
      return true
    }
  }

  /// Builds the index of `document` — the items as they are in this transaction — and saves
  /// it stamped with their generation: what a create or an import leaves for the first open.
  func writeIndex(of document: CatalogDocument, _ db: Database) throws {
    // The index alone: no map of the items, no first search.
    let index = try SearchIndex(
      schema: SearchSchema<Item>(document.schema), elements: document.items)
    try Self.storeArchive(index.archived(), generation: try Self.itemsGeneration(db), db)
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

  func hasStoredArchive() throws(StoreError) -> Bool {
    try read { db in try Bool.fetchOne(db, sql: "SELECT 1 FROM search_index WHERE id = 1") ?? false
    }
  }

  static func storeArchive(_ archive: [UInt8], generation: Int64, _ db: Database) throws {
    try db.execute(
      sql: """
        INSERT INTO search_index (id, generation, archive) VALUES (1, ?, ?)
        ON CONFLICT(id) DO UPDATE SET generation = excluded.generation, archive = excluded.archive
        """,
      arguments: [generation, Data(archive)])
  }
}
