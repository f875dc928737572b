import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// The JSON reader a copy reads the change feed with (`JSONValue.parse`): what the writer wrote
/// reads back the same, and so does what Foundation's encoder writes (other escapes, other
/// number forms); what is not JSON is refused with where it stopped.
@Suite("JSON read by hand", .tags(.unit))
struct JSONParsingTests {
  /// A random value: strings of every kind of character, whole and fractional numbers, lists
  /// of strings, nested objects and arrays, up to `depth`.
  static func value(_ random: inout SplitMix64, depth: Int) -> JSONValue {
    let alphabet: [Character] =
      ["\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "a", "Z", " ", "é", "Đ"]
      + ["ẵ", "ア", "ك", "😀", "\u{200F}", "\u{2028}", "\u{FEFF}", "\u{85}", "\u{9B}", "中"]
    func text() -> String {
      String(
        (0..<Int.random(in: 0...12, using: &random)).map { _ in
          alphabet.randomElement(using: &random)!
        })
    }
    switch Int.random(in: 0..<(depth > 0 ? 9 : 6), using: &random) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &random))
    case 2: return .number(Double(Int.random(in: -1_000_000_000...1_000_000_000, using: &random)))
    case 3: return .number(Double.random(in: -1e12...1e12, using: &random))
    case 4: return .string(text())
    case 5: return .strings((0..<Int.random(in: 1...4, using: &random)).map { _ in text() })
    case 6, 7:
      return .object(
        (0..<Int.random(in: 0...4, using: &random)).map { index in
          ("\(text())\(index)", value(&random, depth: depth - 1))
        })
    default:
      // Not all strings, or it reads back as `.strings`.
      return .array(
        [.number(1)]
          + (0..<Int.random(in: 0...3, using: &random)).map { _ in
            value(&random, depth: depth - 1)
          })
    }
  }

  @Test("what the writer writes reads back the same", arguments: [1, 2, 3] as [UInt64])
  func roundTrip(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    for _ in 0..<400 {
      let written = Self.value(&random, depth: 3)
      let read = try JSONValue.parse(Data(written.bytes))
      #expect(read.bytes == written.bytes, "\(written.text)")
    }
  }

  @Test("what Foundation's encoder writes reads as Foundation's decoder reads it")
  func foundationsForms() throws {
    let item = Item(
      id: "x/1",
      fields: [
        "title": .text("Đà Nẵng \"quoted\" \u{1} 😀"), "names": .texts(["a", "b\\c"]),
        "population": .number(1_234_567), "ratio": .number(0.1), "tiny": .number(1e-7),
        "big": .number(1.5e300), "empty": .texts([]),
      ])
    let data = try JSONEncoder().encode(item)
    #expect(try Item(json: try JSONValue.parse(data)) == item)
    let escapes = try JSONValue.parse(Data(#"["\u00e9\ud83d\ude00\/\b\f", -0.5e2, true]"#.utf8))
    #expect(
      escapes.bytes == JSONValue.array([.string("é😀/\u{8}\u{C}"), .number(-50), .bool(true)]).bytes)
  }

  @Test(
    "what is not JSON is refused, saying where",
    arguments: [
      ("", "at byte 0: the value is missing"),
      ("{\"a\" 1}", "at byte 5: expected : after a member's name"),
      ("[1, 2", "at byte 5: the array is not closed"),
      ("\"abc", "at byte 4: the string is not closed"),
      ("\"a\\qb\"", "at byte 4: an unknown escape in a string"),
      ("[1] x", "at byte 4: more after the value"),
      ("tru", "at byte 0: expected true"),
      ("-", "at byte 1: expected a value"),
      (String(repeating: "[", count: 200), "at byte 128: nested too deeply"),
      // Neither would come back as it was sent: U+FFFD, or null for infinity.
      (#"["a\ud800"]"#, #"at byte 3: \uD800 is half of a surrogate pair, alone: not a character"#),
      (#""\udc00x""#, #"at byte 1: \uDC00 is half of a surrogate pair, alone: not a character"#),
      (
        #""\ud83d\u0041""#,
        #"at byte 1: \uD83D is half of a surrogate pair, alone: not a character"#
      ),
      ("[1e400]", "at byte 1: 1e400 is too large a number"),
      ("-1e309", "at byte 0: -1e309 is too large a number"),
    ])
  func refused(text: String, message: String) {
    #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(Data(text.utf8)) }
    do {
      _ = try JSONValue.parse(Data(text.utf8))
    } catch {
      #expect(error.description == message)
    }
  }

  @Test("a feed page written by the server reads back equal, by this reader and by Codable")
  func feedPages() throws {
    var random = SplitMix64(seed: 51)
    let items = (0..<50).map { index in
      PositionedItem(
        position: Int64(index * 3),
        item: Item(
          id: ItemID("\(index)"),
          fields: [
            "title": .text("Item \(index) \u{2028}"), "n": .number(Double(index) / 4),
            "tags": .texts(["a\(index)"]),
          ]))
    }
    let schema = try SeedCatalog.products.load().schema
    let snapshot = CatalogSnapshotPage(
      catalog: "shop", identity: "abc", version: 99, schema: schema, items: items, next: 147)
    let bytes = Data(snapshot.jsonBytes)
    #expect(try CatalogSnapshotPage(json: try JSONValue.parse(bytes)) == snapshot)
    #expect(try JSONDecoder().decode(CatalogSnapshotPage.self, from: bytes) == snapshot)
    var changes: [CatalogChange] = []
    for (index, item) in items.enumerated() {
      switch Int.random(in: 0..<3, using: &random) {
      case 0: changes.append(.put(item.item, at: item.position, version: Int64(index)))
      case 1: changes.append(.delete(item.item.id, version: Int64(index)))
      default:
        changes.append(
          .synonyms(Synonyms([Synonyms.Entry(group: ["a", "b \(index)"])]), version: Int64(index)))
      }
    }
    let page = ChangeFeedPage(
      catalog: "shop", identity: "abc", version: 60, changes: changes, next: nil)
    let pageBytes = Data(page.jsonBytes)
    #expect(try ChangeFeedPage(json: try JSONValue.parse(pageBytes)) == page)
    #expect(try JSONDecoder().decode(ChangeFeedPage.self, from: pageBytes) == page)
  }
}
