/// A JSON value written straight to bytes: the search answer's hot path. Foundation's
/// `JSONEncoder` took 45% of a search answered from memory (50 cities with their alternates);
/// this writes the same JSON — keys sorted, slashes as they are — in a small part of that.
enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  /// Keys are written in the order given: `object(sorting:)` sorts them.
  case object([(String, JSONValue)])

  static func object(sorting members: [(String, JSONValue)]) -> JSONValue {
    .object(members.sorted { $0.0 < $1.0 })
  }

  static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }

  static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

  static func == (left: JSONValue, right: JSONValue) -> Bool {
    left.bytes == right.bytes
  }

  var bytes: [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(256)
    write(to: &output)
    return output
  }

  func write(to output: inout [UInt8]) {
    switch self {
    case .null: output.append(contentsOf: "null".utf8)
    case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
    case .number(let value): Self.write(number: value, to: &output)
    case .string(let value): Self.write(string: value, to: &output)
    case .array(let values):
      output.append(UInt8(ascii: "["))
      for (index, value) in values.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        value.write(to: &output)
      }
      output.append(UInt8(ascii: "]"))
    case .object(let members):
      output.append(UInt8(ascii: "{"))
      for (index, (key, value)) in members.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        Self.write(string: key, to: &output)
        output.append(UInt8(ascii: ":"))
        value.write(to: &output)
      }
      output.append(UInt8(ascii: "}"))
    }
  }

  /// Whole numbers without a fraction (2010, not 2010.0), others in Swift's shortest form that
  /// reads back the same; JSON has no NaN or infinity, so those are null.
  static func write(number value: Double, to output: inout [UInt8]) {
    if !value.isFinite {
      output.append(contentsOf: "null".utf8)
    } else if value == value.rounded(), abs(value) < 1e15 {
      output.append(contentsOf: String(Int64(value)).utf8)
    } else {
      output.append(contentsOf: "\(value)".utf8)
    }
  }

  /// A string with `"`, `\` and the C0 controls escaped (RFC 8259); everything else as UTF-8.
  static func write(string value: String, to output: inout [UInt8]) {
    output.append(UInt8(ascii: "\""))
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
      case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
      case 0x0A: output.append(contentsOf: #"\n"#.utf8)
      case 0x0D: output.append(contentsOf: #"\r"#.utf8)
      case 0x09: output.append(contentsOf: #"\t"#.utf8)
      case 0x08: output.append(contentsOf: #"\b"#.utf8)
      case 0x0C: output.append(contentsOf: #"\f"#.utf8)
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        output.append(contentsOf: #"\u00"#.utf8)
        output.append(hex[Int(byte >> 4)])
        output.append(hex[Int(byte & 0xF)])
      default: output.append(byte)
      }
    }
    output.append(UInt8(ascii: "\""))
  }
}
