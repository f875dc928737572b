#if Server
import Foundation
import PostgresNIO
import Sift

/// A catalog kept in PostgreSQL: the truth, and the order of its changes. The schema
/// `sift_NAME` holds the items (their fields as JSON and their vector as bytes, in catalog
/// order), the catalog's schema
/// and format, and the change log (`CatalogLayout`). Every write is one transaction that moves
/// the catalog's version and logs the change (`log(_:id:on:)`); nodes load the items and follow
/// the log, and search in memory (`PostgresNode`).
public final class PostgresCatalog: Sendable {
  /// The format this Sift writes; a catalog with a higher one is refused, one with a lower one
  /// upgraded when opened (`CatalogLayout.upgrade`). Formats 1 to 6 kept Sift's folded text, a
  /// word dictionary and letters tables for searches compiled to SQL; 7 added the change log;
  /// 8 keeps the items and the log alone; 9 logs what a put or delete replaced; 10 keeps a
  /// vector as bytes beside the JSON.
  public static let format = 10

  public let address: PostgresAddress
  /// The schema as opened, with the synonyms and pins saved since.
  public var schema: CatalogSchema {
    var schema = openedSchema
    schema.synonyms = synonyms.value
    schema.pins = pins.value
    return schema
  }
  private let openedSchema: CatalogSchema
  private let synonyms: ReplacedSetting<Synonyms>
  private let pins: ReplacedSetting<Pins>
  let link: PostgresLink
  /// How much of the change log writes through this catalog keep.
  public let retention: Retention

  private init(
    address: PostgresAddress, schema: CatalogSchema, link: PostgresLink, retention: Retention
  ) throws(PostgresError) {
    self.address = address
    self.retention = retention
    openedSchema = schema
    synonyms = ReplacedSetting(schema.synonyms)
    pins = ReplacedSetting(schema.pins)
    do {
      try schema.validate()
    } catch {
      throw .unsuitable(address.description, reason: "its schema is not valid: \(error)")
    }
    self.link = link
  }

  var table: String { "\"\(address.schemaName)\".items" }
  var catalogTable: String { "\"\(address.schemaName)\".catalog" }

  /// Opens the catalog at `address`: reads its schema, refusing a newer format and upgrading an
  /// older one. `retention`: how much of the change log this catalog's writes keep.
  public static func open(
    _ address: PostgresAddress, retention: Retention = Retention()
  ) async throws(PostgresError) -> PostgresCatalog {
    let link = PostgresLink(address: address)
    do {
      let schema = try await readSchema(link)
      return try PostgresCatalog(address: address, schema: schema, link: link, retention: retention)
    } catch {
      await link.close()
      throw error
    }
  }

  public func close() async { await link.close() }

  private static func readSchema(_ link: PostgresLink) async throws(PostgresError) -> CatalogSchema
  {
    let address = link.address
    let exists = try await link.rows(
      "SELECT to_regclass($1) IS NOT NULL", [.text("\"\(address.schemaName)\".catalog")],
      as: Bool.self)
    guard exists.first == true else { throw .notFound(address.description) }
    let rows = try await link.rows(
      "SELECT format, schema::text FROM \"\(address.schemaName)\".catalog", as: (Int, String).self)
    guard let (format, json) = rows.first else { throw .notFound(address.description) }
    if format > Self.format {
      throw .newerFormat(address.description, found: format, supported: Self.format)
    }
    let schema: CatalogSchema
    do {
      schema = try JSONDecoder().decode(CatalogSchema.self, from: Data(json.utf8))
    } catch {
      throw .unsuitable(address.description, reason: "its schema cannot be read: \(error)")
    }
    if format < Self.format { try await migrate(link, vectorField: schema.vector?.field) }
    return schema
  }

  /// Upgrades the catalog to `Self.format` in one transaction, under the lock an import takes
  /// (two processes opening an old catalog at once upgrade it once).
  private static func migrate(
    _ link: PostgresLink, vectorField: String?
  ) async throws(PostgresError) {
    let schemaName = link.address.schemaName
    _ = try await link.transaction { connection in
      try await connection.execute(
        "SELECT pg_advisory_xact_lock(hashtext($1))", [.text(schemaName)])
      var format = Self.format
      for try await found in try await connection.execute(
        "SELECT format FROM \"\(schemaName)\".catalog"
      ).decode(Int.self) {
        format = found
      }
      // Opened by another process meanwhile, it may be upgraded already.
      if format < Self.format {
        for statement in CatalogLayout.upgrade(schemaName, vectorField: vectorField) {
          try await connection.execute(statement)
        }
      }
      try await connection.execute(
        "UPDATE \"\(schemaName)\".catalog SET format = \(Self.format)")
      return ()
    }
  }

  // MARK: - Reading items

  /// How many items the catalog holds: kept in the catalog row by every edit, so the results
  /// indicator costs one row rather than a count of the items on every search.
  public func count() async throws(PostgresError) -> Int {
    try await link.rows("SELECT item_count FROM \(catalogTable)", as: Int.self).first ?? 0
  }

  /// Every item, in catalog order, with the schema as the catalog holds it now.
  public func document() async throws(PostgresError) -> CatalogDocument {
    try await snapshot().document
  }

  // MARK: - Edits

  /// Writes one edit and its entry in the change log in one transaction; the item's id (for an
  /// add without one, the id it got) and the change's version, or nil when the edit does not
  /// fit the items now — an add's id taken, an update's or a delete's item gone (another writer
  /// may have been first): then nothing is written, not even a version.
  ///
  /// The catalog's row is changed first, so every write holds its lock from its start to its
  /// commit: writes are made one after the other, each at the next version, and two never wait
  /// for each other's rows in opposite orders.
  public func commit(_ edit: CatalogEdit) async throws(PostgresError) -> CatalogCommit? {
    try await save(edit)?.commit
  }

  /// An edit as `save(_:)` wrote it: what `commit(_:)` answers, and the change a copy makes
  /// for it at its version — the same change a follower reads from the log, so the writer's own
  /// copy can show it without reading it back.
  public struct SavedEdit: Sendable {
    public var commit: CatalogCommit
    public var change: CatalogChange
  }

  /// `commit(_:)`, with the change a copy makes for the edit.
  public func save(_ edit: CatalogEdit) async throws(PostgresError) -> SavedEdit? {
    var row: ItemRow?
    switch edit {
    case .add(let id, let fields):
      row = try ItemRow(Item(id: id ?? ItemID(""), fields: fields), schema: schema)
    case .update(let item):
      row = try ItemRow(item, schema: schema)
    case .delete:
      row = nil
    }
    let (table, catalogTable) = (self.table, self.catalogTable)
    let vectorField = schema.vector?.field
    return try await link.transaction { connection -> SavedEdit? in
      switch edit {
      case .add(let id, _):
        var order: Int64 = 0
        for try await next in try await connection.execute(
          """
          UPDATE \(catalogTable) SET generation = generation + 1, next_ord = next_ord + 1,
            item_count = item_count + 1 RETURNING next_ord - 1
          """
        ).decode(Int64.self) {
          order = next
        }
        if id == nil {
          row!.id = try await nextID(connection)
        } else if try await isTaken(row!.id, connection) {
          return nil
        }
        try await connection.execute(
          "INSERT INTO \(table) (id, ord, fields, vector) VALUES ($1, $2, $3::jsonb, $4)",
          [.text(row!.id), .integer(Int(order)), .text(row!.fields), .bytes(row!.vector)])
        let version = try await log(.put, id: row!.id, previous: "null", on: connection)
        return try Self.saved(row!, at: order, version: version, vectorField: vectorField)
      case .update:
        try await connection.execute("UPDATE \(catalogTable) SET generation = generation + 1")
        var replaced: (previous: String, order: Int64)?
        for try await found in try await connection.execute(
          """
          UPDATE \(table) AS i SET fields = $2::jsonb, vector = $3
          FROM (SELECT fields FROM \(table) WHERE id = $1) AS old
          WHERE i.id = $1 RETURNING old.fields::text, i.ord
          """, [.text(row!.id), .text(row!.fields), .bytes(row!.vector)]
        ).decode((String, Int64).self) {
          replaced = found
        }
        guard let replaced else { return nil }
        let version = try await log(.put, id: row!.id, previous: replaced.previous, on: connection)
        return try Self.saved(
          row!, at: replaced.order, version: version, vectorField: vectorField)
      case .delete(let id):
        try await connection.execute(
          "UPDATE \(catalogTable) SET generation = generation + 1, item_count = item_count - 1")
        guard
          let previous = try await replaced(
            "DELETE FROM \(table) WHERE id = $1 RETURNING fields::text", [.text(id.rawValue)],
            on: connection)
        else { return nil }
        let version = try await log(.delete, id: id.rawValue, previous: previous, on: connection)
        return SavedEdit(
          commit: CatalogCommit(id: id, version: version), change: .delete(id, version: version))
      }
    }
  }

  /// A put of `row` at `order`, as a follower reads it from the log: the item back from the
  /// JSON and bytes written, so the writer's copy holds what every other copy holds.
  private static func saved(
    _ row: ItemRow, at order: Int64, version: Int64, vectorField: String?
  ) throws(PostgresError) -> SavedEdit {
    let item = try ItemRow.item(
      id: row.id, fields: row.fields, vector: row.vector.map { ByteBuffer(bytes: $0) },
      vectorField: vectorField)
    return SavedEdit(
      commit: CatalogCommit(id: ItemID(row.id), version: version),
      change: .put(item, at: order, version: version))
  }

  /// The text `sql` returns for the row it changed (what the row held before); nil when it
  /// changed none.
  private func replaced(
    _ sql: String, _ binds: [SQLValue], on connection: PostgresConnection
  ) async throws -> String? {
    var found: String?
    for try await text in try await connection.execute(sql, binds).decode(String.self) {
      found = text
    }
    return found
  }

  /// Whether `sql` (ending in `RETURNING 1`) changed a row.
  private func changed(
    _ sql: String, _ binds: [SQLValue], on connection: PostgresConnection
  ) async throws -> Bool {
    var found = false
    for try await _ in try await connection.execute(sql, binds).decode(Int.self) { found = true }
    return found
  }

  /// The id an add without one would get now (another writer may take it first: the add then
  /// finds it taken).
  public func nextItemID() async throws(PostgresError) -> ItemID {
    ItemID(try await link.with { connection in try await nextID(connection) })
  }

  /// Whether an item has `id`.
  private func isTaken(_ id: String, _ connection: PostgresConnection) async throws -> Bool {
    let rows = try await connection.execute(
      "SELECT count(*) FROM \(table) WHERE id = $1", [.text(id)])
    for try await count in rows.decode(Int.self) { return count > 0 }
    return false
  }

  /// The number after the largest numeric id (its leading digits, as SQLite's CAST reads
  /// them), skipping ids taken.
  private func nextID(_ connection: PostgresConnection) async throws -> String {
    // Read from the index of numeric ids (`CatalogLayout.numberIndex`): the largest at once, not
    // a scan of every id (170 ms an add on the 235k cities).
    let number = CatalogLayout.idNumber
    let rows = try await connection.execute(
      """
      SELECT coalesce((SELECT \(number) FROM \(table) WHERE id ~ '^[0-9]'
        ORDER BY \(number) DESC LIMIT 1), 0)::text
      """)
    var largest = "0"
    for try await text in rows.decode(String.self) { largest = text }
    guard var candidate = Int64(largest), candidate < Int64.max else {
      throw PostgresError.unsupported("catalog \(address): no numeric id is left after \(largest)")
    }
    repeat { candidate += 1 } while try await isTaken(String(candidate), connection)
    return String(candidate)
  }
}

extension PostgresCatalog {
  /// Saves `synonyms` in the catalog's schema row; this catalog's next search uses them (another
  /// server on the same database reads them when it opens the catalog).
  @discardableResult
  public func saveSynonyms(_ synonyms: Synonyms) async throws(PostgresError) -> Int64 {
    var schema = self.schema
    schema.synonyms = synonyms
    let version = try await saveSettings(of: schema)
    self.synonyms.value = synonyms
    return version
  }

  /// Saves `pins` in the catalog's schema row, as `saveSynonyms(_:)` saves synonyms: the same
  /// entry in the log, which the feed answers with both.
  @discardableResult
  public func savePins(_ pins: Pins) async throws(PostgresError) -> Int64 {
    var schema = self.schema
    schema.pins = pins
    let version = try await saveSettings(of: schema)
    self.pins.value = pins
    return version
  }

  /// Writes `schema` (the opened one with other synonyms or pins) in the schema row, logged as
  /// a change of the synonyms.
  private func saveSettings(of schema: CatalogSchema) async throws(PostgresError) -> Int64 {
    let json: String
    do {
      json = String(decoding: try JSONEncoder().encode(schema), as: UTF8.self)
    } catch {
      throw .unsuitable(address.description, reason: "its schema could not be written: \(error)")
    }
    let version = try await link.transaction { connection -> Int64? in
      try await connection.execute(
        "UPDATE \(catalogTable) SET schema = $1::jsonb, generation = generation + 1",
        [.text(json)])
      return try await log(.synonyms, id: nil, on: connection)
    }
    return version ?? 0
  }
}

/// A setting a catalog searches with (its synonyms, its pins), replaced while searches read it.
final class ReplacedSetting<Value: Sendable>: Sendable {
  private let stored: Locked<Value>

  init(_ value: Value) { stored = Locked(value) }

  var value: Value {
    get { stored.withLock { $0 } }
    set { stored.withLock { $0 = newValue } }
  }
}
#endif
