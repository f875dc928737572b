import SiftTestSupport
import Testing

@testable import Sift

/// docs/command-line.md, "What folds": katakana and hiragana, the Arabic-script letters Arabic and Persian
/// keyboards type differently, and Arabic-Indic and Persian digits — for data and queries alike.
@Suite("Folding more scripts", .tags(.unit))
struct ScriptFoldingTests {
  static let schema = CatalogSchema(
    name: "names", fields: [.text("title"), .number("year")], titleField: "title")

  /// The titles a query finds among `titles`.
  static func found(_ query: String, in titles: [String]) throws -> [String] {
    let items = titles.enumerated().map { index, title in
      Item(id: ItemID(String(index)), fields: ["title": .text(title)])
    }
    var collection = try FilteredCollection(schema: schema, items: items)
    collection.filter(by: SearchCriteria(text: query))
    return collection.rows.compactMap { id in titles[Int(id.rawValue)!] }
  }

  /// (one spelling, the other): each finds the other, typed as data or as the query.
  static let pairs: [(String, String)] = [
    ("よこはま", "ヨコハマ"),
    ("とうきょう", "トウキョウ"),
    ("じゃでぃーだ", "ジャディーダ"),
    ("がっこう", "ｶﾞｯｺｳ"),
    ("كهريز", "کهریز"),
    ("كرمان", "کرمان"),
    ("مستشفى", "مستشفی"),
    ("مدرسة", "مدرسه"),
    ("ٱلقاهرة", "القاهره"),
    ("مـصـر", "مصر"),
    ("٢٠١٠", "2010"),
    ("۲۰۱۰", "2010"),
    ("۲۰۱۰", "٢٠١٠"),
  ]

  @Test("each spelling finds the other, as query and as data", arguments: pairs)
  func bothWays(_ one: String, _ other: String) throws {
    #expect(try Self.found(one, in: [other, "unrelated"]) == [other])
    #expect(try Self.found(other, in: [one, "unrelated"]) == [one])
  }

  @Test(
    "mixed strings fold part by part, and folding twice changes nothing",
    arguments: [
      ("Tokyo トウキョウ とうきょう 東京", "tokyo とうきょう とうきょう 東京"),
      ("کرج كرج Karaj ٢٠١٠", "کرج کرج karaj 2010"),
      ("Đà Nẵng ダナン ٣", "da nang たなん 3"),
    ])
  func mixed(_ text: String, _ expected: String) {
    let folded = TextFolding.fold(text)
    #expect(folded == expected)
    #expect(TextFolding.fold(folded) == folded)
  }

  @Test("a katakana name is highlighted whole for a hiragana query, and the other way round")
  func highlights() {
    func marked(_ text: String, _ query: String) -> [String] {
      Highlighting.ranges(in: text, needles: [TextFolding.fold(query)]).map { String(text[$0]) }
    }
    #expect(marked("Yokohama ヨコハマ", "よこはま") == ["ヨコハマ"])
    #expect(marked("たかおし (Kaohsiung)", "タカオ") == ["たかお"])
    #expect(marked("ｶﾞｯｺｳ", "がっ") == ["ｶﾞｯ"])
    #expect(marked("مدرسة الكرامة", "الكرامه") == ["الكرامة"])
    #expect(marked("مـصـر", "مصر") == ["مـصـر"])
  }

  @Test(
    "Arabic-Indic and Persian digits are numbers, in plain terms and in filters",
    arguments: [
      ("٢٠١٠", "2010"), ("۲۰۱۰", "2010"), ("year:>=٢٠١٠", "year:>=2010"),
      ("year:۲۰۰۰..٢٠١٠", "year:2000..2010"), ("year:<۱۹۹۹", "year:<1999"),
      ("price:<٢٤٫٥", "price:<24.5"),
    ])
  func digits(_ written: String, _ ascii: String) throws {
    var products = try SeedCatalog.products.load().makeCollection()
    products.filter(by: SearchCriteria(text: ascii))
    let expected = Array(products.rows)
    #expect(!expected.isEmpty, "\(ascii) finds nothing: the case tests nothing")
    products.filter(by: SearchCriteria(text: written))
    #expect(Array(products.rows) == expected, "\(written)")
    #expect(NumberText.parse("٢٠١٠") == 2010 && NumberText.parse("۱۶٫۹۹") == 16.99)
    #expect(NumberText.parse("٢٠x") == nil && NumberText.parse("٫") == nil)
  }

  @Test(
    "near spellings work on the folded forms: one changed kana, Arabic letters typed for Persian")
  func typos() throws {
    // よこはた: one kana changed from ヨコハマ; كهريزگ: Arabic letters, last one wrong.
    #expect(try Self.found("よこはた", in: ["ヨコハマ", "トウキョウ"]) == ["ヨコハマ"])
    #expect(try Self.found("كهريزگ", in: ["کهریزک", "تهران"]) == ["کهریزک"])
  }
}
