import CHeapUsage
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
  /// - Complexity: when the file is current, the pages the first search reads — and its whole
  ///   size once to check it, when it is not as Sift wrote it (copied, written to); otherwise
  ///   reading every item and a full build.
  /// - Parameter progress: hears of a rebuild, and why, as it starts (it takes seconds where
  ///   reading the file takes milliseconds): for a terminal or a server's log.
  public func openCollection(
    typoTolerance: TypoTolerance = .automatic, progress: (String) -> Void = { _ in }
  ) throws(StoreError) -> (collection: FilteredCollection, report: OpenReport) {
    let clock = ContinuousClock()
    let started = clock.now
    var decodingStarted = started
    // One read transaction: the schema, the items' generation, and the index file the catalog
    // records — mapped, and read in place when it answers that generation. `archive` is nil
    // when the catalog records none, `.some(nil)` when it is stale and the change log cannot
    // bring it up to date.
    typealias Opened = Result<
      (index: SearchIndex<ItemID>, file: MappedIndexFile, replayed: Int), Unreadable
    >
    let opened: (schema: CatalogSchema, generation: Int64, archive: Opened??) = try read { db in
      let schema = try Self.schema(db, path: path)
      let generation = try Self.itemsGeneration(db)
      let archive = try Self.withIndexFile(db, catalog: url) { mapping -> Opened? in
        decodingStarted = clock.now
        let file: MappedIndexFile
        switch mapping {
        case .success(let mapped): file = mapped
        case .failure(let failure): return .failure(Unreadable(reason: "\(failure)"))
        }
        if file.header.generation == generation {
          return Opened { () throws(Unreadable) in
            do throws(IndexArchive.Failure) {
              let index = try SearchIndex<ItemID>(
                borrowing: file.archive, keptBy: file, checksum: file.checksumCheck,
                schema: schema)
              return (index, file, 0)
            } catch {
              throw Unreadable(reason: "\(error)")
            }
          }
        }
        return try Self.replayed(
          archive: file, generation: generation, schema: schema, db
        ).map { Opened.success(($0.index, file, $0.replayed)) }
      }
      return (schema, generation, archive)
    }
    let schema = try searchSchema(opened.schema)
    let reason: String
    switch opened.archive {
    case .success(let read)??:
      var index = read.index
      let replayed = read.replayed
      if let trigrams = read.file.trigrams {
        index.useStoredTrigrams(trigrams, keptBy: read.file, checksum: read.file.checksumCheck)
      }
      // A long log is folded into a fresh file, so later opens replay nothing.
      if replayed > Self.replaySaveThreshold(itemCount: index.count) {
        _ = try? saveIndex(index, builtAtGeneration: opened.generation)
      } else if read.file.nearSpellings != nil {
        // Read when first needed, from the same mapped file.
        let file = read.file
        index.readNearSpellings(borrowingWhenNeeded: {
          file.verifiedNearSpellings().map { ($0, file, file.checksumCheck) }
        })
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
      reason = failure.reason
    case .some(nil):
      reason = "the items changed since it was saved"
    case nil:
      reason = "the file had none yet"
    }
    progress("building the search index: \(reason)")
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

  /// Why a saved index was not read.
  struct Unreadable: Error {
    let reason: String
  }

  func searchSchema(_ schema: CatalogSchema) throws(StoreError) -> SearchSchema<Item> {
    do throws(CatalogSchemaError) {
      return try SearchSchema<Item>(schema)
    } catch {
      throw .invalidSchema(path, error)
    }
  }

  /// Saves `index` as the catalog's index file if the items are still those it was built from
  /// (generation `generation`); returns whether it was saved. The file is written and flushed
  /// before the transaction that checks the generation renames it into place and records it.
  /// `isLastUse`: nobody searches `index` afterwards (a copy's, opened from the file next), so
  /// what is built only to be saved is let go as soon as it is written. `evenIfChanged`: saved
  /// though the items changed since `generation` (edits served while it was written): the
  /// next open replays the log from it.
  @discardableResult
  package func saveIndex(
    _ index: SearchIndex<ItemID>, builtAtGeneration generation: Int64, isLastUse: Bool = false,
    evenIfChanged: Bool = false
  ) throws(StoreError) -> Bool {
    func current(_ now: Int64) -> Bool { evenIfChanged ? now >= generation : now == generation }
    guard current(try itemsGeneration()) else { return false }
    let written: (temporary: URL, token: UUID)
    do {
      written = try writeIndexFile(index, generation: generation, isLastUse: isLastUse)
    } catch {
      throw .failure(path, error)
    }
    return try write { db in
      guard current(try Self.itemsGeneration(db)) else {
        unlink(written.temporary.path)
        return false
      }
      try Self.install(
        written.temporary, token: written.token, generation: generation, url, retention: retention,
        db)
      return true
    }
  }

  /// Builds the index of `document` — the items as they are in this transaction — and saves
  /// it stamped with their generation: what a create leaves for the first open.
  func writeIndex(of document: CatalogDocument, _ db: Database) throws {
    // The index alone: no map of the items, no first search.
    try writeIndex(
      try SearchIndex(schema: SearchSchema<Item>(document.schema), elements: document.items), db)
  }

  /// Saves `index` — of the items as they are in this transaction — stamped with their
  /// generation: what a create or an import leaves for the first open.
  ///
  /// - Parameters:
  ///   - progress: the share of the work done, as it is done (its archive made, the trigrams,
  ///     the typo dictionaries).
  ///   - isLastUse: nobody searches `index` afterwards (an import's): what it builds to be
  ///     saved is let go as soon as it is written.
  func writeIndex(
    _ index: SearchIndex<ItemID>, _ db: Database, isLastUse: Bool = false,
    progress: (Double) -> Void = { _ in }
  ) throws {
    let generation = try Self.itemsGeneration(db)
    let written = try writeIndexFile(
      index, generation: generation, isLastUse: isLastUse, progress: progress)
    try Self.install(
      written.temporary, token: written.token, generation: generation, url, retention: retention, db
    )
  }

  /// Writes `index` — its archive, near-spelling dictionaries and trigram index — as an index
  /// file under a temporary name beside the catalog, with a fresh token, for `install`.
  private func writeIndexFile(
    _ index: SearchIndex<ItemID>, generation: Int64, isLastUse: Bool = false,
    progress: (Double) -> Void = { _ in }
  ) throws -> (temporary: URL, token: UUID) {
    let token = UUID()
    // Each section written to the file as it is made: the archive (its first matches of short
    // needles are searched with the trigrams), the trigrams, then the typo dictionaries — built
    // once the trigrams are written and, for an index nobody searches next, let go. The shares
    // measured on the cities: the archive takes most of it.
    let temporary = try IndexFile.writeTemporary(
      beside: IndexFile.url(forCatalogAt: url), token: token, generation: generation,
      sections: [
        (0, { index.writeArchive(to: $0) }),
        (
          2,
          { sink in
            _ = index.archivedTrigrams(sink: sink)
            if isLastUse { index.releaseTrigrams() }
          }
        ),
        (1, { _ = index.archivedNearSpellings(sink: $0) }),
      ],
      starting: {
        // What the section before built and wrote, back to the system before the next.
        sift_release_free_heap()
        progress([0, 0.8, 0.85][$0])
      })
    return (temporary, token)
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

  /// The mapped file's index brought up to date with the items changed since its generation,
  /// read from the change log in the caller's transaction; nil when the log cannot explain
  /// every generation since (a schema change, an older format's edits), holds more changes
  /// than a fresh build would cost, or does not fit the index — the caller then builds afresh.
  static func replayed(
    archive file: MappedIndexFile, generation: Int64, schema: CatalogSchema, _ db: Database
  ) throws -> (index: SearchIndex<ItemID>, replayed: Int)? {
    let stamp = file.header.generation
    guard stamp < generation, try changeLogExplains(from: stamp, to: generation, db)
    else { return nil }
    // Per changed id: whether it took a new place (added, or deleted and added again).
    var changed: [ItemID: Bool] = [:]
    let rows = try Row.fetchCursor(
      db,
      sql: """
        SELECT id, max(inserted) FROM items_changes WHERE generation > ? AND inserted < 2
        GROUP BY id
        """, arguments: [stamp])
    while let row = try rows.next() { changed[ItemID(row[0] as String)] = (row[1] as Int64) == 1 }
    guard
      var index = try? SearchIndex<ItemID>(
        borrowing: file.archive, keptBy: file, checksum: file.checksumCheck, schema: schema),
      changed.count <= max(1_000, index.count / 10)
    else { return nil }
    let items = Dictionary(
      try items(withIDs: Array(changed.keys), fields: schema.indexedFields, db).map {
        ($0.id, $0)
      },
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

  /// What `body` makes of the index file the catalog records, mapped (or why it could not be);
  /// nil when the catalog records none.
  static func withIndexFile<T>(
    _ db: Database, catalog: URL,
    _ body: (Result<MappedIndexFile, MappedIndexFile.Failure>) throws -> T
  ) throws -> T? {
    guard
      let row = try Row.fetchOne(
        db, sql: "SELECT generation, token, stamp FROM index_file WHERE id = 1")
    else { return nil }
    guard let token = UUID(uuidString: row[1] as String) else {
      return try body(.failure(.otherSave))
    }
    let url = IndexFile.url(forCatalogAt: catalog)
    return try body(
      Result { () throws(MappedIndexFile.Failure) in
        try MappedIndexFile(
          url: url, token: token, generation: row[0], stamp: IndexFile.Stamp(recorded: row[2]))
      })
  }

  /// The index file the catalog records, mapped (for tests and tools); nil when it records none
  /// or the file is not readable.
  func mappedIndexFile() throws(StoreError) -> MappedIndexFile? {
    try read { db in try Self.withIndexFile(db, catalog: url) { try? $0.get() } ?? nil }
  }

  /// Renames the index file written at `temporary` into place and records it in the catalog:
  /// its token, the generation it answers and its stamp once in place (so that opening trusts
  /// it while it keeps that stamp). The change log up to that generation is done with, but for
  /// the copies that follow the catalog (`trimLog`).
  static func install(
    _ temporary: URL, token: UUID, generation: Int64, _ catalog: URL,
    retention: ChangeLogRetention, _ db: Database
  ) throws {
    try trimLog(keepingAfter: generation, retention: retention, db)
    try db.execute(
      sql: """
        INSERT INTO index_file (id, generation, token, stamp) VALUES (1, ?, ?, NULL)
        ON CONFLICT(id) DO UPDATE SET generation = excluded.generation, token = excluded.token,
          stamp = NULL
        """,
      arguments: [generation, token.uuidString])
    let final = IndexFile.url(forCatalogAt: catalog)
    try IndexFile.install(temporary, at: final)
    try recordStamp(ofIndexFileAt: final, db)
  }

  /// Records the stamp the index file at `url` has now, for the file the catalog records.
  static func recordStamp(ofIndexFileAt url: URL, _ db: Database) throws {
    guard let stamp = IndexFile.Stamp(ofFileAt: url) else { return }
    try db.execute(sql: "UPDATE index_file SET stamp = ? WHERE id = 1", arguments: [stamp.text])
  }
}
