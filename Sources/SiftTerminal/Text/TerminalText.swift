/// Text made safe and measurable for a terminal cell grid.
public enum TerminalText {
  /// `text` made inert: see `String.inert`.
  public static func inert(_ text: String) -> String { text.inert }

  /// The number of terminal columns `text` takes: 2 for East Asian wide and emoji characters,
  /// 0 for combining marks and invisible characters, 1 otherwise.
  public static func displayWidth(_ text: String) -> Int {
    text.reduce(0) { $0 + displayWidth(of: $1) }
  }

  /// The columns one grapheme cluster takes: 2 for an emoji, else the sum of its scalars'
  /// widths (a half-width kana and its voicing mark are one cluster but two columns).
  public static func displayWidth(of character: Character) -> Int {
    let scalars = character.unicodeScalars
    if scalars.contains(where: { $0.properties.isEmojiPresentation || $0.value == 0xFE0F }) {
      return 2
    }
    return scalars.reduce(0) { $0 + width(of: $1) }
  }

  private static func width(of scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
    // Hangul medial vowels and final consonants join the leading consonant's cell.
    if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return 0 }
    if isWide(value) { return 2 }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: return scalar.properties.isDefaultIgnorableCodePoint ? 0 : 1
    }
  }

  /// East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth W and F).
  private static func isWide(_ v: UInt32) -> Bool {
    switch v {
    case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
      0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
      0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
      0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
      true
    default:
      false
    }
  }
}
