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

  /// Checks the grammar a byte at a time (a `Character` walk cost an import of the cities as
  /// CSV a tenth of its time), then lets Swift's parser read the value.
  private static func parseASCII<S: StringProtocol>(_ text: S) -> Double? {
    let (plus, minus, dot) = (UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."))
    var mantissaDigits = 0
    var exponentDigits = 0
    var sawDot = false
    var sawExponent = false
    var previous: UInt8?
    // Swift's parser takes this grammar except a leading "+" and a "." with no digit after it.
    var needsNormalizing = false
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        if sawExponent { exponentDigits += 1 } else { mantissaDigits += 1 }
      case dot where !sawDot && !sawExponent:
        sawDot = true
      case UInt8(ascii: "e"), UInt8(ascii: "E"):
        guard !sawExponent, mantissaDigits > 0 else { return nil }
        if previous == dot { needsNormalizing = true }
        sawExponent = true
      case plus, minus:
        // A sign opens the number or its exponent, nowhere else.
        guard previous == nil || previous == UInt8(ascii: "e") || previous == UInt8(ascii: "E")
        else { return nil }
        if previous == nil, byte == plus { needsNormalizing = true }
      default:
        return nil
      }
      previous = byte
    }
    guard mantissaDigits > 0, !sawExponent || exponentDigits > 0 else { return nil }
    if previous == dot { needsNormalizing = true }
    let value: Double?
    if needsNormalizing {
      var normalized = Array(text.utf8)
      if normalized.first == plus { normalized.removeFirst() }
      if let at = normalized.firstIndex(of: dot),
        at + 1 == normalized.count || normalized[at + 1] | 0x20 == UInt8(ascii: "e")
      {
        normalized.remove(at: at)
      }
      value = Double(String(decoding: normalized, as: UTF8.self))
    } else {
      value = Double(text)
    }
    guard let value, value.isFinite else { return nil }
    return value
  }
}
