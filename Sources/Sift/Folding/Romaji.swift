/// Hiragana as a Latin keyboard types it, by Hepburn (`toukyou` and `tokyo` for とうきょう,
/// `kitte` for きって). Katakana is read as its hiragana (`Readings`), so トヨタ reads too.
/// Kanji are not read: their readings need a dictionary.
enum Romaji {
  /// The kana `scalar` with a voicing mark (゛, or ゜ when `semi`): か to が, は to ば or ぱ,
  /// う to ゔ; nil when the mark does not apply to it.
  static func voiced(_ scalar: UInt32, semi: Bool) -> UInt32? {
    switch scalar {
    case 0x306F, 0x3072, 0x3075, 0x3078, 0x307B: return scalar + (semi ? 2 : 1)  // は行
    case _ where semi: return nil
    case 0x304B, 0x304D, 0x304F, 0x3051, 0x3053, 0x3055, 0x3057, 0x3059, 0x305B, 0x305D,
      0x305F, 0x3061, 0x3064, 0x3066, 0x3068:
      return scalar + 1
    case 0x3046: return 0x3094
    default: return nil
    }
  }

  /// Whether `scalar` is read here: hiragana, or the long-vowel mark ー.
  @inline(__always)
  static func reads(_ scalar: UInt32) -> Bool {
    (0x3041...0x3096).contains(scalar) || scalar == prolonged
  }

  /// ー: the vowel before it, long.
  static let prolonged: UInt32 = 0x30FC
  /// っ: the next consonant, doubled.
  static let smallTsu: UInt32 = 0x3063

  /// The Hepburn syllables of hiragana ぁ (U+3041) to ゖ (U+3096), in order; small kana
  /// (ぁ ゃ ゎ) as their vowel or glide, which `read` joins to the syllable before.
  private static let syllables: [String] = [
    "a", "a", "i", "i", "u", "u", "e", "e", "o", "o",  // ぁあぃいぅうぇえぉお
    "ka", "ga", "ki", "gi", "ku", "gu", "ke", "ge", "ko", "go",
    "sa", "za", "shi", "ji", "su", "zu", "se", "ze", "so", "zo",
    "ta", "da", "chi", "ji", "tsu", "tsu", "zu", "te", "de", "to", "do",  // た…ど, っ at 0x3063
    "na", "ni", "nu", "ne", "no",
    "ha", "ba", "pa", "hi", "bi", "pi", "fu", "bu", "pu", "he", "be", "pe", "ho", "bo", "po",
    "ma", "mi", "mu", "me", "mo",
    "ya", "ya", "yu", "yu", "yo", "yo",  // ゃやゅゆょよ
    "ra", "ri", "ru", "re", "ro",
    "wa", "wa", "i", "e", "o", "n", "vu", "ka", "ke",  // ゎわゐゑをんゔゕゖ
  ]

  /// Small kana that join the syllable before: the glides ゃ ゅ ょ and the vowels ぁ ぃ ぅ ぇ ぉ
  /// and ゎ.
  private static func isSmall(_ scalar: UInt32) -> Bool {
    [0x3041, 0x3043, 0x3045, 0x3047, 0x3049, 0x3083, 0x3085, 0x3087, 0x308E].contains(scalar)
  }

  /// The reading of a run of hiragana `scalars`: for each scalar the letters it adds, so that a
  /// match maps back to the kana it covers. Hepburn with long vowels as written: とう is "tou",
  /// ー repeats the vowel before it (ラーメン "raamen"); `collapsingLongVowels` gives the
  /// spelling people type (`tokyo`, `ramen`).
  static func read(_ scalars: [UInt32]) -> [[UInt8]] {
    var letters: [[UInt8]] = Array(repeating: [], count: scalars.count)
    var doubling = false
    for (position, scalar) in scalars.enumerated() {
      if scalar == prolonged {
        // The last vowel read.
        let vowel = letters[..<position].reversed().lazy.compactMap(\.last).first {
          Self.isVowel($0)
        }
        if let vowel { letters[position] = [vowel] }
        continue
      }
      if scalar == smallTsu {
        doubling = true
        continue
      }
      var syllable = Array(syllables[Int(scalar - 0x3041)].utf8)
      if isSmall(scalar), position > 0, let before = previousSyllable(letters, position) {
        // きゃ kya, しゃ sha, ちょ cho; ふぁ fa, てぃ ti, うぃ wi: the syllable before loses its
        // vowel (after sh, ch, j a glide's y too), and the small kana adds what is left.
        var base = letters[before]
        if let last = base.last, isVowel(last) { base.removeLast() }
        if base.isEmpty, letters[before] == Array("u".utf8) { base = Array("w".utf8) }
        if syllable.first == UInt8(ascii: "y"),
          base.last == UInt8(ascii: "h") || base.last == UInt8(ascii: "j")
        {
          syllable.removeFirst()
        }
        letters[before] = base
        letters[position] = syllable
        continue
      }
      if doubling {
        doubling = false
        // っ before ch is t (matcha); before any other consonant, that consonant again.
        if syllable.first == UInt8(ascii: "c") {
          syllable.insert(UInt8(ascii: "t"), at: 0)
        } else if let first = syllable.first, !isVowel(first) {
          syllable.insert(first, at: 0)
        }
      }
      letters[position] = syllable
    }
    return letters
  }

  /// The same letters with long vowels as people type them: ou, oo, uu, aa, ii, ee as one
  /// vowel (とうきょう "tokyo", おおさか "osaka"); "ei" stays. Per source scalar, as `read`.
  static func collapsingLongVowels(_ letters: [[UInt8]]) -> [[UInt8]] {
    var result = letters
    var previousVowel: UInt8?
    for index in result.indices {
      var kept: [UInt8] = []
      for letter in result[index] {
        if let before = previousVowel, isVowel(letter),
          letter == before || (before == UInt8(ascii: "o") && letter == UInt8(ascii: "u"))
        {
          previousVowel = nil
          continue
        }
        kept.append(letter)
        previousVowel = isVowel(letter) ? letter : nil
      }
      result[index] = kept
    }
    return result
  }

  private static func previousSyllable(_ letters: [[UInt8]], _ position: Int) -> Int? {
    (0..<position).last { !letters[$0].isEmpty }
  }

  @inline(__always)
  static func isVowel(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: "a") || byte == UInt8(ascii: "i") || byte == UInt8(ascii: "u")
      || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "o")
  }
}
