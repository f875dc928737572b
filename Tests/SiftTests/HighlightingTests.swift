import SiftTestSupport
import Testing

@testable import Sift

@Suite("Highlighting", .tags(.unit))
struct HighlightingTests {
  static func marked(_ text: String, _ needles: [String], initials: [String] = []) -> String {
    let ranges = Highlighting.ranges(
      in: text, needles: needles.map(TextFolding.fold),
      initialNeedles: initials.map(TextFolding.fold))
    var result = ""
    var index = text.startIndex
    for range in ranges {
      result += text[index..<range.lowerBound] + "[" + text[range] + "]"
      index = range.upperBound
    }
    return result + text[index...]
  }

  @Test(
    "ranges land on the original text",
    arguments: [
      ("Đà Nẵng", ["da"], "[Đà] Nẵng"),
      ("Đà Nẵng", ["nang"], "Đà [Nẵng]"),
      ("Đà Nẵng", ["a"], "Đ[à] N[ẵ]ng"),
      ("Straße", ["ss"], "Stra[ß]e"),
      ("Straße", ["strasse"], "[Straße]"),
      ("Red Rose", ["r"], "[R]ed [R]ose"),
      ("Red Rose", ["red rose"], "[Red Rose]"),
      ("서울 여행", ["서우"], "[서울] 여행"),
      ("ＡＢＣ", ["b"], "Ａ[Ｂ]Ｃ"),
      ("e\u{301}te\u{301}", ["e"], "[e\u{301}]t[e\u{301}]"),
      ("👍🏽 party", ["party"], "👍🏽 [party]"),
      ("ﬁle", ["i"], "[ﬁ]le"),
      ("Rose", ["x"], "Rose"),
    ])
  func ranges(_ text: String, _ needles: [String], _ expected: String) {
    #expect(Self.marked(text, needles) == expected)
  }

  @Test func initials() {
    #expect(Self.marked("서울 특별시", [], initials: ["ㅅㅇ"]) == "[서울] 특별시")
  }

  @Test("ranges are always valid and grapheme-aligned on random text")
  func random() {
    var random = SplitMix64(seed: 99)
    let alphabet = Array(
      "aeÀàĐđßẞ서울ㅅカｶﾞ👍🏽ﬁ \u{301}\u{AD}名🏳️‍🌈\u{200D}\u{202E}\u{1B}\u{0}ǅﷺ".unicodeScalars)
    for _ in 0..<10_000 {
      var scalars = String.UnicodeScalarView()
      for _ in 0..<Int.random(in: 0...10, using: &random) {
        scalars.append(alphabet.randomElement(using: &random)!)
      }
      let text = String(scalars)
      let needle = String(
        String.UnicodeScalarView(
          (0..<Int.random(in: 1...2, using: &random)).map { _ in
            alphabet.randomElement(using: &random)!
          }))
      let ranges = Highlighting.ranges(in: text, needles: [TextFolding.fold(needle)])
      for range in ranges {
        #expect(range.lowerBound >= text.startIndex && range.upperBound <= text.endIndex)
        #expect(String.Index(range.lowerBound, within: text) != nil, "\(text.debugDescription)")
        #expect(String.Index(range.upperBound, within: text) != nil, "\(text.debugDescription)")
      }
      #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound })
    }
  }

  @Test("a collection highlights the fields its criteria searched")
  func collection() throws {
    var products = try Fixtures.collection(.products)
    products.filter(by: SearchCriteria(text: "rose 2010"))
    let item = try #require(products.item(atRow: 0))
    let title = item["title"]!.displayText
    #expect(
      products.highlightRanges(in: title, field: "title", of: item).map { String(title[$0]) } == [
        "Rose"
      ])
    #expect(products.highlightRanges(in: "2010", field: "year", of: item).count == 1)
    #expect(products.highlightRanges(in: "24.99", field: "price", of: item).isEmpty)
  }
}

extension HighlightingTests {
  /// A city and a flower, the city with an other name that holds "p" only inside a word.
  static func places() throws -> FilteredCollection {
    let schema = CatalogSchema(
      name: "places", fields: [.text("name"), .text("alternates")], titleField: "name")
    return try FilteredCollection(
      schema: schema,
      items: [
        Item(
          id: "1",
          fields: ["name": .text("São Paulo"), "alternates": .texts(["Sampa", "San Paolo"])]),
        Item(id: "2", fields: ["name": .text("Tulip"), "alternates": .texts(["Tulipa"])]),
      ])
  }

  static func marked(
    _ collection: FilteredCollection, _ id: ItemID, _ field: String
  ) throws -> [String] {
    let item = try #require(collection.item(id: id))
    return item[field]!.strings.map { text in
      var result = ""
      var index = text.startIndex
      for range in collection.highlightRanges(in: text, field: field, of: item) {
        result += text[index..<range.lowerBound] + "[" + text[range] + "]"
        index = range.upperBound
      }
      return result + text[index...]
    }
  }

  @Test(
    "a one-letter term marks word starts in an item that has one, and inside words only where it has none"
  )
  func oneLetterTerms() throws {
    var places = try Self.places()
    places.filter(by: SearchCriteria(text: "sao p"))
    #expect(try Self.marked(places, "1", "name") == ["[São] [P]aulo"])
    #expect(try Self.marked(places, "1", "alternates") == ["Sampa", "San [P]aolo"])
    places.filter(by: SearchCriteria(text: "p"))
    #expect(try Self.marked(places, "2", "name") == ["Tuli[p]"])
    #expect(try Self.marked(places, "2", "alternates") == ["Tuli[p]a"])
    // Longer terms still mark wherever they occur.
    places.filter(by: SearchCriteria(text: "am"))
    #expect(try Self.marked(places, "1", "alternates") == ["S[am]pa", "San Paolo"])
  }
}
