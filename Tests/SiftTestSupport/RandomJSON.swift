import Foundation
import Sift

/// Random JSON values of every kind a record may hold in a field no flag names, and one
/// canonical text for comparing them: what the tests of "kept as it came" send through every
/// door and compare on the way out.
package enum RandomJSON {
  /// Texts that a door could take for something else: a boolean's or a number's look, a list's,
  /// an object's, a quote first, nothing at all, a joiner after a quote, other scripts.
  static let trickyTexts = [
    "true", "false", "null", "12", "0042", "-3.5", "1e3", "", " ", "[draft]", "[\"x\"]", "{",
    "{\"a\":1}", "\"quoted\"", "\"\u{200C}joined", "Đà Nẵng", "서울", "line\nbreak", "tab\there",
    "comma, and \"quote\"",
  ]

  /// A random value; `depth` bounds how deeply lists and objects nest.
  package static func value(depth: Int = 2, _ random: inout SplitMix64) -> JSONValue {
    let kinds = depth > 0 ? 9 : 6
    switch Int.random(in: 0..<kinds, using: &random) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &random))
    case 2: return .number(Double(Int.random(in: -1_000_000...1_000_000, using: &random)))
    case 3: return .number(Double(Int.random(in: -99_999...99_999, using: &random)) / 100)
    case 4: return .string(trickyTexts.randomElement(using: &random)!)
    case 5: return .string("w\(Int.random(in: 0...999, using: &random))")
    case 6:
      return .strings(
        (0..<Int.random(in: 0...3, using: &random)).map { _ in
          trickyTexts.randomElement(using: &random)!
        })
    case 7:
      return .array(
        (0..<Int.random(in: 1...3, using: &random)).map { _ in
          value(depth: depth - 1, &random)
        })
    default:
      var names: Set<String> = []
      var members: [(String, JSONValue)] = []
      for _ in 0..<Int.random(in: 0...3, using: &random) {
        let name = ["w", "h", "a b", "ü", "id", "null"].randomElement(using: &random)!
        guard names.insert(name).inserted else { continue }
        members.append((name, value(depth: depth - 1, &random)))
      }
      return .object(members)
    }
  }

  /// `value` with every object's members in name order and lists of strings as lists: two
  /// values are the same JSON exactly when their canonical texts are equal (a boolean is never
  /// a number, `null` never a missing member).
  package static func canonical(_ value: JSONValue) -> String {
    sorted(value).text
  }

  /// The canonical text of the JSON in `text`; nil when it does not parse.
  package static func canonical(text: String) -> String? {
    (try? JSONValue.parse(Data(text.utf8))).map(canonical)
  }

  private static func sorted(_ value: JSONValue) -> JSONValue {
    switch value {
    case .strings(let texts): .array(texts.map(JSONValue.string))
    case .array(let values): .array(values.map(sorted))
    case .object(let members): .object(sorting: members.map { ($0.0, sorted($0.1)) })
    default: value
    }
  }
}

/// An item's id as a JSON answer gives it, as text: a string as it is, a whole number (an id
/// that came as a number, `"id": 7`) as its digits.
package func idText(_ value: Any?) -> String? {
  switch value {
  case let text as String: return text
  case let number as Int: return String(number)
  case let number as Double where number == number.rounded(): return String(Int64(number))
  default: return nil
  }
}
