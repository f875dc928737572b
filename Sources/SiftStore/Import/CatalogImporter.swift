import Foundation
import GRDB
import Sift

/// Imports a JSON Lines or CSV file into a catalog, creating the catalog if needed.
///
/// The whole file is read and checked first; then every record is written in one transaction.
/// Any bad line fails the import with `FILE:LINE: reason` and leaves the catalog as it was.
/// Records whose id is already in the catalog update that item (it keeps its place).
public enum CatalogImporter {
  public enum Format: String, Sendable {
    case jsonLines, csv

    /// By extension (`.csv`; `.jsonl`, `.ndjson`, `.json`), else by content: a file whose first
    /// character is `{` is JSON Lines, anything else CSV.
    public static func detect(path: String, data: Data) -> Format {
      let lowered = path.lowercased()
      if lowered.hasSuffix(".csv") { return .csv }
      if [".jsonl", ".ndjson", ".json"].contains(where: lowered.hasSuffix) { return .jsonLines }
      let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
      let text = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
      return text.first { !whitespace.contains($0) } == UInt8(ascii: "{") ? .jsonLines : .csv
    }
  }

  public typealias Summary = CatalogImport.Summary

  /// Reads and checks every record of `file`.
  ///
  /// - Parameters:
  ///   - spec: the fields to read by name; every other field of a record is kept as it is
  ///     (a CSV column of numbers only, as numbers).
  ///   - delimiter: what separates CSV fields (`--delimiter`).
  ///   - progress: called as the file is read, with the share of it read and the records.
  public static func readRecords(
    file: URL, spec: ImportSpec, delimiter: UInt8 = UInt8(ascii: ","),
    progress: (ImportProgress) -> Void = { _ in }
  ) throws(ImportError) -> [ImportRecord] {
    let name = file.relativePath
    guard !spec.titleField.isEmpty else {
      throw ImportError(
        file: name, line: 0,
        reason: "a new catalog needs --title FIELD: the field each item shows as its title")
    }
    if let field = spec.conflictingField {
      throw ImportError(file: name, line: 0, reason: "field \"\(field)\" is given two kinds")
    }
    let data: Data
    do {
      data = try Data(contentsOf: file)
    } catch {
      throw ImportError(
        file: name, line: 0, reason: "cannot read the file (\(error.localizedDescription))")
    }
    let format = Format.detect(path: name, data: data)
    var records: [ImportRecord] = []
    var lineOfID: [ItemID: Int] = [:]
    let total = Double(max(1, data.count))
    let named = spec.namedFields
    // Functions, not closures kept in constants: what they capture is then checked for
    // exclusive access when compiled, not on every record (a quarter of the reading).
    func add(_ record: ImportRecord) throws(ImportError) {
      if let id = record.id {
        if let first = lineOfID[id] {
          throw ImportError(
            file: name, line: record.line,
            reason: "id \"\(id)\" already appears on line \(first)")
        }
        lineOfID[id] = record.line
      }
      records.append(record)
    }
    func report(_ offset: Int) {
      progress(.reading(Double(offset) / total, items: records.count))
    }
    switch format {
    case .jsonLines:
      try JSONLinesReader.read(
        data, file: name, progress: report,
        check: { values, line in
          spec.record(values, line: line, numbersFromText: false, named: named)
        }, add)
    case .csv:
      func check(_ values: [String: RawValue], _ line: Int) throws(ImportError) {
        switch spec.record(values, line: line, numbersFromText: true, named: named) {
        case .success(let record): try add(record)
        case .failure(let problem):
          throw ImportError(file: name, line: line, reason: problem.reason)
        }
      }
      try CSVRecordReader.read(data, file: name, delimiter: delimiter, progress: report, check)
      numbersKept(in: &records, spec: spec)
    }
    return records
  }

  /// A CSV cell is text: a column no flag named whose every cell is a number is kept as
  /// numbers (a city's latitude), any other as text.
  private static func numbersKept(in records: inout [ImportRecord], spec: ImportSpec) {
    let named = spec.namedFields
    var numeric: [String: Bool] = [:]
    for record in records {
      for (name, value) in record.fields where !named.contains(name) {
        guard numeric[name] != false else { continue }
        if case .text(let text) = value, NumberText.parse(text) != nil {
          numeric[name] = true
        } else {
          numeric[name] = false
        }
      }
    }
    let columns = numeric.filter(\.value).map(\.key)
    guard !columns.isEmpty else { return }
    for index in records.indices {
      for name in columns {
        if case .text(let text)? = records[index].fields[name], let number = NumberText.parse(text)
        {
          records[index].fields[name] = .number(number)
        }
      }
    }
  }

  /// Imports `file` into the catalog at `location`, creating it when it does not exist.
  ///
  /// A catalog that exists imports as it did before (`ImportSpec.continuing(_:)`): `spec`
  /// needs to name only what is new.
  public static func run(
    file: URL, into catalog: URL, spec: ImportSpec, delimiter: UInt8 = UInt8(ascii: ","),
    progress: (ImportProgress) -> Void = { _ in }
  ) throws(ImportFailure) -> Summary {
    let exists = FileManager.default.fileExists(atPath: catalog.path)
    var spec = spec
    if exists {
      do {
        let store = try CatalogStore.open(at: catalog)
        defer { try? store.close() }
        spec = spec.continuing(try store.loadSchema())
      } catch {
        throw .catalog(error)
      }
    }
    var records: [ImportRecord]
    do {
      records = try readRecords(
        file: file, spec: spec, delimiter: delimiter, progress: progress)
    } catch {
      throw .file(error)
    }
    do {
      let store: CatalogStore
      if exists {
        store = try CatalogStore.open(at: catalog)
      } else {
        let schema = CatalogImport.newSchema(
          name: catalog.deletingPathExtension().lastPathComponent, spec: spec)
        store = try CatalogStore.create(
          at: catalog, document: CatalogDocument(schema: schema, items: []))
      }
      defer { try? store.close() }
      return try store.importRecords(&records, spec: spec, progress: progress)
    } catch .untitledRecord(let line, let field) {
      throw .file(
        ImportError(
          file: file.relativePath, line: line,
          reason: ImportSchemaError.untitledReason(field: field)))
    } catch {
      throw .catalog(error)
    }
  }
}

extension CatalogStore {
  /// Writes checked records in one transaction: new ids are added at the end, known ids updated.
  /// `records` is emptied once they are written, so that the index is built from the items
  /// read back without the records beside them in memory.
  func importRecords(
    _ records: inout [ImportRecord], spec: ImportSpec,
    progress: (ImportProgress) -> Void = { _ in }
  ) throws(StoreError) -> CatalogImporter.Summary {
    try write { db in
      let before = try Self.schema(db, path: path)
      let spec = spec.continuing(before)
      let schema = try merged(
        before, with: spec, stored: CatalogImport.storedFields(in: records, spec: spec))
      try writeSchema(schema, db)
      var known = Set(try String.fetchAll(db, sql: "SELECT id FROM items"))
      if let untitled = CatalogImport.untitledNewRecord(
        in: records, titleField: schema.titleField, isKnown: { known.contains($0.rawValue) })
      {
        throw StoreError.untitledRecord(line: untitled.line, field: schema.titleField)
      }
      var position = try nextPosition(db)
      var allocator = try ItemIDAllocator(db)
      // Every field: a replaced item loses what the record does not hold.
      let fields = schema.allFields.map(\.name)
      let columns = fields.map(Self.column)
      let insert = try db.makeStatement(sql: Self.insertItemSQL(columns: columns))
      let update = try db.makeStatement(sql: Self.updateItemSQL(columns: columns))
      var summary = CatalogImport.Summary()
      // The log is restarted after the import: its rows are written without being logged.
      try Self.withoutChangeLog(db) {
        for (index, record) in records.enumerated() {
          if index % 4096 == 0 {
            progress(.writing(Double(index) / Double(max(1, records.count)), items: index))
          }
          let id: String
          if let given = record.id {
            id = given.rawValue
          } else {
            id = allocator.next(isTaken: known.contains).rawValue
          }
          if known.contains(id), spec.merges {
            // Only the fields the record holds.
            let held = fields.filter { record.fields[$0] != nil }
            if !held.isEmpty {
              try db.cachedStatement(sql: Self.updateItemSQL(columns: held.map(Self.column)))
                .execute(
                  arguments: StatementArguments(
                    held.map { Self.databaseValue(record.fields[$0]) } + [id.databaseValue]))
            }
            summary.updated += 1
            continue
          }
          let values = fields.map { Self.databaseValue(record.fields[$0]) }
          if known.contains(id) {
            try update.execute(arguments: StatementArguments(values + [id.databaseValue]))
            summary.updated += 1
          } else {
            try insert.execute(
              arguments: StatementArguments([id.databaseValue, position.databaseValue] + values))
            known.insert(id)
            position += 1
            summary.added += 1
          }
        }
        return summary.added + summary.updated
      }
      summary.describe(records, schema: schema, merges: spec.merges)
      let count = records.count
      records = []
      try writeSchema(try withCategoryScopes(schema, db), db)
      // The index of the items as they now are, in the import's own transaction.
      progress(.indexing(0, items: count))
      try writeIndex(of: try document(db), db) {
        progress(.indexing(0.2 + 0.8 * $0, items: count))
      }
      // A copy from before the import starts over (the schema was written again).
      try Self.restartLog(db)
      progress(.indexing(1, items: count))
      return summary
    }
  }

  /// `CatalogImport.merged(_:with:)`, its errors naming the file.
  private func merged(
    _ schema: CatalogSchema, with spec: ImportSpec, stored: [FieldDefinition]
  ) throws(StoreError) -> CatalogSchema {
    do {
      return try CatalogImport.merged(schema, with: spec, stored: stored)
    } catch {
      switch error {
      case .incompatible(let reason): throw .incompatibleSchema(path, reason: reason)
      case .invalid(let error): throw .invalidSchema(path, error)
      case .unknownLabelField, .untitled:
        throw .incompatibleSchema(path, reason: error.description)
      }
    }
  }

  /// The schema with the category's scopes or tokens as the items now have them
  /// (`CatalogImport.withCategoryScopes(_:values:)`).
  private func withCategoryScopes(_ schema: CatalogSchema, _ db: Database) throws -> CatalogSchema {
    guard let field = schema.categoryField else { return schema }
    let column = Self.column(field)
    let values = try String.fetchAll(
      db,
      sql: """
        SELECT \(column) FROM items WHERE typeof(\(column)) = 'text' AND \(column) <> ''
        GROUP BY \(column) ORDER BY min(position)
        """)
    return CatalogImport.withCategoryScopes(schema, values: values)
  }
}
