/// The one way Sift reads a number written as text: a query's `price:<10`, a CSV cell, the
/// terminal app's form. An optional sign, digits with an optional `.` fraction, an optional
/// exponent: "599", "16.99", "-3", "10.", ".5", "1e+20". Nothing that depends on the locale and
/// no hex, `inf` or `nan`, so a value reads the same everywhere — and everything
/// `FieldValue.format(_:)` writes reads back as the same number. Digits may be Arabic-Indic
/// (٠–٩) or Persian (۰–۹) as well as ASCII, with `٫` as the decimal separator, so "٢٠١٠" and
/// "۱۶٫۹۹" are 2010 and 16.99, as the folding reads them in text.
public enum NumberText {
  /// The number `text` spells, or nil when it is not one (or overflows to infinity). The
  /// caller trims surrounding spaces if it allows them.
  ///
  /// - Complexity: O(*n*) in the length of `text`.
  public static func parse<S: StringProtocol>(_ text: S) -> Double? {
    guard text.utf8.contains(where: { $0 >= 0x80 }) else { return parseASCII(text) }
    var ascii = ""
    for scalar in text.unicodeScalars {
      switch scalar.value {
      case 0x00..<0x80: ascii.unicodeScalars.append(scalar)
      case 0x0660...0x0669:
        ascii.unicodeScalars.append(Unicode.Scalar(UInt8(scalar.value - 0x0630)))
      case 0x06F0...0x06F9:
        ascii.unicodeScalars.append(Unicode.Scalar(UInt8(scalar.value - 0x06C0)))
      case 0x066B: ascii.append(".")
      default: return nil
      }
    }
    return parseASCII(ascii)
  }

  private static func parseASCII<S: StringProtocol>(_ text: S) -> Double? {
    var mantissaDigits = 0
    var exponentDigits = 0
    var sawDot = false
    var sawExponent = false
    var previous: Character?
    for character in text {
      switch character {
      case "0"..."9":
        if sawExponent { exponentDigits += 1 } else { mantissaDigits += 1 }
      case "." where !sawDot && !sawExponent:
        sawDot = true
      case "e", "E":
        guard !sawExponent, mantissaDigits > 0 else { return nil }
        sawExponent = true
      case "+", "-":
        // A sign opens the number or its exponent, nowhere else.
        guard previous == nil || previous == "e" || previous == "E" else { return nil }
      default:
        return nil
      }
      previous = character
    }
    guard mantissaDigits > 0, !sawExponent || exponentDigits > 0 else { return nil }
    // Swift's parser takes this grammar except a leading "+" and a bare trailing ".".
    var normalized = Substring(text)
    if normalized.hasPrefix("+") { normalized = normalized.dropFirst() }
    if let dot = normalized.firstIndex(of: "."),
      normalized.index(after: dot) == normalized.endIndex
        || "eE".contains(normalized[normalized.index(after: dot)])
    {
      normalized = normalized[..<dot] + normalized[normalized.index(after: dot)...]
    }
    guard let value = Double(normalized), value.isFinite else { return nil }
    return value
  }
}
