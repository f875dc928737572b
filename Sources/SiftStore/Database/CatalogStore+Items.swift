import Foundation
import GRDB
import Sift

extension CatalogStore {
  /// The column of a field in the items table: `f_` and the field's name, so that any name —
  /// `id`, `position`, one with spaces — is safe.
  static func column(_ field: String) -> String { ("f_" + field).quotedDatabaseIdentifier }

  // MARK: - Reading

  /// The schema and every item in catalog order.
  ///
  /// - Complexity: one pass over the items table; multi-valued text is decoded from bytes.
  public func loadDocument() throws(StoreError) -> CatalogDocument {
    try read { db in try document(db) }
  }

  /// The schema and every item, read in the caller's transaction.
  func document(_ db: Database) throws -> CatalogDocument {
    let schema = try Self.schema(db, path: path)
    let columns = schema.allFields.map { Self.column($0.name) }
    let sql = "SELECT id\(columns.map { ", \($0)" }.joined()) FROM items ORDER BY position"
    var items: [Item] = []
    items.reserveCapacity(try Int.fetchOne(db, sql: "SELECT count(*) FROM items") ?? 0)
    let rows = try Row.fetchCursor(db, sql: sql)
    while let row = try rows.next() { items.append(Self.item(row, fields: schema.allFields)) }
    return CatalogDocument(schema: schema, items: items)
  }

  /// The item in `row`: its id first, then (from column `firstField`) one column per field of
  /// `fields`, in order.
  static func item(_ row: Row, fields: [FieldDefinition], firstField: Int = 1) -> Item {
    let id: String = row[0]
    var values: [String: FieldValue] = [:]
    values.reserveCapacity(fields.count)
    for (index, field) in fields.enumerated() {
      if let value = fieldValue(row[index + firstField]) { values[field.name] = value }
    }
    return Item(id: ItemID(id), fields: values)
  }

  /// The items with these ids that exist, in any order, read in the caller's transaction: the
  /// few rows a screen shows, or many in batches.
  static func items(
    withIDs ids: [ItemID], fields: [FieldDefinition], _ db: Database
  ) throws -> [Item] {
    var items: [Item] = []
    items.reserveCapacity(ids.count)
    try rows(withIDs: ids, columns: "id" + fields.map { ", " + column($0.name) }.joined(), db) {
      items.append(item($0, fields: fields))
    }
    return items
  }

  /// Each row of the items with these ids that exist, in any order, with `columns`.
  static func rows(
    withIDs ids: [ItemID], columns: String, _ db: Database, _ body: (Row) throws -> Void
  ) throws {
    // SQLite takes at most 32,766 parameters; a few hundred keep each statement small.
    let batch = 500
    for start in stride(from: 0, to: ids.count, by: batch) {
      let chunk = ids[start..<min(start + batch, ids.count)]
      let sql =
        "SELECT \(columns) FROM items WHERE id IN (?\(String(repeating: ", ?", count: chunk.count - 1)))"
      let statement = try db.cachedStatement(sql: sql)
      let rows = try Row.fetchCursor(
        statement, arguments: StatementArguments(chunk.map(\.rawValue)))
      while let row = try rows.next() { try body(row) }
    }
  }

  public func loadSchema() throws(StoreError) -> CatalogSchema {
    try read { db in try Self.schema(db, path: path) }
  }

  public func itemCount() throws(StoreError) -> Int {
    try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") ?? 0 }
  }

  public func item(id: ItemID) throws(StoreError) -> Item? {
    try read { db in
      try Self.items(withIDs: [id], fields: Self.schema(db, path: path).allFields, db).first
    }
  }

  /// The items with these ids as they were at the items' generation `generation` (nil: now),
  /// read in one transaction. A server searches a collection of one generation while edits are
  /// saved: a page's rows are read as that search saw them — an item changed since is what the
  /// change log kept of it (`items_changes.previous`) — without holding a read transaction open
  /// between edits, which would keep SQLite from ever restarting its write-ahead log. Where the
  /// log cannot tell (cut past `generation`, or a change made without Sift), the item as the
  /// file holds it now. Nil in place of an id no longer held.
  public func items(
    withIDs ids: [ItemID], fields: [FieldDefinition], asOf generation: Int64?
  ) throws(StoreError) -> [Item?] {
    try read { db in
      let now = try Self.items(withIDs: ids, fields: fields, db)
      var byID = Dictionary(now.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
      if let generation, try Self.itemsGeneration(db) > generation,
        try Self.feedState(db, path: "").logStart <= generation
      {
        let held = try Self.itemsAt(generation, ids: Set(ids.map(\.rawValue)), db)
        for case let (id, item?) in held { byID[ItemID(id)] = item }
      }
      return ids.map { byID[$0] }
    }
  }

  /// Whether `items_changes` holds an entry for every generation after `start` up to `end`.
  static func changeLogExplains(from start: Int64, to end: Int64, _ db: Database) throws -> Bool {
    try Int64.fetchOne(
      db, sql: "SELECT count(DISTINCT generation) FROM items_changes WHERE generation > ?",
      arguments: [start]) == end - start
  }

  static func schema(_ db: Database, path: String) throws -> CatalogSchema {
    guard let json = try String.fetchOne(db, sql: "SELECT schema FROM catalog WHERE id = 1")
    else {
      throw StoreError.database(path, message: "the catalog has no schema (damaged file)")
    }
    var schema: CatalogSchema
    do {
      schema = try JSONDecoder().decode(CatalogSchema.self, from: Data(json.utf8))
    } catch {
      throw StoreError.database(path, message: "the catalog's schema is unreadable (damaged file)")
    }
    if try db.tableExists("synonyms"),
      let entries = try String.fetchOne(db, sql: "SELECT entries FROM synonyms WHERE id = 1")
    {
      do {
        schema.synonyms = try JSONDecoder().decode(Synonyms.self, from: Data(entries.utf8))
      } catch {
        throw StoreError.database(
          path, message: "the catalog's synonyms are unreadable (damaged file)")
      }
    }
    if try db.tableExists("pins"),
      let entries = try String.fetchOne(db, sql: "SELECT entries FROM pins WHERE id = 1")
    {
      do {
        schema.pins = try JSONDecoder().decode(Pins.self, from: Data(entries.utf8))
      } catch {
        throw StoreError.database(path, message: "the catalog's pins are unreadable (damaged file)")
      }
    }
    return schema
  }

  static func fieldValue(_ value: DatabaseValue) -> FieldValue? {
    switch value.storage {
    case .null: return nil
    case .int64(let number): return .number(Double(number))
    case .double(let number): return .number(number)
    case .string(let text): return .text(text)
    case .blob(let data):
      return data.withUnsafeBytes { bytes -> FieldValue? in
        VectorCodec.decode(bytes).map(FieldValue.vector) ?? KeptJSONCodec.decode(bytes)
          ?? TextListCodec.decode(bytes).map(FieldValue.texts)
      }
    }
  }

  static func databaseValue(_ value: FieldValue?) -> DatabaseValue {
    switch value {
    case .none: .null
    case .text(let text): text.databaseValue
    case .texts(let texts): Data(TextListCodec.encode(texts)).databaseValue
    case .number(let number): number.databaseValue
    case .vector(let values): Data(VectorCodec.encode(values)).databaseValue
    case .some(let kept): Data(KeptJSONCodec.encode(kept)).databaseValue
    }
  }

  // MARK: - Writing

  /// Saves `synonyms`, which the schema is read with from then on. They have a table of their
  /// own: a change of the schema's row tells an open that the index is stale, and synonyms
  /// change no index. They move the items' generation (the catalog's version) with an entry in
  /// the log that says so, which an open's replay passes over.
  public func saveSynonyms(_ synonyms: Synonyms) throws(StoreError) {
    try write { db in try Self.writeRules(synonyms: synonyms, db) }
  }

  /// Saves `pins` (`Pins`), as `saveSynonyms(_:)` saves synonyms: a table of their own, a new
  /// version and the same entry in the log, which a copy answers with both.
  public func savePins(_ pins: Pins) throws(StoreError) {
    try write { db in try Self.writeRules(pins: pins, db) }
  }

  /// Saves the synonyms and the pins given, in the caller's transaction, as one new version.
  static func writeRules(synonyms: Synonyms? = nil, pins: Pins? = nil, _ db: Database) throws {
    for (table, value) in [
      ("synonyms", try synonyms.map { try JSONEncoder().encode($0) }),
      ("pins", try pins.map { try JSONEncoder().encode($0) }),
    ] {
      guard let value else { continue }
      try db.execute(
        sql:
          "CREATE TABLE IF NOT EXISTS \(table) (id INTEGER PRIMARY KEY CHECK (id = 1), entries TEXT NOT NULL)"
      )
      try db.execute(
        sql:
          "INSERT INTO \(table) (id, entries) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET entries = excluded.entries",
        arguments: [String(decoding: value, as: UTF8.self)])
    }
    // A new version, logged, so that the copies that follow the catalog hear of it.
    try db.execute(
      sql: """
        UPDATE items_generation SET value = value + 1;
        INSERT INTO items_changes (generation, id, inserted) SELECT value, '', \(synonymsEntry) FROM items_generation;
        """)
  }

  /// Stores the schema and adds a column for each field the items table lacks.
  func writeSchema(_ schema: CatalogSchema, _ db: Database) throws {
    let json = String(decoding: try JSONEncoder().encode(schema), as: UTF8.self)
    try db.execute(
      sql:
        "INSERT INTO catalog (id, schema) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET schema = excluded.schema",
      arguments: [json])
    let existing = Set(try db.columns(in: "items").map(\.name))
    for field in schema.allFields where !existing.contains("f_" + field.name) {
      // No declared type: SQLite keeps each value exactly as given (text, number or blob).
      try db.execute(sql: "ALTER TABLE items ADD COLUMN \(Self.column(field.name))")
    }
  }

  /// The one INSERT of an item row, for edits and imports: id, position, then `columns`;
  /// `replacing`: a row with the id goes first (the item takes its new place).
  static func insertItemSQL(columns: [String], replacing: Bool = false) -> String {
    """
    INSERT\(replacing ? " OR REPLACE" : "") INTO items (id, position\(columns.map { ", \($0)" }.joined()))
    VALUES (?, ?\(String(repeating: ", ?", count: columns.count)))
    """
  }

  /// The one UPDATE of an item's `columns`, for edits and imports; the id is the last argument.
  static func updateItemSQL(columns: [String]) -> String {
    "UPDATE items SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?"
  }

  func insert(
    _ item: Item, position: Int64, schema: CatalogSchema, replacing: Bool = false,
    _ db: Database
  ) throws {
    let item = try schema.conforming(item)
    let sql = Self.insertItemSQL(
      columns: schema.allFields.map { Self.column($0.name) }, replacing: replacing)
    var arguments: [DatabaseValue] = [item.id.rawValue.databaseValue, position.databaseValue]
    arguments += schema.allFields.map { Self.databaseValue(item[$0.name]) }
    try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
  }

  /// Replaces the fields of an existing item; its position stays.
  func replaceFields(of item: Item, schema: CatalogSchema, _ db: Database) throws -> Bool {
    let item = try schema.conforming(item)
    let sql = Self.updateItemSQL(columns: schema.allFields.map { Self.column($0.name) })
    var arguments = schema.allFields.map { Self.databaseValue(item[$0.name]) }
    arguments.append(item.id.rawValue.databaseValue)
    return try Self.departing(item.id, schema: schema, db) {
      try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
    }
  }

  /// Deletes the item with `id`; whether there was one.
  static func deleteItem(_ id: ItemID, schema: CatalogSchema, _ db: Database) throws -> Bool {
    try departing(id, schema: schema, db) {
      try db.execute(sql: "DELETE FROM items WHERE id = ?", arguments: [id.rawValue])
    }
  }

  /// Runs `change`, which replaces or deletes the item with `id`, and keeps what the item held
  /// before beside the log entry the change made (`items_changes.previous`): what tells a
  /// reader who sees only some items whether it saw this one. Whether a row changed.
  private static func departing(
    _ id: ItemID, schema: CatalogSchema, _ db: Database, _ change: () throws -> Void
  ) throws -> Bool {
    let before = try items(withIDs: [id], fields: schema.allFields, db).first
    try change()
    guard db.changesCount > 0 else { return false }
    if let before {
      try db.cachedStatement(
        sql: """
          UPDATE items_changes SET previous = ? WHERE rowid = (
            SELECT max(rowid) FROM items_changes WHERE id = ? AND inserted = 0)
          """
      ).execute(arguments: [Data(FeedPrevious.encode(before)), id.rawValue])
    }
    return true
  }

  func nextPosition(_ db: Database) throws -> Int64 {
    (try Int64.fetchOne(db, sql: "SELECT max(position) FROM items") ?? -1) + 1
  }

  // MARK: - Edits (one transaction each)

  /// SQLite hands text back as C strings, which end at a NUL: such a value would come back cut
  /// short, so every write path (edits, imports) refuses it before anything is written.
  /// Returns the first field that holds a NUL (`idField` for the id, then by name), or nil.
  static func fieldHoldingNUL(
    id: ItemID?, idField: String = "id", fields: [String: FieldValue]
  ) -> String? {
    if let id, Self.holdsNUL(id.rawValue) { return idField }
    func holdsNUL(_ value: FieldValue) -> Bool {
      switch value {
      case .text(let text): Self.holdsNUL(text)
      case .texts(let texts): texts.contains(where: Self.holdsNUL)
      // Written as JSON, whose strings escape a NUL.
      case .number, .bool, .null, .list, .object, .vector: false
      }
    }
    // Names sorted only when one holds it (an import asks for every record).
    guard fields.values.contains(where: holdsNUL) else { return nil }
    return fields.keys.sorted().first { holdsNUL(fields[$0]!) }
  }

  private static func holdsNUL(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { utf8 in
      guard let start = utf8.baseAddress else { return false }
      return memchr(start, 0, utf8.count) != nil
    }
  }

  static func checkStorable(_ item: Item) throws(StoreError) {
    if let field = fieldHoldingNUL(id: item.id, fields: item.fields) {
      throw .unstorableText(field: field)
    }
  }

  /// Adds an item at the end of catalog order.
  public func add(_ item: Item) throws(StoreError) {
    try Self.checkStorable(item)
    try write { db in
      let schema = try Self.schema(db, path: path)
      if try Bool.fetchOne(
        db, sql: "SELECT 1 FROM items WHERE id = ?", arguments: [item.id.rawValue]) == true
      {
        throw CatalogEditError.duplicateID(item.id)
      }
      try insert(item, position: try nextPosition(db), schema: schema, db)
    }
  }

  /// Replaces the item with `item.id`; it keeps its place.
  public func update(_ item: Item) throws(StoreError) {
    try Self.checkStorable(item)
    try write { db in
      let schema = try Self.schema(db, path: path)
      guard try replaceFields(of: item, schema: schema, db) else {
        throw CatalogEditError.unknownID(item.id)
      }
    }
  }

  public func delete(id: ItemID) throws(StoreError) {
    try write { db in
      guard try Self.deleteItem(id, schema: try Self.schema(db, path: path), db) else {
        throw CatalogEditError.unknownID(id)
      }
    }
  }

  /// An id no item has, by the catalog's rule (`ItemIDAllocator`).
  public func makeItemID() throws(StoreError) -> ItemID {
    try read { db in
      var allocator = try ItemIDAllocator(db)
      return try allocator.next { id in
        try Bool.fetchOne(db, sql: "SELECT 1 FROM items WHERE id = ?", arguments: [id]) == true
      }
    }
  }

  // MARK: - Search state

  /// Saves a search state (the terminal app's snapshot of its search, as JSON) under `name`.
  public func saveSearchState(_ snapshot: Data, name: String = "default") throws(StoreError) {
    try write { db in
      try db.execute(
        sql: """
          INSERT INTO search_state (name, snapshot, saved_at) VALUES (?, ?, datetime('now'))
          ON CONFLICT(name) DO UPDATE SET snapshot = excluded.snapshot, saved_at = excluded.saved_at
          """,
        arguments: [name, snapshot])
    }
  }

  /// The saved search state, if any.
  public func loadSearchState(name: String = "default") throws(StoreError) -> Data? {
    try read { db in
      try Data.fetchOne(
        db, sql: "SELECT snapshot FROM search_state WHERE name = ?", arguments: [name])
    }
  }
}

/// The catalog file is where the edit pipeline writes (`FilteredCollection.commit(_:to:)`).
extension CatalogStore: CatalogPersistence {
  public func persist(_ edit: CatalogEdit) throws(StoreError) {
    switch edit {
    case .add(let id, let fields):
      let named: ItemID
      if let id { named = id } else { named = try makeItemID() }
      try add(Item(id: named, fields: fields))
    case .update(let item): try update(item)
    case .delete(let id): try delete(id: id)
    }
  }
}
