import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// Popularity weighs by its place, never by its digits (docs/ranking.md):
/// multiplying every ranking value by 1,000, or replacing each by its rank, gives the same rows
/// and the same ranks on every query, typed letter by letter.
@Suite("Relevance: popularity by its place", .tags(.unit))
struct ScaleInvarianceTests {
  @Test("every value times 1,000, or each replaced by its rank: the same order on every query")
  func sameOrderAtAnyScale() throws {
    let seed: UInt64 = 20_261_128
    print("scale property test seed \(seed)")
    var random = SplitMix64(seed: seed)
    let schema = CatalogSchema(
      name: "words", fields: [.text("title"), .text("tags"), .number("n")], titleField: "title",
      rankingField: RankingField("n"))
    let syllables = ["ka", "ro", "mi", "sa", "to", "né", "ri", "o"]
    func word() -> String {
      (0..<Int.random(in: 1...3, using: &random)).map { _ in
        syllables.randomElement(using: &random)!
      }.joined()
    }
    var typedStarts = 0
    for round in 0..<60 {
      let count = Int.random(in: 1...120, using: &random)
      let values: [Double?] = (0..<count).map { _ in
        // Ties, gaps and missing values: from nothing to millions.
        Bool.random(using: &random) && Int.random(in: 0..<8, using: &random) == 0
          ? nil : [0, 1, 2, 3, 7, 40, 341, 20_000, 3_000_000].randomElement(using: &random)!
      }
      let distinct = Set(values.compactMap { $0 }).sorted()
      func items(_ scaled: (Double) -> Double) -> [Item] {
        values.enumerated().map { id, value in
          var fields: [String: FieldValue] = [
            "title": .text(
              (0..<Int.random(in: 1...3, using: &random)).map { _ in word() }
                .joined(separator: " ")),
            "tags": .texts((0..<Int.random(in: 0...2, using: &random)).map { _ in word() }),
          ]
          if let value { fields["n"] = .number(scaled(value)) }
          return Item(id: ItemID(String(id)), fields: fields)
        }
      }
      // The same texts for each scale: one random stream per catalog.
      let state = random
      let plain = items { $0 }
      random = state
      let thousandfold = items { $0 * 1_000 }
      random = state
      let ranked = items { Double(distinct.firstIndex(of: $0)! + 1) }
      var collections = try [plain, thousandfold, ranked].map {
        try FilteredCollection(schema: schema, items: $0)
      }
      let query = word() + (Bool.random(using: &random) ? " " + word() : "")
      var typed = ""
      for character in query + " " {
        typed.append(character)
        let criteria = SearchCriteria(text: typed)
        var answers: [[String]] = []
        for index in collections.indices {
          collections[index].filter(by: criteria)
          let collection = collections[index]
          answers.append(
            collection.rows.indices.map {
              "\(collection.rows[$0]) \(collection.rank(atRow: $0)!.packed)"
            })
          if index == 0 {
            typedStarts += collection.rows.indices.count {
              collection.rank(atRow: $0)!.exactness == .startsValue
                && collection.rank(atRow: $0)!.typedWeight > 2
            }
          }
        }
        #expect(
          answers[0] == answers[1] && answers[0] == answers[2],
          "seed \(seed) round \(round): \"\(typed)\"")
      }
    }
    // Starts that popularity weighed must be many, or the test says little.
    #expect(typedStarts > 100, "\(typedStarts) typed starts weighed by popularity")
  }
}
