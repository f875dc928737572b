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
  ///   - progress: told the share of the file read and the records so far.
  /// - Throws: `ImportError` for the file; what `batch` throws, as it is.
  static func read(
    file: URL, spec: ImportSpec, delimiter: UInt8,
    progress: (_ share: Double, _ records: Int) -> Void,
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
    let named = spec.namedFields
    // Each batch's ids checked against every id before it, then handed on.
    func add(_ records: [ImportRecord]) throws {
      for record in records {
        guard let id = record.id else { continue }
        if let first = lineOfID.updateValue(record.line, forKey: id) {
          throw ImportError(
            file: name, line: record.line, reason: "id \"\(id)\" already appears on line \(first)")
        }
      }
      count += records.count
      try batch(records)
    }
    switch CatalogImporter.Format.detect(path: name, data: Data(start)) {
    case .jsonLines:
      try JSONLinesReader.read(
        handle, start: start, name: name,
        progress: { progress(Double($0) / total, count) },
        check: { values, line in
          spec.record(values, line: line, numbersFromText: false, named: named)
        }, add)
    case .csv:
      let data: Data
      do {
        data = Data(start) + (try handle.readToEnd() ?? Data())
      } catch {
        throw unreadable(error)
      }
      var records: [ImportRecord] = []
      func check(_ values: [String: RawValue], _ line: Int) throws(ImportError) {
        switch spec.record(values, line: line, numbersFromText: true, named: named) {
        case .success(let record): records.append(record)
        case .failure(let problem):
          throw ImportError(file: name, line: line, reason: problem.reason)
        }
      }
      try CSVRecordReader.read(
        data, file: name, delimiter: delimiter,
        progress: { progress(Double($0) / total * 0.5, records.count) }, check)
      CatalogImporter.numbersKept(in: &records, spec: spec)
      for start in stride(from: 0, to: records.count, by: csvBatch) {
        try add(Array(records[start..<min(records.count, start + csvBatch)]))
        progress(0.5 + 0.5 * Double(start) / Double(records.count), count)
      }
    }
    progress(1, count)
  }
}
