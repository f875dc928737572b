extension String {
  /// The text with every control character (C0, DEL, C1) shown as an inert visible symbol, so
  /// data printed to a terminal can never move the cursor, change colours or retitle the
  /// window: ESC becomes "␛", other C0 characters their Control Pictures (U+2400…), DEL "␡" and
  /// C1 characters "�". The terminal app and `sift search` print item text through it.
  public var inert: String {
    var result = String.UnicodeScalarView()
    for scalar in unicodeScalars {
      switch scalar.value {
      case 0x00..<0x20:
        result.append(Unicode.Scalar(0x2400 + scalar.value) ?? "�")
      case 0x7F:
        result.append("\u{2421}")
      case 0x80..<0xA0:
        result.append("\u{FFFD}")
      default:
        result.append(scalar)
      }
    }
    return String(result)
  }
}
