import Foundation

/// JSON read straight from bytes into a `JSONValue`: what a copy reads of a server's change feed
/// (tens of megabytes for a first copy). Foundation's `JSONDecoder` took 8.4 s of the 235k
/// cities' 63 MB on Linux; this reads them in a fraction of that. Arrays of strings only come
/// back as `.strings`; numbers as `Double`; objects keep their members' order.
extension JSONValue {
  /// Where reading stopped and why.
  package struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
    package var offset: Int
    package var reason: String
    package var description: String { "at byte \(offset): \(reason)" }
  }

  /// The one JSON value `data` holds (white space around it allowed).
  package static func parse(_ data: Data) throws(ParseError) -> JSONValue {
    try data.withUnsafeBytes { raw in Result { () throws(ParseError) in try parse(raw) } }.get()
  }

  /// The one JSON value `bytes` hold (white space around it allowed).
  package static func parse(_ bytes: UnsafeRawBufferPointer) throws(ParseError) -> JSONValue {
    var parser = JSONParser(bytes: bytes)
    let value = try parser.value(depth: 0)
    parser.skipSpace()
    guard parser.index == bytes.count else { throw parser.error("more after the value") }
    return value
  }

  /// The member named `key` of an object; nil for another value or a missing member.
  package subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.0 == key }?.1
  }
}

/// A reader of one buffer, front to back.
private struct JSONParser {
  let bytes: UnsafeRawBufferPointer
  var index = 0

  /// Nesting deeper than this is refused rather than read with the stack.
  static let maximumDepth = 128

  func error(_ reason: String) -> JSONValue.ParseError {
    JSONValue.ParseError(offset: index, reason: reason)
  }

  mutating func skipSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  mutating func value(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
    guard depth < Self.maximumDepth else { throw error("nested too deeply") }
    skipSpace()
    guard index < bytes.count else { throw error("the value is missing") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try object(depth: depth)
    case UInt8(ascii: "["): return try array(depth: depth)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): try literal("true"); return .bool(true)
    case UInt8(ascii: "f"): try literal("false"); return .bool(false)
    case UInt8(ascii: "n"): try literal("null"); return .null
    default: return .number(try number())
    }
  }

  mutating func literal(_ word: StaticString) throws(JSONValue.ParseError) {
    let count = word.utf8CodeUnitCount
    guard index + count <= bytes.count,
      memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0
    else { throw error("expected \(word)") }
    index += count
  }

  mutating func object(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
    index += 1
    var members: [(String, JSONValue)] = []
    skipSpace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipSpace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw error("expected a member's name")
      }
      let key = try string()
      skipSpace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
        throw error("expected : after a member's name")
      }
      index += 1
      members.append((key, try value(depth: depth + 1)))
      skipSpace()
      guard index < bytes.count else { throw error("the object is not closed") }
      switch bytes[index] {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        return .object(members)
      default: throw error("expected , or } in an object")
      }
    }
  }

  mutating func array(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
    index += 1
    var values: [JSONValue] = []
    skipSpace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(values)
    }
    while true {
      values.append(try value(depth: depth + 1))
      skipSpace()
      guard index < bytes.count else { throw error("the array is not closed") }
      switch bytes[index] {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        var strings: [String] = []
        strings.reserveCapacity(values.count)
        for value in values {
          guard case .string(let text) = value else { return .array(values) }
          strings.append(text)
        }
        return .strings(strings)
      default: throw error("expected , or ] in an array")
      }
    }
  }

  /// A string; `index` is at its opening quote.
  mutating func string() throws(JSONValue.ParseError) -> String {
    index += 1
    let start = index
    // Most strings hold no escape: their bytes are the string's.
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        let text = String(
          decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        index += 1
        return text
      }
      if byte == UInt8(ascii: "\\") { break }
      if byte < 0x20 { throw error("a control character inside a string") }
      index += 1
    }
    var output = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        return String(decoding: output, as: UTF8.self)
      case UInt8(ascii: "\\"):
        index += 1
        guard index < bytes.count else { break }
        let escaped = bytes[index]
        index += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escaped)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
          // A surrogate stands only in a pair: alone it is no character, and reading it as
          // U+FFFD would change the text without a word.
          let escapeStart = index - 2
          var scalar = try hex4()
          if (0xD800..<0xDC00).contains(scalar), index + 6 <= bytes.count,
            bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
          {
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else {
              index = escapeStart
              throw error(loneSurrogate(scalar))
            }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          } else if (0xD800..<0xE000).contains(scalar) {
            index = escapeStart
            throw error(loneSurrogate(scalar))
          }
          output.append(contentsOf: utf8(scalar))
        default: throw error("an unknown escape in a string")
        }
      default:
        if byte < 0x20 { throw error("a control character inside a string") }
        output.append(byte)
        index += 1
      }
    }
    throw error("the string is not closed")
  }

  mutating func hex4() throws(JSONValue.ParseError) -> UInt32 {
    guard index + 4 <= bytes.count else { throw error("a \\u escape is cut short") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw error("a \\u escape holds a letter that is not hex")
      }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  func loneSurrogate(_ scalar: UInt32) -> String {
    let hex = String(scalar, radix: 16, uppercase: true)
    return "\\u\(hex) is half of a surrogate pair, alone: not a character"
  }

  /// `scalar` in UTF-8 (never a surrogate: `string()` refuses them).
  func utf8(_ scalar: UInt32) -> [UInt8] {
    Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
  }

  mutating func number() throws(JSONValue.ParseError) -> Double {
    let start = index
    let negative = bytes[index] == UInt8(ascii: "-")
    if negative { index += 1 }
    var integer: Int64 = 0
    var digits = 0
    while index < bytes.count, case let byte = bytes[index],
      byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    {
      if digits < 15 { integer = integer * 10 + Int64(byte - UInt8(ascii: "0")) }
      digits += 1
      index += 1
    }
    guard digits > 0 else { throw error("expected a value") }
    // A whole number of up to 15 digits is exact in a Double: no text to read again.
    var whole = true
    while index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"),
        UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-"):
        whole = false
        index += 1
        continue
      default:
        break
      }
      break
    }
    if whole && digits <= 15 { return Double(negative ? -integer : integer) }
    let text = String(
      decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    guard let number = Double(text) else {
      index = start
      throw error("\(text.prefix(40)) is not a number")
    }
    // JSON has no infinity: a number past a Double's range would come back as null.
    guard number.isFinite else {
      index = start
      throw error("\(text.prefix(40)) is too large a number")
    }
    return number
  }
}
