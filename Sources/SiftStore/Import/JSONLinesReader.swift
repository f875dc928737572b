import Foundation

/// Reads JSON Lines: one JSON object a line; blank lines are skipped.
enum JSONLinesReader {
  /// Calls `body` with each object's values and its line number; stops at the first bad line.
  static func read(
    _ data: Data, file: String, progress: (Int) -> Void,
    _ body: ([String: RawValue], Int) throws(ImportError) -> Void
  ) throws(ImportError) {
    let decoder = JSONDecoder()
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
      guard String(data: line, encoding: .utf8) != nil else {
        throw ImportError(file: file, line: lineNumber, reason: "invalid UTF-8")
      }
      let value: RawJSON
      do {
        value = try decoder.decode(RawJSON.self, from: line)
      } catch {
        throw ImportError(file: file, line: lineNumber, reason: "malformed JSON (\(reason(error)))")
      }
      guard case .object(let object) = value else {
        throw ImportError(
          file: file, line: lineNumber,
          reason: "expected a JSON object, found \(value.raw.kindName)")
      }
      try body(object.mapValues(\.raw), lineNumber)
    }
    progress(data.count)
  }

  private static func reason(_ error: any Error) -> String {
    if case DecodingError.dataCorrupted(let context) = error {
      if let underlying = context.underlyingError {
        let text = "\(underlying)"
        if let range = text.range(of: "NSDebugDescription=") {
          return String(text[range.upperBound...].prefix { $0 != "}" && $0 != "," })
        }
      }
      return context.debugDescription
    }
    return "unreadable"
  }
}

/// Any JSON value, decoded strictly: `true` is a boolean and `1` a number, never each other.
private enum RawJSON: Decodable {
  case value(RawValue)
  case object([String: RawJSON])

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .value(.null)
    } else if let string = try? container.decode(String.self) {
      self = .value(.string(string))
    } else if let bool = try? container.decode(Bool.self) {
      self = .value(.bool(bool))
    } else if let number = try? container.decode(Double.self) {
      self = .value(.number(number))
    } else if let array = try? container.decode([RawJSON].self) {
      self = .value(.array(array.map(\.raw)))
    } else {
      self = .object(try container.decode([String: RawJSON].self))
    }
  }

  var raw: RawValue {
    switch self {
    case .value(let value): value
    case .object: .object
    }
  }
}
