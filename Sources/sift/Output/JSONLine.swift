import Sift

/// Writes one JSON object on one line with keys in the order given (JSONSerialization sorts or
/// shuffles them), strings escaped per RFC 8259 and numbers as people write them.
struct JSONLine {
  private var text = "{"
  private var keys = Set<String>()

  /// Adds a key once; a repeated key keeps its first value.
  mutating func add(_ key: String, _ value: JSONValue) {
    guard keys.insert(key).inserted else { return }
    if text.count > 1 { text += "," }
    Self.appendString(key, to: &text)
    text += ":"
    value.append(to: &text)
  }

  var line: String { text + "}" }

  static func appendString(_ string: String, to text: inout String) {
    text += "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": text += "\\\""
      case "\\": text += "\\\\"
      case "\n": text += "\\n"
      case "\r": text += "\\r"
      case "\t": text += "\\t"
      case _
      where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
        || scalar.value == 0x2028 || scalar.value == 0x2029:
        let hex = String(scalar.value, radix: 16, uppercase: true)
        text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: text.unicodeScalars.append(scalar)
      }
    }
    text += "\""
  }
}

enum JSONValue {
  case string(String)
  case strings([String])
  case number(Double)
  case numbers([Int])
  case array([JSONValue])
  case object(JSONLine)
  case bool(Bool)
  case null

  func append(to text: inout String) {
    switch self {
    case .string(let value): JSONLine.appendString(value, to: &text)
    case .bool(let value): text += value ? "true" : "false"
    case .strings(let values):
      text += "["
      for (index, value) in values.enumerated() {
        if index > 0 { text += "," }
        JSONLine.appendString(value, to: &text)
      }
      text += "]"
    case .number(let value):
      text += value.isFinite ? FieldValue.format(value) : "null"
    case .numbers(let values):
      text += "[" + values.map(String.init).joined(separator: ",") + "]"
    case .array(let values):
      text += "["
      for (index, value) in values.enumerated() {
        if index > 0 { text += "," }
        value.append(to: &text)
      }
      text += "]"
    case .object(let object): text += object.line
    case .null: text += "null"
    }
  }
}
