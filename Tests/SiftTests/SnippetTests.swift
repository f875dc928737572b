import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// Snippets: a long text cut to N words around its highlights, checked against a reference
/// that works on word indexes, and pinned on examples.
@Suite("Snippets", .tags(.unit))
struct SnippetTests {
  static let text =
    "A sullen ten-year-old girl wanders into a world of spirits when her parents are turned into pigs."

  static func range(of word: String, in text: String) -> Range<String.Index> {
    text.range(of: word)!
  }

  @Test(
    "pinned: the window centres the match, with … where words were left out",
    arguments: [
      ("spirits", 8, "…a world of spirits when her parents are…", ["spirits"]),
      ("sullen", 4, "A sullen ten-year-old girl…", ["sullen"]),
      ("pigs.", 5, "…parents are turned into pigs.", ["pigs."]),
      ("girl", 40, text, ["girl"]),
    ])
  func pinned(word: String, words: Int, expected: String, marked: [String]) {
    let snippet = Snippet(Self.text, ranges: [Self.range(of: word, in: Self.text)], words: words)
    #expect(snippet.text == expected)
    #expect(snippet.ranges.map { String(snippet.text[$0]) } == marked)
    #expect(snippet.isCropped == (expected != Self.text))
  }

  @Test("no highlight: the first words; a range cut by the window keeps its inside part")
  func edges() {
    let first = Snippet(Self.text, ranges: [], words: 3)
    #expect(first.text == "A sullen ten-year-old…" && first.ranges.isEmpty)
    // "world of spirits" spans three words; a window of two keeps as much as fits.
    let phrase = Self.range(of: "world of spirits", in: Self.text)
    let cut = Snippet(Self.text, ranges: [phrase], words: 2)
    #expect(cut.text == "…world of…")
    #expect(cut.ranges.map { String(cut.text[$0]) } == ["world of"])
    // Wide characters and several spaces between words.
    let wide = "서울  여행   계획 Đà Nẵng  itinerary"
    let nang = Snippet(wide, ranges: [wide.range(of: "Nẵng")!], words: 2)
    #expect(nang.text == "…Nẵng  itinerary")
    #expect(nang.ranges.map { String(nang.text[$0]) } == ["Nẵng"])
  }

  @Test("the window holds the most matches, its text is the words it names, in order")
  func matchesReference() {
    let seed: UInt64 = 1_125
    print("snippet seed \(seed)")
    var random = SplitMix64(seed: seed)
    let vocabulary = ["da", "nang", "rose", "red", "a", "of", "Łódź", "서울", "x-y"]
    for round in 0..<500 {
      let words = (0..<Int.random(in: 1...30, using: &random)).map { _ in
        vocabulary.randomElement(using: &random)!
      }
      let text = words.joined(separator: " ")
      // Highlights: every occurrence of one word of the vocabulary, as a search would mark.
      let needle = vocabulary.randomElement(using: &random)!
      var ranges: [Range<String.Index>] = []
      var from = text.startIndex
      while let found = text.range(of: needle, range: from..<text.endIndex) {
        ranges.append(found)
        from = found.upperBound
      }
      let count = Int.random(in: 1...12, using: &random)
      let snippet = Snippet(text, ranges: ranges, words: count)
      // The reference, on word indexes: which words hold a match, and the best window.
      let held = words.indices.filter { words[$0].contains(needle) }
      guard words.count > count else {
        #expect(snippet.text == text && !snippet.isCropped)
        continue
      }
      let windows = 0...(words.count - count)
      let best = windows.map { start in held.count { $0 >= start && $0 < start + count } }.max()!
      let body = snippet.text.trimmingCharacters(in: CharacterSet(charactersIn: "…"))
      // Where the window stands: the words it shows, with … exactly where words were left out.
      let start = windows.first { start in
        words[start..<start + count].joined(separator: " ") == body
          && snippet.text.hasPrefix("…") == (start > 0)
          && snippet.text.hasSuffix("…") == (start + count < words.count)
      }
      #expect(start != nil, "round \(round): \(snippet.text) is not \(count) words of \(text)")
      guard let start else { continue }
      let kept = held.count { $0 >= start && $0 < start + count }
      if best > 0 {
        #expect(kept == best, "round \(round): \(snippet.text) of \(text) for \(needle)")
      }
      // Every highlight lands on the needle.
      #expect(snippet.ranges.allSatisfy { String(snippet.text[$0]) == needle })
      #expect(snippet.ranges.count == needleCount(in: body, needle))
    }
  }

  private func needleCount(in text: String, _ needle: String) -> Int {
    var count = 0
    var from = text.startIndex
    while let found = text.range(of: needle, range: from..<text.endIndex) {
      count += 1
      from = found.upperBound
    }
    return count
  }
}
