import Foundation
import GRDB
import Sift

/// Where a copy comes from, and the version of its source it shows: its own table,
/// `sync_source`, which only a copy's writer writes — `sift sync`, or a PostgreSQL node for its
/// local copy (a catalog without it is no copy).
package struct SyncSource: Hashable, Sendable {
  package var url: String
  package var catalog: String
  package var identity: String
  package var version: Int64
  /// Which rows the copy holds: "all", or a tenant token's filters ("filter seller:42"). A copy
  /// read with a token that sees other rows starts over.
  package var rows: String

  package init(url: String, catalog: String, identity: String, version: Int64, rows: String) {
    self.url = url
    self.catalog = catalog
    self.identity = identity
    self.version = version
    self.rows = rows
  }

  /// `source` at `version`, as reached at `url` this time.
  init(_ source: SyncSource, version: Int64, url: URL) {
    self = source
    self.version = version
    self.url = url.absoluteString
  }
}

extension CatalogStore {
  /// Where this copy comes from; nil when no sync made it.
  package func syncSource() throws(StoreError) -> SyncSource? {
    try read { db in
      guard try db.tableExists("sync_source"),
        let row = try Row.fetchOne(
          db, sql: "SELECT url, catalog, identity, version, rows FROM sync_source WHERE id = 1")
      else { return nil }
      return SyncSource(
        url: row[0], catalog: row[1], identity: row[2], version: row[3], rows: row[4])
    }
  }

  /// The server's version this copy shows (`sift sync`'s record); nil when no sync made it.
  public func syncedVersion() throws(StoreError) -> Int64? { try syncSource()?.version }

  static func record(_ source: SyncSource, _ db: Database) throws {
    try db.execute(
      sql: """
        CREATE TABLE IF NOT EXISTS sync_source (
          id INTEGER PRIMARY KEY CHECK (id = 1), url TEXT NOT NULL, catalog TEXT NOT NULL,
          identity TEXT NOT NULL, version INTEGER NOT NULL, rows TEXT NOT NULL);
        INSERT INTO sync_source (id, url, catalog, identity, version, rows)
          VALUES (1, ?, ?, ?, ?, ?)
          ON CONFLICT(id) DO UPDATE SET url = excluded.url, catalog = excluded.catalog,
            identity = excluded.identity, version = excluded.version, rows = excluded.rows;
        """,
      arguments: [source.url, source.catalog, source.identity, source.version, source.rows])
  }

  /// A new copy at `url` of a catalog read whole — its schema, its items at their positions —
  /// with `source` recorded in it: what a PostgreSQL node loads. The items keep the source's
  /// positions, so that the source's changes (`applySynced`) replace them in place. A copy
  /// cut off before its source is recorded has none, and is not taken for one.
  ///
  /// Returns the index of the items, folded on other threads while they are written, and the
  /// copy's generation: not saved, so that the caller saves it where it serves the items
  /// (`saveIndex`, or `replaceContents` into another file).
  package static func createCopy(
    at url: URL, schema: CatalogSchema, items: [PositionedItem], source: SyncSource
  ) throws(StoreError) -> (index: SearchIndex<ItemID>, generation: Int64) {
    let store = try create(at: url, document: CatalogDocument(schema: schema, items: []))
    defer { try? store.close() }
    // In catalog order as given; items not in the order of their positions are indexed as
    // the file holds them, once written.
    let inOrder = zip(items, items.dropFirst()).allSatisfy { $0.position < $1.position }
    var builder = inOrder ? IndexBuilder(schema: try store.searchSchema(schema)) : nil
    try store.beginBulkCopy()
    var start = 0
    while start < items.count {
      let batch = items[start..<min(start + IndexBuilder.batchSize, items.count)]
      builder?.append(contentsOf: batch.lazy.map(\.item))
      try store.insertSynced(Array(batch))
      start = batch.endIndex
    }
    try store.endBulkCopy()
    try store.write { db in try Self.record(source, db) }
    let index: SearchIndex<ItemID>
    if let builder {
      index = try builder.finishIndex()
    } else {
      index = try store.indexOfItems()
    }
    return (index, try store.itemsGeneration())
  }

  /// A snapshot page's items, each at its position, in one transaction (of a new copy). An id
  /// the copy holds already (an item deleted and added again while the pages were read) takes
  /// its new place: the changes read after the pages end it as the server has it.
  func insertSynced(_ items: [PositionedItem]) throws(StoreError) {
    try write { db in
      let schema = try Self.schema(db, path: path)
      for item in items {
        try insert(item.item, position: item.position, schema: schema, replacing: true, db)
      }
    }
  }

  /// Readies a new copy for its items: the triggers that log each change go (a new copy's log
  /// starts after them), and nothing is flushed to disk until `endBulkCopy()`; a copy cut off
  /// meanwhile is thrown away whole. Three writes an item become one.
  func beginBulkCopy() throws(StoreError) {
    try write { db in
      let triggers = try String.fetchAll(
        db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'items'")
      try db.execute(
        sql: "CREATE TABLE IF NOT EXISTS bulk_copy_triggers (sql TEXT NOT NULL)")
      for trigger in triggers {
        try db.execute(sql: "INSERT INTO bulk_copy_triggers (sql) VALUES (?)", arguments: [trigger])
      }
      for name in try String.fetchAll(
        db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'items'")
      {
        try db.execute(sql: "DROP TRIGGER \(name.quotedDatabaseIdentifier)")
      }
    }
    try setSynchronous("OFF")
  }

  /// The triggers back, a new generation (no index built before is current), the log started
  /// from it, and everything flushed.
  func endBulkCopy() throws(StoreError) {
    try write { db in
      for trigger in try String.fetchAll(db, sql: "SELECT sql FROM bulk_copy_triggers") {
        try db.execute(sql: trigger)
      }
      try db.execute(sql: "DROP TABLE bulk_copy_triggers")
      try db.execute(sql: "UPDATE items_generation SET value = value + 1")
      try Self.restartLog(db)
    }
    try setSynchronous("FULL")
    do {
      try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
      }
    } catch {
      throw .failure(path, error)
    }
  }

  private func setSynchronous(_ level: String) throws(StoreError) {
    do {
      try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(level)")
      }
    } catch {
      throw .failure(path, error)
    }
  }

  /// `changes` made in order, and `source` recorded, in one transaction. A put replaces the
  /// item in place when it keeps its position, else takes its new one; a delete of an id the
  /// copy lacks is nothing. Counted by what each id was before and is after.
  package func applySynced(_ changes: [CatalogChange], source: SyncSource) throws(StoreError)
    -> SyncReport
  {
    try write { db in
      let schema = try Self.schema(db, path: path)
      var existed: [ItemID: Bool] = [:]
      var report = SyncReport(version: source.version)
      func position(of id: ItemID) throws -> Int64? {
        try Int64.fetchOne(
          db, sql: "SELECT position FROM items WHERE id = ?", arguments: [id.rawValue])
      }
      for change in changes {
        if let item = change.put, let place = change.position {
          let now = try position(of: item.id)
          if existed[item.id] == nil { existed[item.id] = now != nil }
          if now == place {
            _ = try replaceFields(of: item, schema: schema, db)
          } else {
            if now != nil {
              _ = try Self.deleteItem(item.id, schema: schema, db)
              // It took a new place: to a model in memory, it leaves and joins the end.
              report.changes.append(.delete(item.id, version: change.version))
            }
            try insert(item, position: place, schema: schema, db)
          }
          report.changes.append(change)
        } else if let id = change.delete {
          let now = try position(of: id)
          if existed[id] == nil { existed[id] = now != nil }
          if now != nil {
            _ = try Self.deleteItem(id, schema: schema, db)
            report.changes.append(change)
          }
        } else if let synonyms = change.synonyms {
          try Self.writeRules(synonyms: synonyms, pins: change.pins, db)
          report.synonymsChanged = true
          report.changes.append(change)
        }
      }
      for (id, before) in existed {
        switch (before, try position(of: id) != nil) {
        case (false, true): report.added += 1
        case (true, true): report.changed += 1
        case (true, false): report.deleted += 1
        case (false, false): break
        }
      }
      try Self.record(source, db)
      return report
    }
  }

  /// This copy's items, schema and synonyms replaced by those of the catalog file at `other` in
  /// one transaction: a copy made whole again, put in place while searches read the old one.
  /// `index`, of `other`'s items in catalog order, is saved as the copy's index file after it,
  /// so that the next open reads it rather than builds it.
  func replaceContents(
    with other: URL, schema: CatalogSchema, source: SyncSource,
    index: SearchIndex<ItemID>? = nil
  ) throws(StoreError) -> SyncReport {
    var generation: Int64?
    let report = try replaceContents(
      with: other, schema: schema, source: source, generation: &generation)
    if let index, let generation {
      _ = try? saveIndex(index, builtAtGeneration: generation, isLastUse: true)
    }
    return report
  }

  /// `replaceContents(with:schema:source:index:)` without the index: `generation` is the
  /// items' generation its transaction left.
  private func replaceContents(
    with other: URL, schema: CatalogSchema, source: SyncSource, generation: inout Int64?
  ) throws(StoreError) -> SyncReport {
    do {
      return try queue.writeWithoutTransaction { db in
        try db.execute(sql: "ATTACH DATABASE ? AS incoming", arguments: [other.path])
        defer { try? db.execute(sql: "DETACH DATABASE incoming") }
        var report = SyncReport(version: source.version)
        try db.inTransaction(.immediate) {
          report.added =
            try Int.fetchOne(
              db,
              sql: "SELECT count(*) FROM incoming.items WHERE id NOT IN (SELECT id FROM main.items)"
            ) ?? 0
          report.deleted =
            try Int.fetchOne(
              db,
              sql: "SELECT count(*) FROM main.items WHERE id NOT IN (SELECT id FROM incoming.items)"
            ) ?? 0
          try writeSchema(schema, db)
          let columns = (["id", "position"] + schema.allFields.map { Self.column($0.name) })
            .joined(separator: ", ")
          try db.execute(sql: "DELETE FROM main.items")
          try db.execute(
            sql: "INSERT INTO main.items (\(columns)) SELECT \(columns) FROM incoming.items")
          try Self.writeRules(synonyms: schema.synonyms, pins: schema.pins, db)
          try Self.record(source, db)
          generation = try Self.itemsGeneration(db)
          return .commit
        }
        return report
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw .failure(path, error)
    }
  }
}
