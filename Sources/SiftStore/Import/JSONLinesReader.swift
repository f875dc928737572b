import Foundation
import Sift

/// Reads JSON Lines: one JSON object a line; blank lines are skipped. Each line is read from its
/// bytes by the engine's JSON reader (`JSONValue.parse`): Foundation's `JSONSerialization`, with
/// a cast of every value from `Any`, took most of an import's reading.
///
/// The file is read a batch of lines at a time, never whole, each batch cut into one part per
/// core at line ends: the parts parse and check their lines at once, then their records are
/// handed on in the file's order, so the first bad line is the one reported whatever part
/// found it.
enum JSONLinesReader {
  /// A line's values, checked into a record; run on several threads at once.
  typealias Check =
    @Sendable ([String: RawValue], _ line: Int) -> Result<ImportRecord, RecordProblem>

  /// The bytes a batch holds: enough that starting the parts costs nothing beside them, few
  /// enough that a batch's records are a small part of an import's memory.
  static let batchBytes = 4 << 20

  /// Calls `body` with each batch of records, in file order, as `file` is read from where it
  /// stands (`start`: the bytes read before it, to detect the format); stops at the first bad
  /// line. `progress` is told the bytes read so far. The next batch is parsed on other threads
  /// while `body` has this one.
  ///
  /// With `reject`, a bad line does not stop the reading: it is handed to `reject` (in file
  /// order, after the records of its batch) and the lines after it are read.
  static func read(
    _ file: FileHandle, start: [UInt8], name: String, progress: (Int) -> Void,
    check: @escaping Check, reject: ((ImportError) throws -> Void)? = nil,
    _ body: ([ImportRecord]) throws -> Void
  ) throws {
    let skips = reject != nil
    var batches = BatchedFile(file, name: name, start: start)
    // A byte order mark before the first line (as some Windows tools write) is not JSON.
    batches.skip([0xEF, 0xBB, 0xBF])
    var linesBefore = 0
    // The next batch of whole lines (the last one may end without a newline); nil at the end
    // of the file. A line longer than a batch reads on.
    func nextBatch() throws -> [UInt8]? {
      try batches.next(size: batchBytes, line: linesBefore + 1) { bytes, atEnd in
        atEnd ? bytes.count : bytes.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 }
      }
    }
    func parsing(_ batch: [UInt8], after lines: Int) -> Background<Parsed> {
      Background { parse(batch, linesBefore: lines, file: name, skips: skips, check: check) }
    }
    var next = try nextBatch().map { parsing($0, after: 0) }
    while let current = next {
      let parsed = current.take()
      // The lines of a batch are numbered as it is parsed: the next one starts after these.
      linesBefore += parsed.lineCount
      next = try nextBatch().map { parsing($0, after: linesBefore) }
      // The records before a bad line are handed on first, so that the first problem in the
      // file is the one reported, whether it is found here or where the record is written
      // (the caller's transaction undoes what was written).
      // In file order: the records before each passed-over line, then that line.
      var records = parsed.records[...]
      for rejected in parsed.rejected {
        let before = records.prefix { $0.line < rejected.line }
        if !before.isEmpty { try body(Array(before)) }
        records = records.dropFirst(before.count)
        try reject?(rejected)
      }
      if !records.isEmpty { try body(Array(records)) }
      if let error = parsed.error { throw error }
      progress(batches.consumed)
    }
  }

  /// A batch's records with their lines in the file, how many lines it holds, and the first
  /// bad line's error, if any (the records are those before it).
  struct Parsed: Sendable {
    var records: [ImportRecord]
    var lineCount: Int
    var error: ImportError?
    /// The bad lines passed over (`skips`), in order.
    var rejected: [ImportError] = []
  }

  /// The lines of `batch`, which follows `linesBefore` lines of the file, parsed and checked
  /// in parts, one per core, at once.
  private static func parse(
    _ batch: [UInt8], linesBefore: Int, file: String, skips: Bool, check: Check
  ) -> Parsed {
    batch.withUnsafeBufferPointer { buffer in
      let bytes = SharedReadBuffer(buffer: buffer)
      let parts = partRanges(
        in: buffer, 0..<buffer.count,
        count: Parallel.parts(for: buffer.count, minimumPerPart: 1 << 20))
      let read = Parallel.map(parts: parts.count) { part in
        readPart(
          bytes.buffer, parts[part], file: file, skips: skips, check: check,
          startsFile: linesBefore == 0 && part == 0)
      }
      var parsed = Parsed(records: [], lineCount: 0)
      parsed.records.reserveCapacity(read.reduce(0) { $0 + $1.records.count })
      for part in read {
        for var record in part.records {
          record.line += linesBefore + parsed.lineCount
          parsed.records.append(record)
        }
        for var rejected in part.rejected {
          rejected.line += linesBefore + parsed.lineCount
          parsed.rejected.append(rejected)
        }
        if var error = part.error {
          error.line += linesBefore + parsed.lineCount
          parsed.error = error
          break
        }
        parsed.lineCount += part.lineCount
      }
      return parsed
    }
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
  /// the part. `lineCount`: the lines the part holds, when it read them all. `startsFile`: the
  /// part is the file's first, whose first line may be an export's settings (`ImportSettings`),
  /// not a record.
  private static func readPart(
    _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, file: String, skips: Bool,
    check: Check, startsFile: Bool
  ) -> (records: [ImportRecord], lineCount: Int, error: ImportError?, rejected: [ImportError]) {
    var records: [ImportRecord] = []
    var rejected: [ImportError] = []
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
      if startsFile, lineNumber == 1, line.starts(with: ImportSettings.prefix) { continue }
      // A line's problem: the reading stops there, or, skipping, notes it and goes on.
      let problem: String
      checking: do {
        guard UTF8Validation.isValid(line) else {
          problem = "invalid UTF-8"
          break checking
        }
        let value: JSONValue
        do {
          value = try JSONValue.parse(UnsafeRawBufferPointer(line))
        } catch {
          problem = "malformed JSON (\(error))"
          break checking
        }
        guard case .object(let members) = value else {
          problem = "expected a JSON object, found \(RawValue(value).kindName)"
          break checking
        }
        // A name given twice: the last value counts, as in most JSON readers.
        let values = Dictionary(
          members.lazy.map { ($0.0, RawValue($0.1)) }, uniquingKeysWith: { $1 })
        switch check(values, lineNumber) {
        case .success(let record):
          records.append(record)
          continue
        case .failure(let failure): problem = failure.reason
        }
      }
      let error = ImportError(file: file, line: lineNumber, reason: problem)
      guard skips else { return (records, lineNumber, error, rejected) }
      rejected.append(error)
    }
    return (records, lineNumber, nil, rejected)
  }
}
