import Foundation
import GRDB
import Sift

/// The change feed of a catalog file: what a copy that follows it reads (`ChangeFeedPage`).
///
/// The log is `items_changes`: every change to an item logs its id under the generation it
/// moved the items to, in the change's transaction; a change of the synonyms logs the empty id
/// with `inserted` 2. The feed gives each changed id once, as its row is now (a put with its
/// position, or a delete when the row is gone), under the last generation that changed it. A
/// generation the log has no entry for — a schema change, which an import makes — cannot be
/// explained, and a copy from before it starts over; so does one from before `log_start`, the
/// generation up to which the log was cut (`retention`).
extension CatalogStore {
  /// How much of the log an index save keeps (when opening after many changes, after an
  /// import, when the terminal app closes the file): what a copy may fall behind by and still
  /// catch up with the changes alone — the rule a PostgreSQL catalog's log is kept by too.
  /// `ChangeLogRetention()` unless set (`sift serve --keep-changes/--keep-days`).
  public var retention: ChangeLogRetention {
    get { keptRetention.withLock { $0 } }
    set { keptRetention.withLock { $0 = newValue } }
  }

  /// The `inserted` of a log entry that says the synonyms changed (under the empty id).
  static let synonymsEntry: Int64 = 2

  /// The triggers that move the generation and log each change to an item, as the latest
  /// migration that made them (v3) has them. An import drops and makes them again
  /// (`withoutChangeLog`): a later migration that changes them must change this text too, and
  /// v3 must then keep its own copy of the old one.
  static let changeLogTriggers = """
    CREATE TRIGGER items_inserted AFTER INSERT ON items BEGIN
      UPDATE items_generation SET value = value + 1;
      INSERT INTO items_changes (generation, id, inserted) SELECT value, NEW.id, 1 FROM items_generation;
    END;
    CREATE TRIGGER items_updated AFTER UPDATE ON items BEGIN
      UPDATE items_generation SET value = value + 1;
      INSERT INTO items_changes (generation, id, inserted) SELECT value, OLD.id, 0 FROM items_generation;
      INSERT INTO items_changes (generation, id, inserted) SELECT value, NEW.id, 1 FROM items_generation
        WHERE NEW.id IS NOT OLD.id OR NEW.position IS NOT OLD.position;
    END;
    CREATE TRIGGER items_deleted AFTER DELETE ON items BEGIN
      UPDATE items_generation SET value = value + 1;
      INSERT INTO items_changes (generation, id, inserted) SELECT value, OLD.id, 0 FROM items_generation;
    END;
    """

  /// Runs `body`, whose changes to the items an import logs no further (it restarts the log
  /// after them, `restartLog`), without the change log's triggers, then moves the generation
  /// once by the rows `body` says it changed: a row written costs one write instead of three.
  /// In the caller's transaction, so a failed import leaves the triggers as they were.
  static func withoutChangeLog(_ db: Database, _ body: () throws -> Int) throws {
    try db.execute(
      sql: "DROP TRIGGER items_inserted; DROP TRIGGER items_updated; DROP TRIGGER items_deleted")
    let changed = try body()
    try db.execute(
      sql: "UPDATE items_generation SET value = value + ?", arguments: [max(1, changed)])
    try db.execute(sql: changeLogTriggers)
  }

  /// The log restarted at the current generation: what a new catalog or an import leaves, since
  /// a copy from before it starts over anyway.
  static func restartLog(_ db: Database) throws {
    try db.execute(sql: "DELETE FROM items_changes")
    try db.execute(
      sql: "UPDATE feed SET log_start = (SELECT value FROM items_generation WHERE id = 1)")
  }

  /// The log cut by `retention`, but never past `generation` (the index file's, which an open
  /// replays the log from). An entry past the count kept is stamped with the time it was first
  /// seen so, and goes once that is `retention.days` old: a stamp is never earlier than its
  /// entry, so nothing goes sooner than the rule says.
  static func trimLog(
    keepingAfter generation: Int64, retention: ChangeLogRetention, _ db: Database
  ) throws {
    let bound = min(generation, retention.newestCut(at: try itemsGeneration(db)))
    let logStart = try feedState(db, path: "").logStart
    guard bound > logStart else { return }
    let now = Int64(Date().timeIntervalSince1970)
    try db.execute(
      sql: "UPDATE items_changes SET at = ? WHERE generation <= ? AND at IS NULL",
      arguments: [now, bound])
    // Cut up to the first entry too young to go (stamps grow with generations).
    let youngest = try Int64.fetchOne(
      db, sql: "SELECT min(generation) FROM items_changes WHERE generation <= ? AND at > ?",
      arguments: [bound, now - Int64(retention.seconds)])
    let cut = youngest.map { $0 - 1 } ?? bound
    guard cut > logStart else { return }
    try db.execute(sql: "DELETE FROM items_changes WHERE generation <= ?", arguments: [cut])
    try db.execute(sql: "UPDATE feed SET log_start = ?", arguments: [cut])
  }

  /// The log cut by `retention` now (an index save does it with the store's `retention`).
  func trimLog(_ retention: ChangeLogRetention) throws(StoreError) {
    try write { db in
      try Self.trimLog(keepingAfter: try Self.itemsGeneration(db), retention: retention, db)
    }
  }

  /// The catalog's identity (a file made again has another) and the generation its log
  /// explains changes after.
  static func feedState(_ db: Database, path: String) throws -> (
    identity: String, logStart: Int64
  ) {
    guard let row = try Row.fetchOne(db, sql: "SELECT identity, log_start FROM feed WHERE id = 1")
    else {
      throw StoreError.database(path, message: "the catalog has no change feed (damaged file)")
    }
    let identity: String = row[0]
    return (fileTag(path).map { identity + "." + $0 } ?? identity, row[1])
  }

  /// Which file this is on its disk (its device and inode): part of the identity a copy
  /// follows. A catalog file copied elsewhere (a backup restored, a folder copied) holds the
  /// same log up to the copy, then each copy goes its own way from the same version on: a copy
  /// that followed one must not take the other's changes for its next ones. A copy has another
  /// inode, so another identity, and a copy that followed the first starts over whole. Nil
  /// where the file system says nothing.
  static func fileTag(_ path: String) -> String? {
    guard !path.isEmpty,
      let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value,
      let device = (attributes[.systemNumber] as? NSNumber)?.uint64Value
    else { return nil }
    return String(device, radix: 16) + "-" + String(inode, radix: 16)
  }

  /// The changes after generation `since`, at most about `limit` ids (the ids of the last
  /// generation given are never split), read in one transaction; or why a copy at `since` must
  /// start over.
  public func changes(
    since: Int64, limit: Int, catalog name: String, visible: FeedVisibility?
  ) throws(StoreError) -> ChangeFeedAnswer {
    let path = path
    return try read { db -> ChangeFeedAnswer in
      try Self.changes(db, since: since, limit: limit, catalog: name, visible: visible, path: path)
    }
  }

  /// `changes(since:limit:catalog:visible:)` for a served catalog that follows its file
  /// (`StoredCatalog.catchUpWithFile()`), as a copy's sync reports them
  /// (`SyncReport.changes`): an item that took a new place in catalog order in the page's
  /// versions — added, or deleted and added again, as its log's inserts say — comes as a
  /// delete and a put, so that a collection in memory moves it to the end rather than
  /// replaces it where it was.
  func followedChanges(
    since: Int64, limit: Int, catalog name: String
  ) throws(StoreError) -> ChangeFeedAnswer {
    let path = path
    return try read { db in try Self.followedChanges(db, since: since, limit: limit, name, path) }
  }

  /// `followedChanges(since:limit:catalog:)` in the read transaction `db`.
  private static func followedChanges(
    _ db: Database, since: Int64, limit: Int, _ name: String, _ path: String
  ) throws -> ChangeFeedAnswer {
    let answer = try changes(
      db, since: since, limit: limit, catalog: name, visible: nil, path: path)
    guard case .page(var page) = answer else { return answer }
    let placed = Set(
      try String.fetchAll(
        db,
        sql: """
          SELECT DISTINCT id FROM items_changes
          WHERE generation > ? AND generation <= ? AND inserted = 1
          """, arguments: [since, page.next ?? page.version]))
    page.changes = page.changes.flatMap { change -> [CatalogChange] in
      guard let item = change.put, placed.contains(item.id.rawValue) else { return [change] }
      return [.delete(item.id, version: change.version), change]
    }
    return .page(page)
  }

  /// `changes(since:limit:catalog:visible:)` in the read transaction `db`.
  static func changes(
    _ db: Database, since: Int64, limit: Int, catalog name: String, visible: FeedVisibility?,
    path: String
  ) throws -> ChangeFeedAnswer {
    let (identity, logStart) = try Self.feedState(db, path: path)
    let now = try Self.itemsGeneration(db)
    func startOver(_ reason: String) -> ChangeFeedAnswer {
      .startOver(reason: reason, identity: identity, version: now)
    }
    if since > now {
      return startOver(
        "since: version \(since) is past catalog \(name)'s version \(now): it is another catalog, or was restored from an older copy"
      )
    }
    if since < logStart {
      return startOver(
        "since: version \(since) is older than the log catalog \(name) keeps, which starts after version \(logStart)"
      )
    }
    guard try Self.changeLogExplains(from: since, to: now, db) else {
      return startOver(
        "since: catalog \(name)'s schema changed after version \(since) (an import)")
    }
    // Each changed id once, under the last generation that changed it.
    var changed: [(id: String, version: Int64)] = []
    let rows = try Row.fetchCursor(
      db,
      sql: """
        SELECT id, max(generation) AS last FROM items_changes WHERE generation > ?
        GROUP BY id ORDER BY last, id
        """, arguments: [since])
    var more = false
    while let row = try rows.next() {
      let version: Int64 = row[1]
      if changed.count >= limit, version != changed.last!.version {
        more = true
        break
      }
      changed.append((row[0], version))
    }
    let schema = try Self.schema(db, path: path)
    let pins = try Self.pins(of: schema, visible: visible, db)
    let ids = changed.map { ItemID($0.id) }.filter { !$0.rawValue.isEmpty }
    let found = Dictionary(
      try Self.positionedItems(withIDs: ids, fields: schema.allFields, db).map {
        ($0.item.id, $0)
      }, uniquingKeysWith: { first, _ in first })
    let changes = changed.map { (id, version) -> CatalogChange in
      if id.isEmpty { return .synonyms(schema.synonyms, pins: pins, version: version) }
      guard let item = found[ItemID(id)] else { return .delete(ItemID(id), version: version) }
      return .put(item.item, at: item.position, version: version)
    }
    let page = ChangeFeedPage(
      catalog: name, identity: identity, version: now, changes: changes,
      next: more ? changed.last!.version : nil)
    guard let visible else { return .page(page) }
    let before = try Self.itemsAt(since, ids: Set(changed.map(\.id)), db)
    return .page(
      page.restricted(to: visible) { id in
        // Not there at `since`: the reader never saw it. There, but from a log older than
        // the items' own record of it: it may have.
        guard let was = before[id.rawValue] else { return false }
        return was.map(visible) ?? true
      })
  }

  /// Of `ids`, those the catalog held at generation `since`, each with what it held then (nil
  /// when a log entry from before the record of it cannot tell): the first change of each after
  /// `since` replaced or deleted it, and kept what it held (`items_changes.previous`).
  static func itemsAt(
    _ since: Int64, ids: Set<String>, _ db: Database
  ) throws -> [String: Item?] {
    var held: [String: Item?] = [:]
    let rows = try Row.fetchCursor(
      db,
      sql: """
        SELECT c.id, c.previous FROM items_changes c
        JOIN (SELECT id, min(generation) AS first FROM items_changes WHERE generation > ?
          GROUP BY id) f ON c.id = f.id AND c.generation = f.first
        WHERE c.inserted = 0
        """, arguments: [since])
    while let row = try rows.next() {
      let id: String = row[0]
      guard ids.contains(id) else { continue }
      let previous: Data? = row[1]
      held[id] = previous.flatMap { FeedPrevious.decode($0, id: ItemID(id)) }
    }
    return held
  }

  /// The items after `position` in catalog order, at most `limit`, that `visible` admits, with
  /// the schema and generation, read in one transaction.
  public func snapshot(
    after position: Int64?, limit: Int, catalog name: String, visible: FeedVisibility?
  ) throws(StoreError) -> CatalogSnapshotPage {
    try read { db in
      let (identity, _) = try Self.feedState(db, path: path)
      var schema = try Self.schema(db, path: path)
      schema.pins = try Self.pins(of: schema, visible: visible, db)
      let columns = schema.allFields.map { ", " + Self.column($0.name) }.joined()
      let rows = try Row.fetchCursor(
        db,
        sql:
          "SELECT id, position\(columns) FROM items WHERE position > ? ORDER BY position LIMIT ?",
        arguments: [position ?? Int64.min, limit])
      var items: [PositionedItem] = []
      var last: Int64?
      var read = 0
      while let row = try rows.next() {
        let item = Self.positionedItem(row, fields: schema.allFields)
        last = item.position
        read += 1
        if visible?(item.item) ?? true { items.append(item) }
      }
      return CatalogSnapshotPage(
        catalog: name, identity: identity, version: try Self.itemsGeneration(db), schema: schema,
        items: items, next: read == limit ? last : nil,
        last: try Int64.fetchOne(db, sql: "SELECT max(position) FROM items"))
    }
  }

  /// `schema`'s pins as a reader framed by `visible` may see them (`Pins.visible(to:item:)`):
  /// all of them without a frame.
  static func pins(
    of schema: CatalogSchema, visible: FeedVisibility?, _ db: Database
  ) throws -> Pins {
    let pins = schema.pins
    guard let visible, !pins.isEmpty else { return pins }
    let ids = Array(Set(pins.entries.map(\.id)))
    let items = Dictionary(
      try positionedItems(withIDs: ids, fields: schema.allFields, db).map {
        ($0.item.id, $0.item)
      }, uniquingKeysWith: { first, _ in first })
    return pins.visible(to: visible) { items[$0] }
  }

  /// The item in `row` with its position: id, position, then one column per field of `fields`.
  static func positionedItem(_ row: Row, fields: [FieldDefinition]) -> PositionedItem {
    PositionedItem(position: row[1], item: item(row, fields: fields, firstField: 2))
  }

  /// The items with these ids that exist, with their positions, in any order.
  static func positionedItems(
    withIDs ids: [ItemID], fields: [FieldDefinition], _ db: Database
  ) throws -> [PositionedItem] {
    var items: [PositionedItem] = []
    items.reserveCapacity(ids.count)
    let columns = "id, position" + fields.map { ", " + column($0.name) }.joined()
    try rows(withIDs: ids, columns: columns, db) {
      items.append(positionedItem($0, fields: fields))
    }
    return items
  }
}

/// What an item held before a change, as the log keeps it: its fields as one JSON object
/// (`Item.fieldsJSON`).
enum FeedPrevious {
  static func encode(_ item: Item) -> [UInt8] { item.fieldsJSON.bytes }

  /// The item back; nil when the bytes do not read as an object.
  static func decode(_ bytes: Data, id: ItemID) -> Item? {
    (try? JSONValue.parse(bytes)).flatMap { Item(id: id, fieldsJSON: $0) }
  }
}
