import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// A search asked to stop (a server's deadline passed) gives its thread back at its next step,
/// and what it leaves is safe to read and drop: no row past those it ranked traps, and a search
/// made afterwards, outside the stop, is whole.
@Suite("Stopping a search", .tags(.unit))
struct SearchStopTests {
  static let words = ["ab", "ac", "ad", "ae", "af", "ag", "bar", "baz", "cab", "dab"]

  @Test("a stopped search of many alternatives and groups ends; the next is whole")
  func stopped() throws {
    var random = SplitMix64(seed: 67)
    let items = (0..<3_000).map { index in
      Item(
        id: ItemID("\(index)"),
        fields: [
          "title": .text(
            (0..<3).map { _ in Self.words.randomElement(using: &random)! }.joined(separator: " ")),
          "year": .number(Double(index % 50)),
        ])
    }
    let schema = CatalogSchema(
      name: "words", fields: [.text("title"), .number("year")], titleField: "title")
    let collection = try FilteredCollection(schema: schema, items: items)
    let criteria = SearchCriteria(
      text: Self.words.prefix(6).joined(separator: " | "), distinct: "title")
    var whole = collection
    whole.filter(by: criteria)
    let rows = Array(whole.rows)
    #expect(rows.count > 10)

    let stop = SearchStop()
    stop.request()
    let cut = stop.running { () -> [ItemID] in
      var searched = collection
      searched.filter(by: criteria)
      // Reading every row of a stopped search traps nowhere.
      return Array(searched.rows)
    }
    #expect(cut.count < rows.count, "it stopped before matching every alternative")
    #expect(!SearchStop.shouldStop, "outside `running` nothing is stopped")
    var again = collection
    again.filter(by: criteria)
    #expect(Array(again.rows) == rows, "the next search is whole")
  }
}
