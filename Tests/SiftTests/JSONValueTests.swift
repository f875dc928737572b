import Foundation
import Sift
import SiftTestSupport
import Testing

/// The JSON writer of `sift search --json` and `sift serve` reads back, through Foundation's
/// decoder, as exactly the strings and numbers it was given — controls, quotes, every script,
/// whole and fractional numbers — and escapes what could drive a terminal.
@Suite("JSON written by hand", .tags(.unit))
struct JSONValueTests {
  /// Read back by Foundation's decoder (JSONSerialization on Linux reads some doubles a unit
  /// in the last place off, and would test the reader rather than the writer).
  static func decoded<T: Decodable>(_ type: T.Type, _ value: JSONValue) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(value.bytes))
  }

  /// The escaping, scalar by scalar: what the byte-wise writer must give.
  static func reference(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _
      where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
        || scalar.value == 0x2028 || scalar.value == 0x2029:
        let hex = String(scalar.value, radix: 16, uppercase: true)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  @Test("random strings and numbers read back the same", arguments: [1, 2, 3] as [UInt64])
  func roundTrip(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let alphabet: [Character] =
      ["\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "a", "Z", " "]
      + ["é", "Đ", "ẵ", "ß", "ア", "ك", "ـ", "😀", "\u{200F}", "\u{2028}", "\u{FEFF}", "中"]
      + ["\u{85}", "\u{9B}", "\u{A0}", "\u{2029}", "\u{2027}", "\u{1B}", "\u{C2}"]
    for _ in 0..<500 {
      let text = String(
        (0..<Int.random(in: 0...24, using: &random)).map { _ in
          alphabet.randomElement(using: &random)!
        })
      #expect(try Self.decoded(String.self, .string(text)) == text, "\(text.debugDescription)")
      #expect(JSONValue.string(text).text == Self.reference(text), "\(text.debugDescription)")
      let number: Double =
        Bool.random(using: &random)
        ? Double(Int.random(in: -10_000_000...10_000_000, using: &random))
        : Double.random(in: -1e9...1e9, using: &random)
      #expect(try Self.decoded(Double.self, .number(number)) == number, "\(number)")
    }
  }

  @Test("whole numbers without a fraction, keys sorted, nothing but JSON")
  func shape() throws {
    let value = JSONValue.object(sorting: [
      ("year", .number(2010)), ("price", .number(24.99)), ("id", .string("a/b")),
      ("none", .number(.nan)), ("list", .strings(["x"])), ("flag", .bool(true)),
    ])
    #expect(
      String(decoding: value.bytes, as: UTF8.self)
        == #"{"flag":true,"id":"a/b","list":["x"],"none":null,"price":24.99,"year":2010}"#)
    // Beyond RFC 8259: DEL, C1 controls and the line separators are escaped too, as are ESC
    // and BEL, so a line printed to a terminal cannot drive it.
    #expect(
      JSONValue.string("\u{1B}[2J\u{7}\u{7F}\u{9B}\u{2028}\u{2029}é").text
        == #""\u001B[2J\u0007\u007F\u009B\u2028\u2029é""#)
  }
}
