import Foundation
import SiftTestSupport
import Testing

@testable import Sift

@Suite("Text folding", .tags(.unit))
struct FoldingTests {
  /// (language, original, folded)
  static let cases: [(String, String, String)] = [
    ("Vietnamese", "Đà Nẵng", "da nang"),
    ("French", "Côte d'Ivoire", "cote divoire"),
    ("French", "Côte d’Ivoire", "cote divoire"),
    ("Hawaiian", "Oʻahu", "oahu"),
    ("Arabic transliterated", "Ṣanʿāʾ", "sana"),
    ("English", "Jardine's Lookout", "jardines lookout"),
    ("Full-width", "Ｏ＇Ｂｒｉｅｎ", "obrien"),
    ("Vietnamese", "Thành phố Hồ Chí Minh", "thanh pho ho chi minh"),
    ("Vietnamese", "HÀ NỘI", "ha noi"),
    ("Spanish", "Año Niño", "ano nino"),
    ("Spanish", "MÁLAGA", "malaga"),
    ("German", "Straße", "strasse"),
    ("German", "GROẞE", "grosse"),
    ("German", "Müller", "muller"),
    ("Polish", "Łódź", "lodz"),
    ("Polish", "Gdańsk", "gdansk"),
    ("Polish", "ŻÓŁW", "zolw"),
    ("Nordic", "Ærøskøbing", "aeroskobing"),
    ("Nordic", "Tromsø", "tromso"),
    ("Nordic", "Þórshöfn", "thorshofn"),
    ("Nordic", "Ísafjörður", "isafjordur"),
    ("French", "Œuvre", "oeuvre"),
    ("Maltese", "Ħamrun", "hamrun"),
    ("Turkish", "İstanbul", "istanbul"),
    ("Turkish", "Diyarbakır", "diyarbakir"),
    ("Turkish", "ISPARTA", "isparta"),
    ("Cyrillic", "Москва", "москва"),
    ("Cyrillic", "Ёлки", "елки"),
    ("Greek", "ΑΘΗΝΑ", "αθηνα"),
    ("Greek", "Αθήνα", "αθηνα"),
    ("Greek", "οδός", "οδοσ"),
    ("Japanese", "ガイド", "かいと"),
    ("Japanese", "ｶﾞｲﾄﾞ", "かいと"),
    ("Japanese", "がっこう", "かっこう"),
    ("Japanese", "ヨコハマ", "よこはま"),
    ("Japanese", "ァヵヶ", "ぁゕゖ"),
    ("Japanese", "トウキョウ タワー", "とうきょう たわー"),
    ("Persian", "كهريز", "کهریز"),
    ("Persian", "کهریز", "کهریز"),
    ("Arabic", "مدرسة", "مدرسه"),
    ("Arabic", "ٱلقاهرة", "القاهره"),
    ("Arabic", "مـــصـر", "مصر"),
    ("Arabic", "مستشفى", "مستشفی"),
    ("Arabic", "ﻛﺘﺎﺏ", "کتاب"),
    ("Digits", "٢٠١٠", "2010"),
    ("Digits", "۲۰۱۰", "2010"),
    ("Digits", "Route ٦٦ / ۶۶", "route 66 / 66"),
    ("Full-width", "ＡＢＣ１２３", "abc123"),
    ("Ligature", "ﬁle", "file"),
    ("Emoji", "👍🏽 Party 🎉", "👍🏽 party 🎉"),
    ("Emoji", "I ❤️ NY", "i ❤ ny"),
    ("Controls", "a\tb\nc\u{1B}", "a b c "),
    ("Invisible", "Bahn\u{AD}hof", "bahnhof"),
    ("Plain ASCII", "Hello, World! 123", "hello, world! 123"),
  ]

  /// The table as its generated source says, read with `split` and `Int(_:radix:)`: a simple
  /// reference for the byte-by-byte reader every process runs once.
  @Test("the folding table holds exactly what its source lists")
  func tableMatchesItsSource() {
    var listed: [UInt32: [UInt8]] = [:]
    for line in FoldingTable.source.split(separator: "\n") {
      let numbers = line.split(separator: " ").map { UInt32($0, radix: 16)! }
      let folded = numbers.dropFirst().flatMap { Array(String(Unicode.Scalar($0)!).utf8) }
      listed[numbers[0]] = folded
    }
    #expect(listed.count > 8_000)
    let table = FoldingTable.shared
    for (scalar, folded) in listed {
      let found = table.replacement(of: scalar).map(Array.init)
      #expect(found == folded, "U+\(String(scalar, radix: 16, uppercase: true))")
    }
    for scalar in UInt32(0)..<0x3_0000 where listed[scalar] == nil {
      #expect(table.replacement(of: scalar) == nil, "U+\(String(scalar, radix: 16))")
    }
  }

  @Test("folds each language's letters", arguments: cases)
  func folds(_ language: String, _ original: String, _ expected: String) {
    #expect(TextFolding.fold(original) == expected, "\(language)")
  }

  @Test(
    "Hangul folds to jamo, so a half-typed syllable matches",
    arguments: [
      ("서우", "서울"), ("서ㅇ", "서울"), ("부사", "부산"), ("대ㅈ", "대전"),
    ])
  func hangulPrefix(_ typed: String, _ word: String) {
    // Bytes, not Characters: a leading jamo is part of the grapheme cluster of the syllable.
    #expect(TextFolding.fold(word).utf8.starts(with: TextFolding.fold(typed).utf8))
  }

  @Test func initialConsonants() {
    #expect(TextFolding.initialConsonants(of: "서울 특별시") == TextFolding.fold("ㅅㅇ ㅌㅂㅅ"))
    #expect(TextFolding.initialConsonants(of: "Seoul") == nil)
    #expect(TextFolding.isInitialConsonantQuery("ㅅㅇ"))
    #expect(!TextFolding.isInitialConsonantQuery("서ㅇ"))
    #expect(!TextFolding.isInitialConsonantQuery("ㅏ"))
    #expect(!TextFolding.isInitialConsonantQuery(""))
  }

  /// The reference: Foundation's NFKD, marks and invisible characters dropped, lowercased,
  /// and the letters without decompositions — computed directly, scalar by scalar.
  static func reference(_ text: String) -> String {
    let extra: [Character: String] = [
      "đ": "d", "ł": "l", "ø": "o", "æ": "ae", "œ": "oe", "ħ": "h", "ı": "i", "þ": "th",
      "ß": "ss", "ð": "d", "ŧ": "t", "ς": "σ",
      // docs/command-line.md, "What folds": Arabic-script variants, tatweel dropped.
      "ي": "ی", "ى": "ی", "ك": "ک", "ة": "ه", "ٱ": "ا", "ـ": "",
      // Apostrophes and the letters written like them, dropped.
      "'": "", "\u{2018}": "", "\u{2019}": "", "\u{02BC}": "", "\u{02BB}": "", "\u{02BF}": "",
      "\u{02BE}": "", "\u{02B9}": "",
    ]
    /// Katakana to hiragana and the two other sets of digits, by code point.
    func script(_ scalar: Unicode.Scalar) -> String? {
      switch scalar.value {
      case 0x30A1...0x30F6: String(Character(Unicode.Scalar(scalar.value - 0x60)!))
      case 0x0660...0x0669: String(scalar.value - 0x0660)
      case 0x06F0...0x06F9: String(scalar.value - 0x06F0)
      default: nil
      }
    }
    var result = ""
    for scalar in text.unicodeScalars {
      var current = String(scalar)
      for _ in 0..<4 {
        var next = ""
        for part in current.decomposedStringWithCompatibilityMapping.unicodeScalars {
          if part.value < 0x20 || (0x7F..<0xA0).contains(part.value) {
            next += " "
            continue
          }
          let category = part.properties.generalCategory
          if category == .nonspacingMark || category == .enclosingMark
            || part.properties.isDefaultIgnorableCodePoint
          {
            continue
          }
          for lower in part.properties.lowercaseMapping {
            next += extra[lower] ?? lower.unicodeScalars.first.flatMap(script) ?? String(lower)
          }
        }
        if next == current { break }
        current = next
      }
      result += current
    }
    return result
  }

  @Test(
    "the generated table agrees with Foundation, scalar by scalar",
    arguments: [
      0x0000..<0x0600, 0x0600..<0x0800, 0x08A0..<0x0900, 0x1E00..<0x2200, 0x3000..<0x3400,
      0xFB50..<0xFE00, 0xFE70..<0xFF00, 0xFF00..<0xFFF0, 0x1D400..<0x1D500, 0x1EE00..<0x1EF00,
    ])
  func tableMatchesReference(_ range: Range<UInt32>) {
    var mismatches: [String] = []
    for value in range {
      guard let scalar = Unicode.Scalar(value),
        scalar.properties.generalCategory != .unassigned
      else { continue }
      let text = String(scalar)
      if TextFolding.fold(text) != Self.reference(text) {
        mismatches.append(String(value, radix: 16))
      }
    }
    #expect(mismatches.isEmpty, "scalars folded differently: \(mismatches.prefix(20))")
  }

  @Test("folding is idempotent and agrees with the reference on random text")
  func randomText() {
    var random = SplitMix64(seed: 0x51F7)
    let alphabet = Array(
      ("aAzZ09 -:\"'’ʼÀàÉéĐđŁłØøÆæŒœĦħıİÞþßẞÑñÇçŞşĞğЁёЙйΣσςΆά서울부산ㅅㅇ가힣カガｶﾞ하ＡＺ１ﬁ👍🏽❤️\u{301}\u{AD}\t"
        + "ヨコハマよこはまヶゖヴゔيىكةٱـیکه٢٠۲۰٫ﻛﺔ\u{64B}\u{670}")
        .unicodeScalars)
    for _ in 0..<3000 {
      var text = String.UnicodeScalarView()
      for _ in 0..<Int.random(in: 0...12, using: &random) {
        text.append(alphabet.randomElement(using: &random)!)
      }
      let string = String(text)
      let once = TextFolding.fold(string)
      #expect(TextFolding.fold(once) == once, "not idempotent: \(string.debugDescription)")
      // Hangul syllables are decomposed arithmetically; NFKD does the same.
      #expect(once == Self.reference(string), "differs from reference: \(string.debugDescription)")
    }
  }

  @Test("origins map every folded byte back to its source scalar")
  func origins() {
    let text = "Đà Nẵng 서울"
    let (bytes, origins) = TextFolding.foldWithOrigins(text)
    #expect(String(decoding: bytes, as: UTF8.self) == TextFolding.fold(text))
    #expect(origins.count == bytes.count)
    #expect(origins.first == 0)
    #expect(zip(origins, origins.dropFirst()).allSatisfy { $0 <= $1 })
  }
}
