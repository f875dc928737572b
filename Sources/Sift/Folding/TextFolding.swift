/// Locale-independent folding for search: the same function is applied to data and to queries,
/// so "da nang" finds "Đà Nẵng", "STRASSE" finds "Straße" and "서우" finds "서울".
///
/// Folding is a per-scalar map (docs/command-line.md, "What folds"): Unicode NFKD, nonspacing and enclosing marks and
/// invisible format characters dropped, lowercase, then letters without decompositions
/// (đ→d, ł→l, ø→o, æ→ae, œ→oe, ħ→h, ı→i, þ→th, ß→ss and their capitals). Full-width forms become
/// ASCII, Hangul syllables become their jamo, and control characters become spaces. Scripts
/// written two ways fold together: katakana to hiragana ("ヨコハマ" → "よこはま"), the Arabic and
/// Persian keyboards' letters (ي ى → ی, ك → ک), teh marbuta to heh, alef wasla to alef, tatweel
/// dropped, and Arabic-Indic and Persian digits to ASCII digits ("٢٠١٠" → "2010"). Apostrophes
/// (' ’ ʼ and the letters written like them, ʻ ʿ ʾ) are dropped: "cote divoire" finds
/// "Côte d'Ivoire", "oahu" finds "Oʻahu".
/// ASCII takes a byte fast path; everything else is one table lookup.
public enum TextFolding {
  /// The folded form of `text`.
  ///
  /// - Complexity: O(*n*) in the UTF-8 length of `text`.
  public static func fold(_ text: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    append(text, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `text` as a phrase is known — a synonym's expression, a pinned query, a recorded search:
  /// folded, its words joined by one space ("New  York " → "new york").
  public static func phraseKey(_ text: String) -> String {
    fold(text).split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }

  /// The initial-consonant (choseong) key of `text`: each Hangul syllable replaced by its leading
  /// consonant, everything else folded as usual, so "서울 특별시" gives the key of "ㅅㅇ ㅌㅂㅅ".
  /// `nil` when `text` has no Hangul syllable.
  public static func initialConsonants(of text: String) -> String? {
    var bytes: [UInt8] = []
    guard appendInitialConsonants(of: text, to: &bytes) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// True when `text` is made only of Hangul compatibility consonants (ㄱ…ㅎ), the way people
  /// type the initials of a Korean word.
  public static func isInitialConsonantQuery(_ text: String) -> Bool {
    !text.isEmpty && text.unicodeScalars.allSatisfy { (0x3131...0x314E).contains($0.value) }
  }

  /// Appends the folded UTF-8 of `text` to `output`.
  package static func append(_ text: String, to output: inout [UInt8]) {
    var text = text
    text.withUTF8 { utf8 in
      // Most names are ASCII: copy them in one go and fold in place.
      if !utf8.contains(where: { $0 >= 0x80 || $0 == apostrophe }) {
        let start = output.count
        output.append(contentsOf: utf8)
        output.withUnsafeMutableBufferPointer { all in
          for index in start..<all.count { all[index] = foldASCII(all[index]) }
        }
        return
      }
      forEachFoldedScalar(in: utf8, initialsOnly: false) { bytes, _ in
        if bytes.count == 1 { output.append(bytes[0]) } else { output.append(contentsOf: bytes) }
      }
    }
  }

  /// Appends the choseong key of `text` to `output`; returns false (appending nothing) when
  /// the text has no Hangul syllable.
  @discardableResult
  static func appendInitialConsonants(of text: String, to output: inout [UInt8]) -> Bool {
    var text = text
    return text.withUTF8 { utf8 in
      guard containsHangulSyllable(utf8) else { return false }
      forEachFoldedScalar(in: utf8, initialsOnly: true) { bytes, _ in
        output.append(contentsOf: bytes)
      }
      return true
    }
  }

  /// The folded UTF-8 of `text` with, for each folded byte, the UTF-8 offset in `text` of the
  /// scalar it came from. Highlighting uses it to map matches back onto the original text.
  package static func foldWithOrigins(
    _ text: String, initialsOnly: Bool = false
  ) -> (bytes: [UInt8], origins: [Int]) {
    var text = text
    var bytes: [UInt8] = []
    var origins: [Int] = []
    text.withUTF8 { utf8 in
      forEachFoldedScalar(in: utf8, initialsOnly: initialsOnly) { folded, origin in
        bytes.append(contentsOf: folded)
        origins.append(contentsOf: repeatElement(origin, count: folded.count))
      }
    }
    return (bytes, origins)
  }

  // MARK: - The scalar loop

  static let hangulBase: UInt32 = 0xAC00
  static let hangulLast: UInt32 = 0xD7A3

  /// Decodes `utf8` (valid UTF-8) scalar by scalar and calls `emit` with each scalar's folded
  /// bytes and the offset where the scalar starts.
  @inline(__always)
  static func forEachFoldedScalar(
    in utf8: UnsafeBufferPointer<UInt8>, initialsOnly: Bool,
    _ emit: (UnsafeBufferPointer<UInt8>, Int) -> Void
  ) {
    let table = FoldingTable.shared
    var scratch: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
      0, 0, 0, 0, 0, 0, 0, 0, 0
    )
    withUnsafeMutableBytes(of: &scratch) { raw in
      let out = raw.bindMemory(to: UInt8.self)
      var i = 0
      let count = utf8.count
      while i < count {
        let start = i
        let lead = utf8[i]
        if lead < 0x80 {
          i += 1
          if lead == apostrophe { continue }
          out[0] = foldASCII(lead)
          emit(UnsafeBufferPointer(rebasing: out[0..<1]), start)
          continue
        }
        let (scalar, length) = decode(utf8, at: i, lead: lead)
        i += length
        if scalar >= hangulBase && scalar <= hangulLast {
          let n = encodeHangul(scalar, initialsOnly: initialsOnly, into: out)
          emit(UnsafeBufferPointer(rebasing: out[0..<n]), start)
          continue
        }
        let replaced = table.withReplacement(of: scalar) { emit($0, start) }
        if !replaced {
          emit(UnsafeBufferPointer(rebasing: utf8[start..<i]), start)
        }
      }
    }
  }

  /// The one ASCII byte folding drops (the table drops the other apostrophes).
  static let apostrophe = UInt8(ascii: "'")

  /// What folding does beyond its table, for the fingerprint an index archive is stamped
  /// with: change it with the rules here, so archives folded the old way are built again.
  static let rulesRevision = "ascii: lowercase, controls to space, apostrophe dropped"

  /// Each ASCII byte folded, but for `apostrophe`, which is dropped.
  @inline(__always)
  static func foldASCII(_ byte: UInt8) -> UInt8 {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte | 0x20
    case 0..<0x20, 0x7F: UInt8(ascii: " ")
    default: byte
    }
  }

  @inline(__always)
  private static func decode(
    _ utf8: UnsafeBufferPointer<UInt8>, at i: Int, lead: UInt8
  ) -> (UInt32, Int) {
    if lead < 0xE0 {
      return (UInt32(lead & 0x1F) << 6 | UInt32(utf8[i + 1] & 0x3F), 2)
    } else if lead < 0xF0 {
      return (
        UInt32(lead & 0x0F) << 12 | UInt32(utf8[i + 1] & 0x3F) << 6 | UInt32(utf8[i + 2] & 0x3F), 3
      )
    } else {
      return (
        UInt32(lead & 0x07) << 18 | UInt32(utf8[i + 1] & 0x3F) << 12
          | UInt32(utf8[i + 2] & 0x3F) << 6 | UInt32(utf8[i + 3] & 0x3F), 4
      )
    }
  }

  /// Writes the conjoining jamo of a Hangul syllable (only the leading consonant when
  /// `initialsOnly`) as UTF-8; returns the byte count.
  @inline(__always)
  static func encodeHangul(
    _ scalar: UInt32, initialsOnly: Bool, into out: UnsafeMutableBufferPointer<UInt8>
  ) -> Int {
    let index = scalar - hangulBase
    let lead = 0x1100 + index / 588
    var n = encode3(lead, into: out, at: 0)
    if initialsOnly { return n }
    n = encode3(0x1161 + (index % 588) / 28, into: out, at: n)
    let trail = index % 28
    if trail != 0 { n = encode3(0x11A7 + trail, into: out, at: n) }
    return n
  }

  @inline(__always)
  private static func encode3(
    _ scalar: UInt32, into out: UnsafeMutableBufferPointer<UInt8>, at n: Int
  ) -> Int {
    out[n] = UInt8(0xE0 | (scalar >> 12))
    out[n + 1] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
    out[n + 2] = UInt8(0x80 | (scalar & 0x3F))
    return n + 3
  }

  /// Hangul syllables are U+AC00…U+D7A3: UTF-8 lead byte EA…ED.
  private static func containsHangulSyllable(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    while i < utf8.count {
      let lead = utf8[i]
      if lead >= 0xEA && lead <= 0xED {
        let (scalar, _) = decode(utf8, at: i, lead: lead)
        if scalar >= hangulBase && scalar <= hangulLast { return true }
      }
      i += lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
    }
    return false
  }
}
