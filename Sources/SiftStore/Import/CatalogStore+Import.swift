import CHeapUsage
import Foundation
import GRDB
import GRDBSQLite
import Sift

extension CatalogStore {
  /// Imports the records `read` hands over a batch at a time, in one transaction: new ids are
  /// added at the end, known ids updated (`--merge`: only the fields a record holds), then the
  /// index of the items as they now are is built and saved with them. What `read` throws, or a
  /// record that cannot be written, undoes the whole import.
  ///
  /// - Parameter read: calls the function it is given with each batch of checked records,
  ///   in file order; `ImportError`s it throws are the file's.
  func importRecords(
    spec: ImportSpec, progress: (ImportProgress) -> Void = { _ in },
    from read: (_ write: ([ImportRecord]) throws -> Void) throws -> Void
  ) throws(ImportFailure) -> CatalogImporter.Summary {
    var fileError: ImportError?
    do {
      return try write { db in
        var writer = try ImportWriter(store: self, spec: spec, db)
        // The log is restarted after the import: its rows are written without being logged.
        try Self.withoutChangeLog(db) {
          do {
            try read { try writer.write($0) }
          } catch let error as ImportError {
            fileError = error
            throw error
          }
          return writer.summary.total
        }
        return try writer.finish(progress: progress)
      }
    } catch {
      if let fileError { throw .file(fileError) }
      throw .catalog(error)
    }
  }

  /// `CatalogImport.merged(_:with:)`, its errors naming the file.
  fileprivate func merged(
    _ schema: CatalogSchema, with spec: ImportSpec, stored: [FieldDefinition],
    idsAreNumbers: Bool? = nil
  ) throws(StoreError) -> CatalogSchema {
    do {
      return try CatalogImport.merged(
        schema, with: spec, stored: stored, idsAreNumbers: idsAreNumbers)
    } catch {
      switch error {
      case .incompatible(let reason): throw .incompatibleSchema(path, reason: reason)
      case .invalid(let error): throw .invalidSchema(path, error)
      case .unknownLabelField, .untitled:
        throw .incompatibleSchema(path, reason: error.description)
      case .unfitting(let line, let reason): throw .invalidRecord(line: line, reason: reason)
      }
    }
  }

  /// The schema with the category's scopes or tokens as the items now have them
  /// (`CatalogImport.withCategoryScopes(_:values:)`).
  fileprivate func withCategoryScopes(
    _ schema: CatalogSchema, _ db: Database
  ) throws -> CatalogSchema {
    guard let field = schema.categoryField else { return schema }
    let column = Self.column(field)
    // One value, or a list of them (a blob), in catalog order.
    var values = CategoryValues()
    let rows = try Row.fetchCursor(
      db, sql: "SELECT \(column) FROM items WHERE \(column) IS NOT NULL ORDER BY position")
    while let row = try rows.next() { values.add(Self.fieldValue(row[0])) }
    return CatalogImport.withCategoryScopes(schema, values: values.inOrder)
  }
}

/// Writes an import's records into the items table a batch at a time, in the caller's
/// transaction, and builds the index of the items as the import leaves them.
///
/// Memory holds a batch, the index and what the import must remember of every record (its
/// id's line, in the reader): never the records themselves. Whether an id is known is asked of
/// the table (an insert that finds the id there updates instead), not of a set of every id.
private struct ImportWriter {
  private let store: CatalogStore
  private let db: Database
  private var spec: ImportSpec
  /// `spec` without the labels of fields the catalog and the flags do not name: the stored
  /// fields they label are known once every record was read.
  private var rowSpec: ImportSpec
  /// The catalog's schema before the import.
  private let before: CatalogSchema
  /// The schema the rows are written with: the import's fields, and the stored fields the
  /// records so far hold (each with its column).
  private var schema: CatalogSchema
  private var stored: CatalogImport.StoredFields
  private var tally: CatalogImport.Summary.Tally
  private(set) var summary = CatalogImport.Summary()
  private var position: Int64
  private var allocator: ItemIDAllocator
  /// Every field's name, in the order of the statements' columns.
  private var fields: [String] = []
  private var insert: Statement
  private var update: Statement
  private let exists: Statement
  /// The index of the items written, built as they come when the catalog had none before —
  /// each batch folded on other threads while the next is written; nil when it had, and the
  /// index is built from the items once all are written.
  private var index: IndexBuilder?
  private var searchSchema: SearchSchema<Item>
  /// The category's values in the order they first come, while every item is one this import
  /// adds (a catalog it creates): its scopes or tokens without reading the items back.
  private var categoryValues: CategoryValues?

  init(store: CatalogStore, spec: ImportSpec, _ db: Database) throws {
    self.store = store
    self.db = db
    before = try CatalogStore.schema(db, path: store.path)
    self.spec = spec.continuing(before)
    let named = Set(before.allFields.map(\.name) + self.spec.fields.map(\.name))
    var rowSpec = self.spec
    rowSpec.labels = rowSpec.labels.filter { named.contains($0.key) }
    self.rowSpec = rowSpec
    stored = CatalogImport.StoredFields(spec: self.spec)
    schema = try store.merged(before, with: rowSpec, stored: [])
    try store.writeSchema(schema, db)
    tally = CatalogImport.Summary.Tally(location: schema.location)
    position = try store.nextPosition(db)
    allocator = try ItemIDAllocator(db)
    searchSchema = try store.searchSchema(schema)
    let isEmpty = try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM items)") ?? true
    index = isEmpty ? IndexBuilder(schema: searchSchema) : nil
    categoryValues = isEmpty ? CategoryValues() : nil
    exists = try db.makeStatement(sql: "SELECT 1 FROM items WHERE id = ?")
    // Set by `prepareStatements`, which needs `self` whole.
    insert = exists
    update = exists
    try prepareStatements()
  }

  /// The statements for every field of the schema: a replaced item loses what its record
  /// does not hold.
  private mutating func prepareStatements() throws {
    fields = schema.allFields.map(\.name)
    let columns = fields.map(CatalogStore.column)
    insert = try db.makeStatement(
      sql: CatalogStore.insertItemSQL(columns: columns) + " ON CONFLICT(id) DO NOTHING")
    update = try db.makeStatement(sql: CatalogStore.updateItemSQL(columns: columns))
  }

  /// Whether the items table holds `id` (`exists` asks it).
  private static func isKnown(_ id: String, _ exists: Statement) throws -> Bool {
    try Bool.fetchOne(exists, arguments: [id]) ?? false
  }

  mutating func write(_ records: [ImportRecord]) throws {
    let titleField = schema.titleField
    for record in records {
      if try takeVectorLength(of: record) { try startIndexingVectors() }
      // A field no record held before gets its column before the row that holds it.
      if stored.add(record) {
        schema = try store.merged(
          before, with: rowSpec, stored: stored.fields, idsAreNumbers: stored.idsAreNumbers)
        try store.writeSchema(schema, db)
        try prepareStatements()
      }
      tally.add(record)
      let id: String
      if let given = record.id {
        id = given.rawValue
      } else {
        let exists = exists
        id = allocator.next(isTaken: { (try? Self.isKnown($0, exists)) ?? true }).rawValue
      }
      let hasTitle = record.fields[titleField] != nil
      if !hasTitle, try !Self.isKnown(id, exists) {
        throw StoreError.untitledRecord(line: record.line, field: titleField)
      }
      if !spec.merges || hasTitle {
        try insert.run(db) { row in
          row.bind(id)
          row.bind(position)
          for field in fields { row.bind(record.fields[field]) }
        }
        if db.changesCount == 1 {
          position += 1
          summary.added += 1
          index?.append(Item(id: ItemID(id), fields: record.fields))
          if categoryValues != nil, let category = schema.categoryField {
            categoryValues!.add(record.fields[category])
          }
          continue
        }
      }
      // The id is known: its item is updated in place.
      if spec.merges {
        // Only the fields the record holds.
        let held = fields.filter { record.fields[$0] != nil }
        if !held.isEmpty {
          try db.cachedStatement(
            sql: CatalogStore.updateItemSQL(columns: held.map(CatalogStore.column))
          ).execute(
            arguments: StatementArguments(
              held.map { CatalogStore.databaseValue(record.fields[$0]) } + [id.databaseValue]))
        }
      } else {
        try update.run(db) { row in
          for field in fields { row.bind(record.fields[field]) }
          row.bind(id)
        }
      }
      summary.updated += 1
      // An item added earlier by this import, given again: the values are read back at the end.
      categoryValues = nil
    }
  }

  /// `ImportSpec.takeVectorLength(of:)` for the import's spec and its rows', its refusal as
  /// the store says it (the importer names the file).
  private mutating func takeVectorLength(of record: ImportRecord) throws -> Bool {
    do throws(ImportSchemaError) {
      guard try spec.takeVectorLength(of: record) else { return false }
      rowSpec.vectorDimensions = spec.vectorDimensions
      return true
    } catch {
      if case .unfitting(let line, let reason) = error {
        throw StoreError.invalidRecord(line: line, reason: reason)
      }
      throw error
    }
  }

  /// The first vector of a catalog without any set their length: the schema says so from here
  /// on, and the index is built with vectors.
  private mutating func startIndexingVectors() throws {
    schema = try store.merged(
      before, with: rowSpec, stored: stored.fields, idsAreNumbers: stored.idsAreNumbers)
    try store.writeSchema(schema, db)
    searchSchema = try store.searchSchema(schema)
    // Items indexed so far were read without vectors: start over, or build at the end.
    if index != nil { index = summary.added == 0 ? IndexBuilder(schema: searchSchema) : nil }
  }

  /// The schema with the category's scopes, the summary, and the index of the items as they
  /// now are, saved with them.
  mutating func finish(progress: (ImportProgress) -> Void) throws -> CatalogImport.Summary {
    // The stored fields in name order, as if every record had been read before any was written.
    schema = try store.merged(
      before, with: spec, stored: stored.fields, idsAreNumbers: stored.idsAreNumbers)
    summary.describe(tally, schema: schema, merges: spec.merges)
    try store.writeSchema(
      try categoryValues.map { CatalogImport.withCategoryScopes(schema, values: $0.inOrder) }
        ?? store.withCategoryScopes(schema, db), db)
    let count = summary.total
    progress(.indexing(0, items: count))
    let built =
      try index.take()?.finish()
      ?? IndexBuilder.index(ofItemsIn: db, schema: schema, searchSchema: searchSchema)
    progress(.indexing(0.2, items: count))
    try store.writeIndex(built, db, isLastUse: true) {
      progress(.indexing(0.2 + 0.8 * $0, items: count))
    }
    // A copy from before the import starts over (the schema was written again).
    try CatalogStore.restartLog(db)
    progress(.indexing(1, items: count))
    return summary
  }

}

/// The values of one row bound straight through SQLite's C API, left to right: a
/// `DatabaseValue` and an argument array per row cost an import more than the insert itself.
private struct RowValues {
  let statement: SQLiteStatement
  private var index: CInt = 0
  /// The first binding that failed, if any.
  private(set) var failure: CInt?

  init(_ statement: SQLiteStatement) {
    self.statement = statement
  }

  private static let transient = unsafeBitCast(
    OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

  /// The next parameter's number.
  private mutating func next() -> CInt {
    index += 1
    return index
  }

  private mutating func check(_ code: CInt) {
    if code != SQLITE_OK, failure == nil { failure = code }
  }

  mutating func bind(_ text: String) {
    let (statement, index) = (statement, next())
    var text = text
    check(
      text.withUTF8 { utf8 in
        // An empty buffer may have no address, which SQLite would bind as NULL.
        guard let start = utf8.baseAddress, !utf8.isEmpty else {
          return sqlite3_bind_text(statement, index, "", 0, Self.transient)
        }
        return start.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
          sqlite3_bind_text(statement, index, $0, CInt(utf8.count), Self.transient)
        }
      })
  }

  mutating func bind(_ number: Int64) {
    check(sqlite3_bind_int64(statement, next(), number))
  }

  /// A field's value as the catalog stores it (`CatalogStore.databaseValue`).
  mutating func bind(_ value: FieldValue?) {
    switch value {
    case .none: check(sqlite3_bind_null(statement, next()))
    case .text(let text): bind(text)
    case .number(let number): check(sqlite3_bind_double(statement, next(), number))
    case .texts(let texts): bind(blob: TextListCodec.encode(texts))
    case .vector(let values): bind(blob: VectorCodec.encode(values))
    case .some(let kept): bind(blob: KeptJSONCodec.encode(kept))
    }
  }

  private mutating func bind(blob: [UInt8]) {
    let (statement, index) = (statement, next())
    check(
      blob.withUnsafeBytes {
        sqlite3_bind_blob(statement, index, $0.baseAddress, CInt($0.count), Self.transient)
      })
  }
}

extension Statement {
  /// Runs this statement once with the values `bind` binds, as `execute(arguments:)` does.
  fileprivate func run(_ db: Database, _ bind: (inout RowValues) -> Void) throws {
    let statement = sqliteStatement
    sqlite3_reset(statement)
    var values = RowValues(statement)
    bind(&values)
    var code = values.failure ?? sqlite3_step(statement)
    if code == SQLITE_DONE { code = SQLITE_OK }
    let message = code == SQLITE_OK ? nil : String(cString: sqlite3_errmsg(db.sqliteConnection))
    sqlite3_reset(statement)
    if let message {
      throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }
  }
}
