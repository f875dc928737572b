#if Server
import Foundation
import PostgresNIO
import Sift
import SiftStore

extension PostgresCatalog {
  /// Imports records into the catalog at `address` a batch at a time, in one transaction,
  /// creating the catalog when there is none: new ids are added at the end, known ids updated
  /// in place (`--merge`: only the fields a record holds), by the rules of a `.sqlite` catalog's
  /// import (`CatalogImport`). Memory holds a batch, never the file or the catalog's items: each
  /// batch is copied to a table of the transaction's own and put into the items from there.
  ///
  /// The catalog moves one version and logs it as replaced: its followers load it whole.
  ///
  /// - Parameters:
  ///   - spec: the import's fields, continuing the catalog's (`ImportSpec.continuing(_:)`).
  ///   - newSchema: the schema a catalog the import creates starts from.
  ///   - read: calls the function it is given with each batch of checked records, in file
  ///     order; what it throws undoes the import (an `ImportError` is thrown again as it is).
  /// - Throws: `ImportError` from `read`, `ImportSchemaError` for records that do not fit the
  ///   catalog (a new item without a title, another kind of field), else `PostgresError`.
  public static func importRecords(
    _ address: PostgresAddress, spec: ImportSpec, newSchema: CatalogSchema,
    read: (_ write: ([ImportRecord]) async throws -> Void) async throws -> Void
  ) async throws -> CatalogImport.Summary {
    let link = PostgresLink(address: address)
    defer { Task { await link.close() } }
    try await checkDatabase(link)
    // The file's and the records' errors, kept to be thrown as they are after the rollback
    // (the link words any other as the database's).
    var failure: (any Error)?
    do {
      let summary = try await link.transaction { connection -> CatalogImport.Summary? in
        do {
          var importer = try await RecordImporter(
            address: address, spec: spec, newSchema: newSchema, connection)
          try await read { try await importer.write($0) }
          return try await importer.finish()
        } catch let error as ImportError {
          failure = error
          throw error
        } catch let error as ImportSchemaError {
          failure = error
          throw error
        }
      }
      return summary ?? CatalogImport.Summary()
    } catch {
      throw failure ?? error
    }
  }
}

/// Puts an import's records into a catalog's items a batch at a time, in the caller's
/// transaction, and writes the catalog's row and log entry once all are in.
private struct RecordImporter {
  let address: PostgresAddress
  let connection: PostgresConnection
  var spec: ImportSpec
  /// The catalog's schema before the import (for a new one, `newSchema`).
  let before: CatalogSchema
  let isNew: Bool
  /// The catalog's identity and the version the import makes.
  let identity: String
  let version: Int64
  var stored: CatalogImport.StoredFields
  var tally: CatalogImport.Summary.Tally
  var summary = CatalogImport.Summary()
  /// The catalog-order position of the next record: every record takes one, an update leaves
  /// its unused.
  var nextOrder: Int64
  var allocator: ItemIDAllocator
  /// The ids records gave that an id made for a record without one could take: all digits.
  var numericIDs: Set<String> = []
  /// The ids made for records without one.
  var made: Set<String> = []

  var schemaName: String { "\"\(address.schemaName)\"" }

  init(
    address: PostgresAddress, spec: ImportSpec, newSchema: CatalogSchema,
    _ connection: PostgresConnection
  ) async throws {
    self.address = address
    self.connection = connection
    let name = "\"\(address.schemaName)\""
    // One import at a time per catalog (a replace takes the same lock).
    try await connection.execute(
      "SELECT pg_advisory_xact_lock(hashtext($1))", [.text(address.schemaName)])
    var exists = false
    for try await flag in try await connection.execute(
      "SELECT to_regclass($1) IS NOT NULL", [.text("\(name).catalog")]
    ).decode(Bool.self) {
      exists = flag
    }
    var schema = newSchema
    var identity = UUID().uuidString
    var version: Int64 = 1
    var nextOrder: Int64 = 0
    if exists {
      var format = 0
      var json = ""
      for try await row in try await connection.execute(
        "SELECT format, schema::text, identity, generation + 1, next_ord FROM \(name).catalog"
      ).decode((Int, String, String, Int64, Int64).self) {
        (format, json, identity, version, nextOrder) = row
      }
      if format > PostgresCatalog.format {
        throw PostgresError.newerFormat(
          address.description, found: format, supported: PostgresCatalog.format)
      }
      do {
        schema = try JSONDecoder().decode(CatalogSchema.self, from: Data(json.utf8))
      } catch {
        throw PostgresError.unsuitable(
          address.description, reason: "its schema cannot be read: \(error)")
      }
      if format < PostgresCatalog.format {
        let upgrade = CatalogLayout.upgrade(
          address.schemaName, vectorField: schema.vector?.field)
        for statement in upgrade { try await connection.execute(statement) }
        try await connection.execute(
          "UPDATE \(name).catalog SET format = \(PostgresCatalog.format)")
      }
    } else {
      for statement in CatalogLayout.creation(address.schemaName) {
        try await connection.execute(statement)
      }
      // Made again once every item is in (`finish`).
      try await connection.execute("ALTER TABLE \(name).items DROP CONSTRAINT items_pkey")
    }
    isNew = !exists
    before = schema
    self.spec = spec.continuing(schema)
    self.identity = identity
    self.version = version
    self.nextOrder = nextOrder
    // The import's fields must fit the catalog's before a record is read (a label may name a
    // field only records bring: it is checked at the end).
    let named = Set(schema.allFields.map(\.name) + self.spec.fields.map(\.name))
    var known = self.spec
    known.labels = known.labels.filter { named.contains($0.key) }
    _ = try CatalogImport.merged(schema, with: known)
    stored = CatalogImport.StoredFields(spec: self.spec)
    tally = CatalogImport.Summary.Tally(location: schema.location)
    var largest = "0"
    if exists {
      let number = CatalogLayout.idNumber
      for try await text in try await connection.execute(
        """
        SELECT coalesce((SELECT \(number) FROM \(name).items WHERE id ~ '^[0-9]'
          ORDER BY \(number) DESC LIMIT 1), 0)::text
        """
      ).decode(String.self) {
        largest = text
      }
    }
    allocator = ItemIDAllocator(largestNumber: Int64(largest))
    // COPY takes one plain table name: the catalog's items are reached through the search
    // path (the transaction's own table is found first wherever it goes).
    try await connection.execute("SET LOCAL search_path TO \(name), public")
    try await connection.execute(
      """
      CREATE TEMPORARY TABLE sift_import (seq bigint NOT NULL, id text NOT NULL,
        line bigint NOT NULL, titled boolean NOT NULL, fields jsonb NOT NULL, vector bytea)
        ON COMMIT DROP
      """)
  }

  /// Puts `records` into the items, in order. Into a catalog the import creates, they are
  /// copied straight into the items (no id is there yet but one this import made for a record
  /// without one: a later record giving it updates that item). Into one that has items, a
  /// batch is cut where an id comes again, so that each part puts an id once.
  mutating func write(_ records: [ImportRecord]) async throws {
    var part: [(id: String, record: ImportRecord)] = []
    var ids: Set<String> = []
    for record in records {
      // One length per catalog: the catalog's, or the first vector's.
      _ = try spec.takeVectorLength(of: record)
      stored.add(record)
      tally.add(record)
      let id: String
      if let given = record.id?.rawValue {
        id = given
        if given.utf8.allSatisfy({ (0x30...0x39).contains($0) }) { numericIDs.insert(given) }
      } else {
        let taken = numericIDs
        id = allocator.next { taken.contains($0) }.rawValue
        numericIDs.insert(id)
        made.insert(id)
      }
      if isNew {
        if record.id != nil, made.contains(id) {
          try await add(part)
          part = []
          try await put([(id, record)])
          continue
        }
        if spec.merges, record.fields[before.titleField] == nil {
          throw ImportSchemaError.untitled(line: record.line, field: before.titleField)
        }
      } else if !ids.insert(id).inserted {
        try await put(part)
        part = []
        ids = [id]
      }
      part.append((id, record))
    }
    if isNew { try await add(part) } else { try await put(part) }
  }

  /// Copies new items straight into a catalog the import creates (its primary key comes once
  /// all are in: cheaper than keeping it up to date row by row).
  private mutating func add(_ rows: [(id: String, record: ImportRecord)]) async throws {
    guard !rows.isEmpty else { return }
    let (order, vectorField) = (nextOrder, spec.vectorField)
    try await connection.copyFrom(
      table: "items", columns: ["id", "ord", "fields", "vector"],
      logger: PostgresLink.logger
    ) { writer in
      try await Self.copy(rows, to: writer) { seq, row in
        let (fields, vector) = ItemRow.parts(of: row.record.fields, vectorField: vectorField)
        return ItemRow.copyText(row.id) + "\t\(order + Int64(seq))\t"
          + ItemRow.copyText(fields) + "\t" + ItemRow.copyBytes(vector) + "\n"
      }
    }
    summary.added += rows.count
    nextOrder += Int64(rows.count)
  }

  /// Copies one part's rows to `sift_import`, then puts them into the items: inserted, or
  /// for an id there already, its fields replaced (merged, with `--merge`: a record's vector
  /// replaces the item's, one without — the reader takes a `null` vector for none — keeps it).
  private mutating func put(_ rows: [(id: String, record: ImportRecord)]) async throws {
    guard !rows.isEmpty else { return }
    try await connection.execute("TRUNCATE sift_import")
    let (titleField, vectorField) = (before.titleField, spec.vectorField)
    try await connection.copyFrom(
      table: "sift_import", columns: ["seq", "id", "line", "titled", "fields", "vector"],
      logger: PostgresLink.logger
    ) { writer in
      try await Self.copy(rows, to: writer) { seq, row in
        let titled = row.record.fields[titleField] != nil
        let (fields, vector) = ItemRow.parts(of: row.record.fields, vectorField: vectorField)
        return "\(seq)\t" + ItemRow.copyText(row.id) + "\t\(row.record.line)\t"
          + (titled ? "t" : "f") + "\t" + ItemRow.copyText(fields) + "\t"
          + ItemRow.copyBytes(vector) + "\n"
      }
    }
    let items = "\(schemaName).items"
    if spec.merges, rows.contains(where: { $0.record.fields[titleField] == nil }) {
      // A record without a title may only merge into an item the catalog has.
      for try await line in try await connection.execute(
        """
        SELECT min(line) FROM sift_import s
        WHERE NOT titled AND NOT EXISTS (SELECT 1 FROM \(items) i WHERE i.id = s.id)
        """
      ).decode(Int?.self) {
        if let line { throw ImportSchemaError.untitled(line: line, field: titleField) }
      }
    }
    if isNew {
      // An item this import added, given again (its items have no primary key yet).
      try await connection.execute(
        "UPDATE \(items) i SET \(putting("s")) FROM sift_import s WHERE i.id = s.id")
      summary.updated += rows.count
      return
    }
    for try await inserted in try await connection.execute(
      """
      INSERT INTO \(items) AS i (id, ord, fields, vector)
        SELECT id, $1 + seq, fields, vector FROM sift_import ORDER BY seq
      ON CONFLICT (id) DO UPDATE SET \(putting("EXCLUDED"))
      RETURNING xmax = 0
      """, [.integer(Int(nextOrder))]
    ).decode(Bool.self) {
      if inserted { summary.added += 1 } else { summary.updated += 1 }
    }
    nextOrder += Int64(rows.count)
  }

  /// What an item `i` becomes when a record `given` puts it: the record's fields and vector,
  /// or with `--merge` both merged into the item's.
  private func putting(_ given: String) -> String {
    spec.merges
      ? "fields = i.fields || \(given).fields, vector = coalesce(\(given).vector, i.vector)"
      : "fields = \(given).fields, vector = \(given).vector"
  }

  /// Writes `rows` to a COPY a megabyte at a time, each as `line` makes it.
  private static func copy(
    _ rows: [(id: String, record: ImportRecord)], to writer: PostgresCopyFromWriter,
    line: (Int, (id: String, record: ImportRecord)) -> String
  ) async throws {
    var buffer = ByteBuffer()
    for (seq, row) in rows.enumerated() {
      buffer.writeString(line(seq, row))
      if buffer.readableBytes > 1 << 20 {
        try await writer.write(buffer)
        buffer.clear()
      }
    }
    if buffer.readableBytes > 0 { try await writer.write(buffer) }
  }

  /// The catalog's schema as the items now are (the stored fields in name order, the
  /// category's scopes or tokens), its row, its log entry: the summary of the import.
  mutating func finish() async throws -> CatalogImport.Summary {
    var schema = try CatalogImport.merged(
      before, with: spec, stored: stored.fields, idsAreNumbers: stored.idsAreNumbers)
    if let category = schema.categoryField {
      var values: [String] = []
      for try await value in try await connection.execute(
        """
        SELECT value FROM \(schemaName).items,
          jsonb_array_elements_text(
            CASE jsonb_typeof(fields->$1) WHEN 'array' THEN fields->$1
            ELSE jsonb_build_array(fields->$1) END) WITH ORDINALITY AS listed(value, n)
        WHERE jsonb_typeof(fields->$1) IN ('string', 'array') AND value <> ''
        GROUP BY 1 ORDER BY min(ARRAY[ord, n])
        """, [.text(category)]
      ).decode(String.self) {
        values.append(value)
      }
      schema = CatalogImport.withCategoryScopes(schema, values: values)
    }
    summary.describe(tally, schema: schema, merges: spec.merges)
    let json: String
    do {
      try schema.validate()
      json = String(decoding: try JSONEncoder().encode(schema), as: UTF8.self)
    } catch {
      throw PostgresError.unsupported("the catalog's schema cannot be written: \(error)")
    }
    let catalog = "\(schemaName).catalog"
    let count = "(SELECT count(*) FROM \(schemaName).items)"
    if isNew {
      try await connection.execute("ALTER TABLE \(schemaName).items ADD PRIMARY KEY (id)")
      for statement in CatalogLayout.indexes(address.schemaName) {
        try await connection.execute(statement)
      }
      try await connection.execute(
        """
        INSERT INTO \(catalog) SELECT $1, $2::jsonb, $3, $4, \(count), 'sift', $5, $3 - 1
        """,
        [
          .integer(PostgresCatalog.format), .text(json), .integer(Int(version)),
          .integer(Int(nextOrder)), .text(identity),
        ])
    } else {
      try await connection.execute(
        """
        UPDATE \(catalog) SET schema = $1::jsonb, generation = $2, next_ord = $3,
          item_count = \(count), written_by = 'sift'
        """, [.text(json), .integer(Int(version)), .integer(Int(nextOrder))])
    }
    _ = try await PostgresCatalog.log(
      .replace, id: nil, schemaName: address.schemaName, on: connection)
    try await connection.execute("ANALYZE \(schemaName).items")
    return summary
  }
}
#endif
