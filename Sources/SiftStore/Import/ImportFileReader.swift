import Foundation
import Sift

/// Reads an import file a batch of checked records at a time, in file order: what an import
/// writes as it goes, so that it never holds the whole file or all its records.
///
/// Every record is checked against the spec, and ids are checked to be unique in the file; the
/// first bad line stops the reading with `FILE:LINE: reason`.
enum ImportFileReader {
  /// How many CSV records are handed on at once.
  static let csvBatch = 16_384

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
  ///     are only checked (a CSV file's first pass) or handed on.
  /// - Throws: `ImportError` for the file; what `batch` throws, as it is.
  static func read(
    file: URL, spec: ImportSpec, delimiter: UInt8,
    progress: (_ share: Double, _ records: Int, _ checking: Bool) -> Void,
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
    // A record's id checked against every id before it.
    func checkUnique(_ record: ImportRecord) throws(ImportError) {
      guard let id = record.id else { return }
      if let first = lineOfID.updateValue(record.line, forKey: id) {
        throw ImportError(
          file: name, line: record.line, reason: "id \"\(id)\" already appears on line \(first)")
      }
    }
    func add(_ records: [ImportRecord]) throws {
      for record in records { try checkUnique(record) }
      count += records.count
      try batch(records)
    }
    switch CatalogImporter.Format.detect(path: name, data: Data(start)) {
    case .jsonLines:
      try JSONLinesReader.read(
        handle, start: start, name: name,
        progress: { progress(Double($0) / total, count, false) },
        check: { values, line in
          spec.record(values, line: line, numbersFromText: false, known: known)
        }, add)
    case .csv:
      // Twice through the file: a column no flag names is kept as numbers when every cell of
      // it is one (`CSVNumbers`), which only the whole file tells. The first
      // pass checks every record and finds those columns; the second converts and hands on.
      var numbers = CSVNumbers(named: known.named)
      var checkedCount = 0
      func checked(_ values: [String: RawValue], _ line: Int) throws(ImportError) -> ImportRecord {
        switch spec.record(values, line: line, numbersFromText: true, known: known) {
        case .success(let record): return record
        case .failure(let problem):
          throw ImportError(file: name, line: line, reason: problem.reason)
        }
      }
      try CSVRecordReader.read(
        handle, start: start, name: name, delimiter: delimiter,
        progress: { progress(0.5 * Double($0) / total, checkedCount, true) }
      ) { values, line in
        let record = try checked(values, line)
        checkedCount += 1
        numbers.note(record)
        try checkUnique(record)
      }
      lineOfID = [:]  // the second pass meets the same ids, checked
      let again: [UInt8]
      do {
        try handle.seek(toOffset: 0)
        again = Array(try handle.read(upToCount: start.count) ?? Data())
      } catch {
        throw unreadable(error)
      }
      var records: [ImportRecord] = []
      func handOn() throws {
        count += records.count
        try batch(records)
        records = []
      }
      try CSVRecordReader.read(
        handle, start: again, name: name, delimiter: delimiter,
        progress: { progress(0.5 + 0.5 * Double($0) / total, count, false) }
      ) { values, line in
        var record = try checked(values, line)
        numbers.convert(&record)
        records.append(record)
        if records.count == csvBatch { try handOn() }
      }
      try handOn()
    }
    progress(1, count, false)
  }
}

/// The columns of a CSV file that no flag names and whose every cell is a number: kept as
/// numbers (a city's latitude), any other as text. Found a record at a time.
struct CSVNumbers {
  private let named: Set<String>
  /// Per column: whether every cell so far was a number.
  private var numeric: [String: Bool] = [:]

  init(named: Set<String>) {
    self.named = named
  }

  mutating func note(_ record: ImportRecord) {
    for (name, value) in record.fields where !named.contains(name) && numeric[name] != false {
      if case .text(let text) = value, NumberText.parse(text) != nil {
        numeric[name] = true
      } else {
        numeric[name] = false
      }
    }
  }

  /// `record` with its cells in the columns of numbers as numbers.
  func convert(_ record: inout ImportRecord) {
    for (name, isNumeric) in numeric where isNumeric {
      if case .text(let text)? = record.fields[name], let number = NumberText.parse(text) {
        record.fields[name] = .number(number)
      }
    }
  }
}
