import Foundation
import SiftTestSupport
import Testing

@testable import SiftServer

/// The search answer's own JSON writer reads back, through Foundation's decoder, as exactly the
/// strings and numbers it was given — controls, quotes, every script, whole and fractional
/// numbers — and sorts keys as the encoder it replaced did.
@Suite("sift serve: JSON written by hand")
struct JSONValueTests {
  /// Read back by Foundation's decoder (JSONSerialization on Linux reads some doubles a unit
  /// in the last place off, and would test the reader rather than the writer).
  static func decoded<T: Decodable>(_ type: T.Type, _ value: JSONValue) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(value.bytes))
  }

  @Test("random strings and numbers read back the same", arguments: [1, 2, 3] as [UInt64])
  func roundTrip(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let alphabet: [Character] =
      ["\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "a", "Z", " "]
      + ["é", "Đ", "ẵ", "ß", "ア", "ك", "ـ", "😀", "\u{200F}", "\u{2028}", "\u{FEFF}", "中"]
    for _ in 0..<500 {
      let text = String(
        (0..<Int.random(in: 0...24, using: &random)).map { _ in
          alphabet.randomElement(using: &random)!
        })
      #expect(try Self.decoded(String.self, .string(text)) == text, "\(text.debugDescription)")
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
  }
}
