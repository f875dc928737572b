import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// The searches a server counts (`SearchHistory`): one per folded text, in one frame each; the
/// suggestions are those that found something, whose words start with the prefix's, most made
/// first — checked against the test's own count.
@Suite("Recorded searches", .tags(.unit))
struct SearchHistoryTests {
  @Test("counts by folded text and frame, suggests by word starts, most made first")
  func countsAndSuggests() {
    let seed: UInt64 = 20_261_130
    print("search history seed \(seed)")
    var random = SplitMix64(seed: seed)
    let texts = ["rose", "Rose ", "red rose", "tulip", "zzz", "Đà Nẵng", "da nang", "rosé"]
    var history = SearchHistory()
    var counts: [String: [String: (count: Int, found: Bool)]] = [:]
    for _ in 0..<400 {
      let text = texts.randomElement(using: &random)!
      let tenant = ["", "seller:1"].randomElement(using: &random)!
      let found = text != "zzz"
      history.record(text, found: found, tenant: tenant)
      let key = TextFolding.fold(text).split(separator: " ").joined(separator: " ")
      counts[tenant, default: [:]][key, default: (0, found)].count += 1
    }
    for tenant in ["", "seller:1"] {
      let all = history.suggestions(startingWith: "", tenant: tenant, limit: 100)
      let expected = counts[tenant, default: [:]].filter(\.value.found)
      #expect(all.count == expected.count)
      #expect(all.map(\.count) == all.map(\.count).sorted(by: >))
      for entry in all {
        let key = TextFolding.fold(entry.text).split(separator: " ").joined(separator: " ")
        #expect(expected[key]?.count == entry.count, "\(entry.text)")
      }
      #expect(history.failed(tenant: tenant).map(\.text) == ["zzz"])
      // "ro" starts rose, red rose's second word and rosé; "da n" both spellings of Đà Nẵng.
      #expect(
        Set(history.suggestions(startingWith: "ro", tenant: tenant, limit: 10).map(\.text))
          .isSubset(of: ["rose", "Rose", "red rose", "rosé"]))
      #expect(
        history.suggestions(startingWith: "da n", tenant: tenant).count == 2
          || counts[tenant]?.keys.contains("da nang") == true)
    }
    #expect(history.suggestions(startingWith: "tulpi", tenant: "").map(\.text) == ["tulip"])
    #expect(history.suggestions(startingWith: "", tenant: "seller:2").isEmpty)
    #expect(history.suggestions(startingWith: "", limit: 2).count == 2)
    // Read back from its entries: the same.
    #expect(SearchHistory(history.all) == history)
  }

  @Test("a search shows as most people typed it; one that finds nothing now is a failure")
  func mostTyped() {
    var history = SearchHistory()
    history.record("Rose", found: true)
    history.record(" rose ", found: false)
    // Equal counts: the latest spelling.
    #expect(history.all.map(\.text) == ["rose"])
    #expect(history.all.map(\.count) == [2] && history.all.map(\.found) == [false])
    #expect(history.suggestions(startingWith: "").isEmpty)
    history.record("   ", found: true)
    #expect(history.all.count == 1)

    // Three "star wars" and one "stär wars", in any order: "star wars".
    var wars = SearchHistory()
    for text in ["star wars", "stär wars", "star wars", "star wars"] {
      wars.record(text, found: true)
    }
    #expect(wars.all.map(\.text) == ["star wars"])
    wars.record("stär wars", found: true)
    #expect(wars.all.map(\.text) == ["star wars"], "3 against 2")
    #expect(wars.all.map(\.count) == [5])
  }

  @Test("bounded: texts past the longest kept are not counted, a full frame lets the least made go")
  func bounds() {
    var history = SearchHistory()
    history.record(String(repeating: "a", count: SearchHistory.maximumTextLength + 1), found: true)
    #expect(history.isEmpty)
    history.record(String(repeating: "a", count: SearchHistory.maximumTextLength), found: true)
    #expect(history.all.count == 1)

    var full = SearchHistory()
    for _ in 0..<3 { full.record("popular", found: true) }
    for index in 0..<SearchHistory.maximumEntries { full.record("w\(index)", found: true) }
    #expect(full.all.count <= SearchHistory.maximumEntries)
    #expect(full.all.count >= SearchHistory.maximumEntries * 9 / 10)
    #expect(full.all.first?.text == "popular", "the most made stays")
    // Another frame is bounded on its own.
    full.record("mine", found: true, tenant: "seller:1")
    #expect(full.suggestions(startingWith: "", tenant: "seller:1").map(\.text) == ["mine"])
  }

  @Test("changes: only what was counted since the last take, entries gone included")
  func changes() {
    var history = SearchHistory([SearchHistory.Entry(text: "old", count: 4, found: true)])
    #expect(history.takeChanges().isEmpty, "what was read is not written again")
    history.record("rose", found: true)
    history.record("Rose", found: true)
    history.record("tulip", found: false, tenant: "seller:2")
    let changes = history.takeChanges()
    #expect(Set(changes.written.map(\.key)) == ["rose", "tulip"])
    #expect(changes.removed.isEmpty)
    #expect(history.takeChanges().isEmpty)
    history.restore(changes)
    #expect(history.takeChanges().written.count == 2, "a failed save is tried again")

    var full = SearchHistory()
    for index in 0...SearchHistory.maximumEntries { full.record("w\(index)", found: true) }
    let evicted = full.takeChanges()
    #expect(evicted.written.count == full.all.count)
    #expect(evicted.removed.count + full.all.count == SearchHistory.maximumEntries + 1)
  }
}
