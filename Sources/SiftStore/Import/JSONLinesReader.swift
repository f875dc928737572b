import Foundation
import Sift

/// Reads JSON Lines: one JSON object a line; blank lines are skipped. Each line is read from its
/// bytes by the engine's JSON reader (`JSONValue.parse`): Foundation's `JSONSerialization`, with
/// a cast of every value from `Any`, took most of an import's reading.
///
/// The file is read a batch of lines at a time, each batch cut into one part per core at line
/// ends: the parts parse and check their lines at once, then their records are handed on in
/// the file's order, so the first bad line is the one reported whatever part found it.
enum JSONLinesReader {
  /// A line's values, checked into a record; run on several threads at once.
  typealias Check =
    @Sendable ([String: RawValue], _ line: Int) -> Result<ImportRecord, RecordProblem>

  /// The bytes a batch holds: enough that starting the parts costs nothing beside them.
  static let batchBytes = 8 << 20

  /// Calls `body` with each line's record, in file order; stops at the first bad line.
  static func read(
    _ data: Data, file: String, progress: (Int) -> Void, check: Check,
    _ body: (ImportRecord) throws(ImportError) -> Void
  ) throws(ImportError) {
    // The lines are found in the file's bytes, not through `Data`'s subscripts, whose every
    // byte read was checked for exclusive access: a quarter of the reading.
    try data.withUnsafeBytes { raw in
      Result { () throws(ImportError) in
        let bytes = SharedReadBuffer(buffer: raw.bindMemory(to: UInt8.self))
        var linesBefore = 0
        // A byte order mark before the first line (as some Windows tools write) is not JSON.
        var start = bytes.buffer.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.buffer.count {
          let end = lineEnd(in: bytes.buffer, after: min(bytes.buffer.count, start + batchBytes))
          let parts = partRanges(
            in: bytes.buffer, start..<end,
            count: Parallel.parts(for: end - start, minimumPerPart: 1 << 20))
          let read = Parallel.map(parts: parts.count) { part in
            readPart(bytes.buffer, parts[part], file: file, check: check)
          }
          for part in read {
            for var record in part.records {
              record.line += linesBefore
              try body(record)
            }
            if var error = part.error {
              error.line += linesBefore
              throw error
            }
            linesBefore += part.lineCount
          }
          start = end
          progress(start)
        }
        progress(bytes.buffer.count)
      }
    }.get()
  }

  /// Where the line that `offset` is in ends (past its newline), or the end of the bytes.
  private static func lineEnd(in bytes: UnsafeBufferPointer<UInt8>, after offset: Int) -> Int {
    guard offset > 0, offset < bytes.count else { return offset }
    if bytes[offset - 1] == UInt8(ascii: "\n") { return offset }
    return bytes[offset...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.count
  }

  /// `range` cut into `count` ranges of whole lines, in order.
  private static func partRanges(
    in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, count: Int
  ) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    var start = range.lowerBound
    for part in 1...count {
      let end =
        part == count
        ? range.upperBound
        : max(start, lineEnd(in: bytes, after: range.lowerBound + range.count * part / count))
      ranges.append(start..<min(end, range.upperBound))
      start = min(end, range.upperBound)
    }
    return ranges
  }

  /// The records of the lines in `range`, numbered from 1; the first bad line's error stops
  /// the part. `lineCount`: the lines the part holds, when it read them all.
  private static func readPart(
    _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, file: String, check: Check
  ) -> (records: [ImportRecord], lineCount: Int, error: ImportError?) {
    var records: [ImportRecord] = []
    var lineNumber = 0
    var start = range.lowerBound
    while start < range.upperBound {
      lineNumber += 1
      let end =
        bytes[start..<range.upperBound].firstIndex(of: UInt8(ascii: "\n")) ?? range.upperBound
      var line = UnsafeBufferPointer(rebasing: bytes[start..<end])
      if line.last == UInt8(ascii: "\r") { line = UnsafeBufferPointer(rebasing: line.dropLast()) }
      start = end < range.upperBound ? end + 1 : end
      if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
      func failure(_ reason: String) -> (
        records: [ImportRecord], lineCount: Int, error: ImportError?
      ) {
        (records, lineNumber, ImportError(file: file, line: lineNumber, reason: reason))
      }
      guard UTF8Validation.isValid(line) else { return failure("invalid UTF-8") }
      let value: JSONValue
      do {
        value = try JSONValue.parse(UnsafeRawBufferPointer(line))
      } catch {
        return failure("malformed JSON (\(error))")
      }
      guard case .object(let members) = value else {
        return failure("expected a JSON object, found \(raw(value).kindName)")
      }
      // A name given twice: the last value counts, as in most JSON readers.
      let values = Dictionary(members.lazy.map { ($0.0, raw($0.1)) }, uniquingKeysWith: { $1 })
      switch check(values, lineNumber) {
      case .success(let record): records.append(record)
      case .failure(let problem): return failure(problem.reason)
      }
    }
    return (records, lineNumber, nil)
  }

  /// A value as a record holds it: a nested object's members in key order.
  private static func raw(_ value: JSONValue) -> RawValue {
    switch value {
    case .null: .null
    case .bool(let value): .bool(value)
    case .number(let number): .number(number)
    case .string(let string): .string(string)
    case .strings(let strings): .array(strings.map(RawValue.string))
    case .array(let elements): .array(elements.map(raw))
    case .object(let members):
      .object(
        Dictionary(members, uniquingKeysWith: { $1 }).sorted { $0.key < $1.key }
          .map { ($0.key, raw($0.value)) })
    }
  }
}
