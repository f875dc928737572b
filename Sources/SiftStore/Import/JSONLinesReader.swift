import Foundation
import Sift

/// Reads JSON Lines: one JSON object a line; blank lines are skipped.
enum JSONLinesReader {
  /// Calls `body` with each object's values and its line number; stops at the first bad line.
  static func read(
    _ data: Data, file: String, progress: (Int) -> Void,
    _ body: ([String: RawValue], Int) throws(ImportError) -> Void
  ) throws(ImportError) {
    var lineNumber = 0
    var start = data.startIndex
    while start < data.endIndex {
      lineNumber += 1
      let end = data[start...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
      var line = data[start..<end]
      if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
      start = end < data.endIndex ? end + 1 : end
      if lineNumber % 1024 == 0 { progress(start - data.startIndex) }
      if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
      guard UTF8Validation.isValid(line) else {
        throw ImportError(file: file, line: lineNumber, reason: "invalid UTF-8")
      }
      let value: Any
      do {
        value = try JSONSerialization.jsonObject(with: line, options: [.fragmentsAllowed])
      } catch {
        throw ImportError(file: file, line: lineNumber, reason: "malformed JSON (\(reason(error)))")
      }
      guard let object = value as? [String: Any] else {
        throw ImportError(
          file: file, line: lineNumber,
          reason: "expected a JSON object, found \(raw(value).kindName)")
      }
      try body(object.mapValues(raw), lineNumber)
    }
    progress(data.count)
  }

  /// A value from JSONSerialization, with booleans told apart from numbers (an `NSNumber`
  /// whose type is `c`, on every platform).
  private static func raw(_ value: Any) -> RawValue {
    switch value {
    case let string as String: return .string(string)
    case let number as NSNumber:
      if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
      return .number(number.doubleValue)
    case let array as [Any]: return .array(array.map(raw))
    case let object as [String: Any]:
      return .object(object.keys.sorted().map { ($0, raw(object[$0] as Any)) })
    default: return .null
    }
  }

  private static func reason(_ error: any Error) -> String {
    let error = error as NSError
    let text = error.userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
    return text.hasSuffix(".") ? String(text.dropLast()) : text
  }
}
