import Foundation
import Sift

/// Reads JSON Lines: one JSON object a line; blank lines are skipped. Each line is read from its
/// bytes by the engine's JSON reader (`JSONValue.parse`): Foundation's `JSONSerialization`, with
/// a cast of every value from `Any`, took most of an import's reading.
enum JSONLinesReader {
  /// Calls `body` with each object's values and its line number; stops at the first bad line.
  static func read(
    _ data: Data, file: String, progress: (Int) -> Void,
    _ body: ([String: RawValue], Int) throws(ImportError) -> Void
  ) throws(ImportError) {
    // The lines are found in the file's bytes, not through `Data`'s subscripts, whose every
    // byte read was checked for exclusive access: a quarter of the reading.
    try data.withUnsafeBytes { bytes in
      Result { () throws(ImportError) in try read(bytes, file: file, progress: progress, body) }
    }.get()
  }

  private static func read(
    _ bytes: UnsafeRawBufferPointer, file: String, progress: (Int) -> Void,
    _ body: ([String: RawValue], Int) throws(ImportError) -> Void
  ) throws(ImportError) {
    var lineNumber = 0
    var start = 0
    while start < bytes.count {
      lineNumber += 1
      let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
      var line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
      if line.last == UInt8(ascii: "\r") {
        line = UnsafeRawBufferPointer(rebasing: line.dropLast())
      }
      start = end < bytes.count ? end + 1 : end
      if lineNumber % 1024 == 0 { progress(start) }
      if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
      guard UTF8Validation.isValid(line) else {
        throw ImportError(file: file, line: lineNumber, reason: "invalid UTF-8")
      }
      let value: JSONValue
      do {
        value = try JSONValue.parse(line)
      } catch {
        throw ImportError(file: file, line: lineNumber, reason: "malformed JSON (\(error))")
      }
      guard case .object(let members) = value else {
        throw ImportError(
          file: file, line: lineNumber,
          reason: "expected a JSON object, found \(raw(value).kindName)")
      }
      // A name given twice: the last value counts, as in most JSON readers.
      try body(
        Dictionary(members.lazy.map { ($0.0, raw($0.1)) }, uniquingKeysWith: { $1 }), lineNumber)
    }
    progress(bytes.count)
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
