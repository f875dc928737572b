import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// Chinese by pinyin and Japanese by romaji, against references the index never sees: the
/// pinyin pypinyin gives in context (`Scripts/generate-reading-fixtures.py`) and a kana table
/// written here.
@Suite("Readings: pinyin and romaji", .tags(.unit))
struct ReadingTests {
  static let schema = CatalogSchema(
    name: "names", fields: [.text("name"), .text("note")], titleField: "name")

  static func collection(_ names: [(id: String, name: String)]) throws -> FilteredCollection {
    try FilteredCollection(
      schema: schema,
      items: names.map { Item(id: ItemID($0.id), fields: ["name": .text($0.name)]) })
  }

  static func fixture(_ name: String) throws -> [[String]] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Fixtures/readings/\(name)")
    return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
      $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    }
  }

  /// The ids `text` finds.
  static func found(_ text: String, in collection: inout FilteredCollection) -> Set<String> {
    collection.filter(by: SearchCriteria(text: text))
    return Set(collection.rows.map(\.description))
  }

  @Test("the issue's examples: full pinyin, initials, typed half, romaji with long vowels")
  func examples() throws {
    let names = [
      ("beijing", "北京"), ("xian", "西安"), ("chongqing", "重庆"), ("deyu", "德语"),
      ("toyota", "トヨタ"), ("tokyo", "とうきょう"), ("kitte", "きって"), ("doitsugo", "ドイツ語"),
      ("ramen", "ラーメン"), ("green", "绿色"), ("taipei", "臺北"), ("matcha", "まっちゃ"),
      ("file", "ファイル"), ("gaido", "ｶﾞｲﾄﾞ"), ("seoul", "서울"),
    ]
    var collection = try Self.collection(names.map { (id: $0.0, name: $0.1) })
    let cases: [(String, String)] = [
      ("beijing", "beijing"), ("bj", "beijing"), ("beij", "beijing"), ("jing", "beijing"),
      ("xi'an", "xian"), ("xian", "xian"), ("xa", "xian"), ("chongqing", "chongqing"),
      ("zhongqing", "chongqing"), ("cq", "chongqing"), ("deyu", "deyu"), ("dy", "deyu"),
      ("toyota", "toyota"), ("tokyo", "tokyo"), ("toukyou", "tokyo"), ("kitte", "kitte"),
      ("doitsu", "doitsugo"), ("ramen", "ramen"), ("raamen", "ramen"), ("lvse", "green"),
      ("luse", "green"), ("taibei", "taipei"), ("matcha", "matcha"), ("fairu", "file"),
      ("gaido", "gaido"), ("ㅅㅇ", "seoul"),
    ]
    for (query, id) in cases {
      #expect(Self.found(query, in: &collection) == [id], "\(query)")
    }
    // Two letters are the least a reading needs; a letter alone finds none.
    #expect(Self.found("b", in: &collection).isEmpty)
  }

  @Test("pinyin as pypinyin reads the CLDR language names and the cities' Chinese names")
  func pinyinOfRealNames() throws {
    let lines = try Self.fixture("pinyin.tsv")
    var names: [String: String] = [:]
    for line in lines { names[line[0]] = line[1] }
    var collection = try Self.collection(names.map { (id: $0.key, name: $0.value) })
    var checked = 0
    var missed: [String] = []
    for line in lines {
      let (id, run, syllables) = (line[0], line[2], line[3].split(separator: " ").map(String.init))
      let full = syllables.joined()
      let initials = String(syllables.map { $0.first! })
      // As typed so far: the first syllable, then the start of the next.
      let partial =
        syllables.count > 1
        ? syllables[0] + syllables[1].prefix(1) : String(full.prefix(max(2, full.count - 1)))
      for query in [full, initials, partial] where query.count >= 2 {
        checked += 1
        if !Self.found(query, in: &collection).contains(id) {
          missed.append("\(query) → \(run) (\(id))")
        }
      }
    }
    print("pinyin: \(checked) queries over \(lines.count) runs, \(missed.count) missed")
    #expect(checked > 4_000)
    #expect(missed.isEmpty, "\(missed.prefix(20))")
  }

  @Test("romaji of the CLDR language names and the cities' Japanese names, by a table of its own")
  func romajiOfRealNames() throws {
    let lines = try Self.fixture("kana.tsv")
    var collection = try Self.collection(lines.map { (id: $0[0], name: $0[1]) })
    var checked = 0
    var missed: [String] = []
    for line in lines {
      for run in Self.kanaRuns(line[1]) {
        let written = Self.hepburn(run)
        let typed = Self.collapsed(written)
        for query in [written, typed, String(written.prefix(3))] where query.count >= 2 {
          checked += 1
          if !Self.found(query, in: &collection).contains(line[0]) {
            missed.append("\(query) → \(run) (\(line[0]))")
          }
        }
      }
    }
    print("romaji: \(checked) queries over \(lines.count) names, \(missed.count) missed")
    #expect(checked > 2_500)
    #expect(missed.isEmpty, "\(missed.prefix(20))")
  }

  @Test("a match as typed ranks before a reading, a reading before a near spelling")
  func rankedBetween() throws {
    var collection = try Self.collection([
      ("latin", "Beijing"), ("han", "北京"), ("near", "Beijng"), ("road", "Beijing Road"),
    ])
    collection.filter(by: SearchCriteria(text: "beijing "))
    #expect(collection.rows.map(\.description) == ["latin", "road", "han"])
    collection.filter(by: SearchCriteria(text: "bj"))
    #expect(collection.rows.map(\.description) == ["han"])
    // Among readings, a value read whole before one that holds the reading later: German
    // before Akkadian, as with 德语 and 阿卡德语.
    var languages = try Self.collection([("akk", "阿卡德语"), ("de", "德语"), ("dyu", "迪尤拉语")])
    for query in ["deyu", "dy ", "deyu "] {
      languages.filter(by: SearchCriteria(text: query))
      #expect(languages.rows.first?.description == "de", "\(query)")
    }
    // A reading is an exact match: near spellings are looked for only without one.
    var few = try Self.collection([("near", "Beijng"), ("han", "北京")])
    few.filter(by: SearchCriteria(text: "beijing "))
    #expect(few.rows.map(\.description) == ["han"])
    #expect(few.explanation(forRow: 0)?.rank.typos == 0)
    few.filter(by: SearchCriteria(text: "beijnig "))
    #expect(few.rows.map(\.description) == ["near"])
    #expect(few.explanation(forRow: 0)?.rank.typos == 1)
  }

  @Test("a term that begins to read narrows to the previous matches and the items it reads")
  func narrowingWithReadings() throws {
    func resolved(_ text: String) -> ResolvedCriteria {
      ResolvedCriteria(SearchCriteria(text: text), schema: Self.schema)
    }
    func reading(_ text: String, after previous: String) -> [String]? {
      resolved(text).narrowing(resolved(previous))?.map { term in
        guard case .text(let condition) = term.condition else { return "?" }
        return condition.needle
      }
    }
    // One letter never reads, two may: the new term's readings may add items.
    #expect(reading("ho ch", after: "ho c") == ["ch"])
    #expect(reading("t", after: "") == [])
    #expect(reading("to", after: "t") == ["to"])
    // A reading term one letter longer reads only where the shorter one did.
    #expect(reading("beij", after: "bei") == [])
    #expect(resolved("beij").narrows(resolved("bei")))
    // Readings match at a word's start: "chi" reads where "hi" does not.
    #expect(reading("chi", after: "hi") == ["chi"])
    #expect(!resolved("chi").narrows(resolved("hi")))
    #expect(reading("ho", after: "hong") == nil)

    // Typed letter by letter over a catalog large enough to list readings, each keystroke
    // finds what a search from scratch finds.
    var names: [(id: String, name: String)] = [
      ("hcm", "Ho Chi Minh"), ("hk", "香港"), ("cq", "重庆"), ("dn", "Đà Nẵng"),
      ("hc", "红城"), ("toyota", "トヨタ"), ("tokyo", "とうきょう"), ("thomas", "Thomas Church"),
    ]
    names += (0..<200).map { (id: "filler\($0)", name: "Place \($0)") }
    var typed = try Self.collection(names)
    typed.index.prepareSubstringSearch()
    for query in ["ho chi", "da na", "toyota", "tokyo", "hong ko", "chi "] {
      var text = ""
      for character in query {
        text.append(character)
        typed.filter(by: SearchCriteria(text: text))
        var fresh = try Self.collection(names)
        fresh.index.prepareSubstringSearch()
        fresh.filter(by: SearchCriteria(text: text))
        #expect(Array(typed.rows) == Array(fresh.rows), "\(text)")
      }
      typed.filter(by: SearchCriteria(text: ""))
    }
    typed.filter(by: SearchCriteria(text: "ho c"))
    typed.filter(by: SearchCriteria(text: "ho ch"))
    #expect(Set(typed.rows.map(\.description)) == ["hcm", "hc", "thomas"])
  }

  @Test("highlights cover the characters read; --explain says by what")
  func highlightsAndExplanation() throws {
    let items = [
      Item(id: "1", fields: ["name": .text("北京 Beijing"), "note": .text("首都")]),
      Item(id: "2", fields: ["name": .text("ドイツ語")]),
    ]
    var collection = try FilteredCollection(schema: Self.schema, items: items)
    func marked(_ text: String, _ item: Item, field: String = "name") -> [String] {
      collection.highlightRanges(in: text, field: field, of: item).map { String(text[$0]) }
    }
    collection.filter(by: SearchCriteria(text: "beij"))
    #expect(marked("北京 Beijing", items[0]) == ["北京", "Beij"])
    collection.filter(by: SearchCriteria(text: "jing"))
    #expect(marked("北京 Beijing", items[0]) == ["京", "jing"])
    collection.filter(by: SearchCriteria(text: "shoudu"))
    #expect(collection.rows.map(\.description) == ["1"])
    #expect(marked("首都", items[0], field: "note") == ["首都"])
    #expect(collection.explanation(forRow: 0)?.readBy == "pinyin")
    #expect(collection.explanation(forRow: 0)?.field == "note")
    collection.filter(by: SearchCriteria(text: "doitsu"))
    #expect(marked("ドイツ語", items[1]) == ["ドイツ"])
    #expect(collection.explanation(forRow: 0)?.readBy == "romaji")
    #expect(collection.explanation(forRow: 0)?.value == "ドイツ語")
    collection.filter(by: SearchCriteria(text: "beijing"))
    #expect(collection.explanation(forRow: 0)?.readBy == nil, "the Latin word, as typed")
    // A page asks which values to mark without reading all of them: the reading's value too.
    let several = Item(
      id: "3", fields: ["name": .text("x"), "note": .texts(["首都", "capital", "北京"])])
    var notes = try FilteredCollection(schema: Self.schema, items: [several])
    notes.filter(by: SearchCriteria(text: "beijing"))
    #expect(notes.valuesThatMayMatch(field: "note", of: several.id) == [false, false, true])
    notes.filter(by: SearchCriteria(text: "cap"))
    #expect(notes.valuesThatMayMatch(field: "note", of: several.id) == [false, true, false])
  }

  @Test("text without Han, kana or Hangul carries no readings")
  func noReadingsWithoutThem() throws {
    let collection = try Self.collection([("1", "Rose"), ("2", "Đà Nẵng")])
    #expect(collection.index.readingColumns.allSatisfy { $0 == nil })
    #expect(PinyinTable.shared.characterCount > 26_000)
  }

  // MARK: - The test's own kana table

  /// Hepburn by rows: a consonant and the five vowels, then the exceptions of the table.
  static let kana: [UInt32: String] = {
    var table: [UInt32: String] = [:]
    let rows: [(String, String)] = [
      ("", "あいうえお"), ("k", "かきくけこ"), ("g", "がぎぐげご"), ("s", "さしすせそ"),
      ("z", "ざじずぜぞ"), ("t", "たちつてと"), ("d", "だぢづでど"), ("n", "なにぬねの"),
      ("h", "はひふへほ"), ("b", "ばびぶべぼ"), ("p", "ぱぴぷぺぽ"), ("m", "まみむめも"),
      ("r", "らりるれろ"),
    ]
    let exceptions = [
      "si": "shi", "ti": "chi", "tu": "tsu", "hu": "fu", "zi": "ji", "di": "ji", "du": "zu",
    ]
    for (consonant, letters) in rows {
      for (letter, vowel) in zip(letters.unicodeScalars, ["a", "i", "u", "e", "o"]) {
        table[letter.value] = exceptions[consonant + vowel] ?? consonant + vowel
      }
    }
    for (letter, reading) in zip(
      "やゆよわをんゔゐゑ".unicodeScalars, ["ya", "yu", "yo", "wa", "o", "n", "vu", "i", "e"])
    {
      table[letter.value] = reading
    }
    for (letter, reading) in zip(
      "ぁぃぅぇぉゃゅょゎゕゖ".unicodeScalars, ["a", "i", "u", "e", "o", "ya", "yu", "yo", "wa", "ka", "ke"])
    {
      table[letter.value] = reading
    }
    return table
  }()

  /// The runs of kana (and ー) of `text`, katakana as hiragana.
  static func kanaRuns(_ text: String) -> [[UInt32]] {
    var runs: [[UInt32]] = [[]]
    for scalar in text.unicodeScalars {
      var value = scalar.value
      if (0x30A1...0x30F6).contains(value) { value -= 0x60 }
      if kana[value] != nil || value == 0x3063 || value == 0x30FC {
        runs[runs.count - 1].append(value)
      } else if !runs[runs.count - 1].isEmpty {
        runs.append([])
      }
    }
    return runs.filter { !$0.isEmpty }
  }

  /// Hepburn as written: a small ya/yu/yo or vowel takes the vowel of the syllable before (and
  /// after sh, ch, j the y); っ doubles the next consonant (t before ch); ー repeats the vowel.
  static func hepburn(_ run: [UInt32]) -> String {
    var syllables: [String] = []
    var double = false
    let small: Set<UInt32> = [
      0x3041, 0x3043, 0x3045, 0x3047, 0x3049, 0x3083, 0x3085, 0x3087, 0x308E,
    ]
    for scalar in run {
      if scalar == 0x3063 {
        double = true
        continue
      }
      if scalar == 0x30FC {
        if let vowel = syllables.joined().last(where: { "aiueo".contains($0) }) {
          syllables.append(String(vowel))
        }
        continue
      }
      var syllable = kana[scalar]!
      if small.contains(scalar), var before = syllables.popLast() {
        let wasU = before == "u"
        if let last = before.last, "aiueo".contains(last) { before.removeLast() }
        if wasU { before = "w" }
        if syllable.hasPrefix("y"), before.hasSuffix("h") || before.hasSuffix("j") {
          syllable.removeFirst()
        }
        syllables.append(before + syllable)
        continue
      }
      if double {
        double = false
        if syllable.hasPrefix("ch") {
          syllable = "t" + syllable
        } else if let first = syllable.first, !"aiueo".contains(first) {
          syllable = String(first) + syllable
        }
      }
      syllables.append(syllable)
    }
    return syllables.joined()
  }

  /// Long vowels as typed: a vowel followed by the same vowel, or o by u, is written once.
  static func collapsed(_ text: String) -> String {
    let letters = Array(text)
    var result = ""
    var index = 0
    while index < letters.count {
      result.append(letters[index])
      if index + 1 < letters.count, "aiueo".contains(letters[index]),
        letters[index + 1] == letters[index] || (letters[index] == "o" && letters[index + 1] == "u")
      {
        index += 2
      } else {
        index += 1
      }
    }
    return result
  }
}
