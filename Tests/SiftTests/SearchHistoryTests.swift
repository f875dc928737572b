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

  @Test("a search is shown as last typed; one that finds nothing now is a failure")
  func lastTyping() {
    var history = SearchHistory()
    history.record("Rose", found: true)
    history.record(" rose ", found: false)
    #expect(history.all == [SearchHistory.Entry(text: "rose", count: 2, found: false)])
    #expect(history.suggestions(startingWith: "").isEmpty)
    history.record("   ", found: true)
    #expect(history.all.count == 1)
  }
}
