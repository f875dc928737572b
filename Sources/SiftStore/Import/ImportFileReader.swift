import Foundation
import Sift

/// Reads an import file a batch of checked records at a time, in file order: what an import
/// writes as it goes, so that it never holds the whole file or all its records.
///
/// Every record is checked against the spec, and ids are checked to be unique in the file; the
/// first bad line stops the reading with `FILE:LINE: reason`.
enum ImportFileReader {
  /// What makes `spec` unable to read any file: no title field, or a field given two kinds.
  static func specProblem(_ spec: ImportSpec, file: String) -> ImportError? {
    guard !spec.titleField.isEmpty else {
      return ImportError(
        file: file, line: 0,
        reason: "a new catalog needs --title FIELD: the field each item shows as its title")
    }
    if let field = spec.conflictingField {
      return ImportError(file: file, line: 0, reason: "field \"\(field)\" is given two kinds")
    }
    return nil
  }

  /// Calls `batch` with each batch of records of `file`, checked against `spec`.
  ///
  /// - Parameters:
  ///   - delimiter: what separates CSV fields (`--delimiter`).
  ///   - progress: told the share of the file read and the records so far, and whether they
  ///     are only scanned (a CSV file's first reading) or handed on.
  ///   - settings: an export's settings (`CatalogExport`): a CSV file's cells are then read as
  ///     the export wrote them (`CSVExportCells`).
  ///   - csvBatchBytes: the bytes of a CSV file read at once (small in tests).
  ///   - reject: given each record that does not fit, in file order, when the import takes
  ///     the good ones (`--skip-invalid`); nil: the first one stops the reading.
  /// - Throws: `ImportError` for the file; what `batch` throws, as it is.
  static func read(
    file: URL, spec: ImportSpec, delimiter: UInt8, settings: CatalogExport.Settings? = nil,
    csvBatchBytes: Int = CSVRecordReader.batchBytes,
    progress: (_ share: Double, _ records: Int, _ scanning: Bool) -> Void,
    reject: ((ImportError) throws -> Void)? = nil,
    _ batch: ([ImportRecord]) throws -> Void
  ) throws {
    let name = file.relativePath
    if let problem = specProblem(spec, file: name) { throw problem }
    func unreadable(_ error: any Error) -> ImportError {
      ImportError(
        file: name, line: 0, reason: "cannot read the file (\(error.localizedDescription))")
    }
    let handle: FileHandle
    let size: Int
    let start: [UInt8]
    do {
      handle = try FileHandle(forReadingFrom: file)
      size = Int(try handle.seekToEnd())
      try handle.seek(toOffset: 0)
      start = Array(try handle.read(upToCount: 4096) ?? Data())
    } catch {
      throw unreadable(error)
    }
    defer { try? handle.close() }
    let total = Double(max(1, size))
    var count = 0
    var lineOfID: [ItemID: Int] = [:]
    let known = ImportSpec.RecordFields(spec)
    // The first vector of a new catalog sets the length the later ones must have.
    var lengths = spec
    // What only the records before can tell: an id given twice (the later one is refused), a
    // vector of another length than the first.
    func fitsEarlier(_ record: ImportRecord) throws -> Bool {
      var problem: ImportError?
      if let id = record.id, let first = lineOfID[id] {
        problem = ImportError(
          file: name, line: record.line, reason: "id \"\(id)\" already appears on line \(first)")
      } else {
        do throws(ImportSchemaError) {
          _ = try lengths.takeVectorLength(of: record)
          if let id = record.id { lineOfID[id] = record.line }
        } catch {
          guard case .unfitting(let line, let reason) = error else { throw error }
          problem = ImportError(file: name, line: line, reason: reason)
        }
      }
      guard let problem else { return true }
      guard let reject else { throw problem }
      try reject(problem)
      return false
    }
    func add(_ records: [ImportRecord]) throws {
      let records = reject == nil ? records : try records.filter(fitsEarlier)
      if reject == nil { for record in records { _ = try fitsEarlier(record) } }
      count += records.count
      if !records.isEmpty { try batch(records) }
    }
    switch CatalogImporter.Format.detect(path: name, data: Data(start)) {
    case .jsonLines:
      try JSONLinesReader.read(
        handle, start: start, name: name,
        progress: { progress(Double($0) / total, count, false) },
        check: { values, line in
          spec.record(values, line: line, numbersFromText: false, known: known)
        }, reject: reject, add)
    case .csv:
      var reader = try CSVRecordReader(
        handle, start: start, name: name, delimiter: delimiter, batchBytes: csvBatchBytes)
      // A column no flag names is kept as numbers when every cell of it is one (`CSVNumbers`),
      // which only the whole file can tell: while some such column has only numbers so far,
      // the file is read once before, for those columns' cells alone. Its records are checked
      // as they are handed on: a problem the first reading meets stops it, for the second to
      // report in its place in the file. An export's columns have their kinds in its settings.
      let cells = settings.map(CSVExportCells.init)
      var numbers = CSVNumbers(
        header: reader.header, named: known.named.union(cells?.fields ?? []))
      let readTwice = numbers.undecided
      if readTwice {
        let columns = numbers.columns
        var looked = 0
        try? reader.read(
          progress: { progress(0.5 * Double($0) / total, looked, true) },
          convert: { fields, _ in .success(CSVNumbers.cells(fields, columns)) }
        ) { cells in
          looked += cells.count
          for record in cells { numbers.note(record) }
          return numbers.undecided
        }
        do {
          try handle.seek(toOffset: 0)
          let again = Array(try handle.read(upToCount: start.count) ?? Data())
          reader = try CSVRecordReader(
            handle, start: again, name: name, delimiter: delimiter, batchBytes: csvBatchBytes)
        } catch let error as ImportError {
          throw error
        } catch {
          throw unreadable(error)
        }
      }
      let first = readTwice ? 0.5 : 0
      try reader.read(
        progress: { progress(first + (1 - first) * Double($0) / total, count, false) },
        convert: { [numbers] fields, line -> Result<ImportRecord, ImportError> in
          var values = Dictionary(
            uniqueKeysWithValues: zip(numbers.header, fields.lazy.map(RawValue.string)))
          if let problem = cells?.read(&values) {
            return .failure(ImportError(file: name, line: line, reason: problem.reason))
          }
          switch spec.record(
            values, line: line, numbersFromText: true, emptyIsNothing: cells == nil, known: known)
          {
          case .success(var record):
            numbers.convert(&record)
            return .success(record)
          case .failure(let problem):
            return .failure(ImportError(file: name, line: line, reason: problem.reason))
          }
        }, reject: reject
      ) { records in
        try add(records)
        return true
      }
    }
    progress(1, count, false)
  }
}

/// The columns of a CSV file that no flag names and whose every non-empty cell is a number:
/// kept as numbers (a city's latitude), any other as text.
struct CSVNumbers: Sendable {
  /// The file's columns, in order.
  let header: [String]
  /// The positions of the columns no flag names.
  let columns: [Int]
  /// Per column of `columns`: whether every non-empty cell so far was a number (nil: no
  /// such cell yet).
  private var numeric: [Bool?]
  init(header: [String], named: Set<String>) {
    self.header = header
    columns = header.indices.filter { !named.contains(header[$0]) }
    numeric = Array(repeating: nil, count: columns.count)
  }

  /// Whether some column may still hold only numbers: the file must be read to know.
  var undecided: Bool { numeric.contains { $0 != false } }

  /// Whether each of a record's cells in `columns` is a number; nil for an empty one.
  static func cells(_ fields: [String], _ columns: [Int]) -> [Bool?] {
    columns.map { fields[$0].isEmpty ? nil : NumberText.parse(fields[$0]) != nil }
  }

  /// Takes in one record's `cells(_:_:)`.
  mutating func note(_ cells: [Bool?]) {
    for (column, isNumber) in cells.enumerated() {
      guard let isNumber, numeric[column] != false else { continue }
      numeric[column] = isNumber
    }
  }

  /// `record` with its cells in the columns of numbers as numbers.
  func convert(_ record: inout ImportRecord) {
    for (column, isNumeric) in zip(columns, numeric) where isNumeric == true {
      let name = header[column]
      if case .text(let text)? = record.fields[name], let number = NumberText.parse(text) {
        record.fields[name] = .number(number)
      }
    }
  }
}

/// The cells of a CSV file an export wrote (`CatalogExport.csvRow`), read with its settings:
/// a cell that starts with `[` is a JSON list, one that starts with `"` a JSON string, an empty
/// one no value; in a field kept unsearched, `{`, `true`, `false`, `null` and a number are JSON
/// too, so that each value comes back with the type it had.
struct CSVExportCells: Sendable {
  /// Every field the settings name, the id's too.
  let fields: Set<String>
  private let idField: String
  private let kept: Set<String>

  init(_ settings: CatalogExport.Settings) {
    fields = Set(settings.columns)
    idField = settings.idField
    kept = Set(settings.schema.storedFields.map(\.name))
  }

  /// `values`, a record's cells, read as the export wrote them; the problem with the first
  /// cell that does not read, if any.
  func read(_ values: inout [String: RawValue]) -> RecordProblem? {
    for (name, value) in values where name != idField {
      guard case .string(let cell) = value else { continue }
      // An empty cell is a field the item does not have.
      guard let first = cell.utf8.first else {
        values[name] = nil
        continue
      }
      let isKept = kept.contains(name)
      if first == UInt8(ascii: "[") || first == UInt8(ascii: "\"")
        || (isKept && first == UInt8(ascii: "{"))
      {
        let json: JSONValue
        do {
          json = try JSONValue.parse(Data(cell.utf8))
        } catch {
          return
            "field \"\(name)\": a cell that starts with \(Character(UnicodeScalar(first))) is JSON in an export's CSV, and this one does not read (\(error))"
        }
        if !isKept, case .array(let elements) = json, !elements.isEmpty {
          return
            "field \"\(name)\": a cell that starts with [ is a list of strings in an export's CSV"
        }
        values[name] = RawValue(json)
      } else if isKept {
        switch cell {
        case "true": values[name] = .bool(true)
        case "false": values[name] = .bool(false)
        case "null": values[name] = .null
        default: if let number = NumberText.parse(cell) { values[name] = .number(number) }
        }
      }
    }
    return nil
  }
}
