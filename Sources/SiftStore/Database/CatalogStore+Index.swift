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

  /// The catalog's items and a search over them, its index read from the file when it is
  /// current, else built from the items and saved for the next open.
  ///
  /// - Complexity: reading every item; then O(size of the archive), or a full build.
  public func openCollection(
    typoTolerance: TypoTolerance = .automatic
  ) throws(StoreError) -> (collection: FilteredCollection, report: OpenReport) {
    let clock = ContinuousClock()
    let started = clock.now
    // One read transaction: the items, and the generation they are at.
    let snapshot: (CatalogDocument, Int64, (generation: Int64, archive: [UInt8])?) = try read {
      db in (try self.document(db), try Self.itemsGeneration(db), try Self.storedArchive(db))
    }
    let loaded = clock.now
    let (document, generation, stored) = snapshot
    let schema: SearchSchema<Item>
    do throws(CatalogSchemaError) {
      schema = try SearchSchema<Item>(document.schema)
    } catch {
      throw .invalidSchema(path, error)
    }
    let reason: String
    if let stored, stored.generation == generation {
      do {
        let index = try SearchIndex<ItemID>(archive: stored.archive, schema: document.schema)
        let collection = try FilteredCollection(
          document.items, schema: schema, index: index, typoTolerance: typoTolerance)
        let report = OpenReport(
          indexSource: .archive, generation: generation, loadDuration: loaded - started,
          indexDuration: clock.now - loaded)
        return (collection, report)
      } catch {
        reason = "\(error)"
      }
    } else {
      reason = stored == nil ? "the file had none yet" : "the items changed since it was saved"
    }
    let collection: FilteredCollection
    do throws(CatalogEditError) {
      collection = try FilteredCollection(
        document.items, schema: schema, typoTolerance: typoTolerance)
    } catch {
      throw .edit(error)
    }
    // Saving only speeds up the next open: a read-only file or a full disk does not stop this one.
    _ = try? saveIndex(collection.index, builtAtGeneration: generation)
    let report = OpenReport(
      indexSource: .rebuilt(reason: reason), generation: generation,
      loadDuration: loaded - started, indexDuration: clock.now - loaded)
    return (collection, report)
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

  static func storedArchive(_ db: Database) throws -> (generation: Int64, archive: [UInt8])? {
    guard
      let row = try Row.fetchOne(
        db, sql: "SELECT generation, archive FROM search_index WHERE id = 1")
    else { return nil }
    let data: Data = row[1]
    return (row[0], [UInt8](data))
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
