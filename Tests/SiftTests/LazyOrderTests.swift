import SiftTestSupport
import Testing

@testable import Sift

/// A search puts only its first rows in order; these tests hold that order to the full sort
/// (`SearchIndex.order(rank(…))`) on seeded random catalogs: every page boundary, rows read past
/// the first page, and edits made while most rows are still unranked.
@Suite("Ranking only the rows shown", .tags(.unit))
struct LazyOrderTests {
  static let syllables = ["a", "ba", "ab", "ca", "b", "ac", "cab", "san", "an", " ", "-", "á"]
  /// Each as typed, and finished with a space (exactness ranks them differently,
  /// `MatchRequest.isTyping`).
  static let queries = [
    "a", "b", "c", "ab", "ba", "an", "san", "cab", "a b", "b a", "ca b", "a -b", "\"a b\"",
    "500", "name:a", "alternates:b", "sa", "ac ab", "x", "san a", "a ba", "ab c", "ca b -x",
  ].flatMap { [$0, $0 + " "] }

  static func randomCatalog(
    count: Int, using random: inout SplitMix64
  ) throws -> FilteredCollection {
    let items = (0..<count).map { number in
      RelevanceTests.item(
        "i\(number)", randomName(using: &random),
        alternates: (0..<Int.random(in: 0...2, using: &random)).map { _ in
          randomName(using: &random)
        },
        population: Int.random(in: 0...3, using: &random) == 0
          ? nil : [500, 20, 7_000, 20, 1][Int.random(in: 0..<5, using: &random)])
    }
    return try FilteredCollection(schema: RelevanceTests.schema(), items: items)
  }

  static func randomName(using random: inout SplitMix64) -> String {
    (0..<Int.random(in: 1...4, using: &random)).map { _ in
      syllables.randomElement(using: &random)!
    }.joined()
  }

  /// The matches of `query` fully ranked and sorted: what the first rows must begin.
  static func fullOrder(_ query: String, in index: SearchIndex<ItemID>) -> [RankedSlot] {
    let request = ResolvedCriteria(SearchCriteria(text: query), schema: index.schema)
      .request(typos: .off)
    let outcome = index.searchSlots(request)
    return index.order(index.rank(outcome.slots, index.plan(request), nearSpellings: false))
  }

  @Test("the first rows are the start of the full order at every page boundary")
  func firstRowsAtEveryBoundary() throws {
    var random = SplitMix64(seed: 2811)
    var compared = 0
    for round in 0..<6 {
      let collection = try Self.randomCatalog(
        count: Int.random(in: 200...900, using: &random), using: &random)
      let index = collection.index
      // With the trigram index, several terms are bounded by which slots hold the whole query.
      if round % 2 == 1 { index.prepareSubstringSearch() }
      for query in Self.queries {
        let request = ResolvedCriteria(SearchCriteria(text: query), schema: index.schema)
          .request(typos: .off)
        let plan = index.plan(request)
        let slots = index.searchSlots(request, rows: 0).slots
        let full = index.order(index.rank(slots, plan, nearSpellings: false))
        // Every bound is at most the exactness the full rank finds.
        index.withRankingContext(plan) { context in
          let letter = SearchIndex<ItemID>.singleLetter(context)
          let summaries = context.columns(of: context.probes[0]).map { context.columns[Int($0)] }
          for entry in full {
            let bound = index.exactnessBound(Int(entry.slot), context)
            let rank = MatchRank(packed: entry.rank)
            #expect(bound <= rank.exactness.rawValue, "\(query): slot \(entry.slot)")
            // Read from the values, exactness 0 or 1 is the rank's, and then the value is the
            // whole rank (these queries find no near spellings).
            let value = index.decidingValue(Int(entry.slot), context)
            #expect(
              value?.rank.exactness.rawValue
                == (rank.exactness.rawValue < 2 ? rank.exactness.rawValue : nil),
              "\(query): slot \(entry.slot)")
            if let value {
              #expect(value.rank == rank, "\(query): slot \(entry.slot)")
              if value.attribute == 0, !request.isTyping {
                // Its position bits hold the agreement, not a word's place.
                #expect(
                  rank.attribute == 0 && rank.position == value.agreement,
                  "\(query): slot \(entry.slot)")
              }
            }
            // The first keystroke's shortcut gives the same bound.
            if let letter {
              let shortcut = SearchIndex<ItemID>.oneLetterBound(
                RawColumn.wordStartBit(letter), Int(entry.slot), summaries,
                mayEqual: !request.isTyping)
              #expect(shortcut == bound, "\(query): slot \(entry.slot)")
            }
          }
        }
        for rows in Set([1, 2, 3, 5, 10, 20, 50, full.count / 2, full.count - 1, full.count]) {
          guard rows > 0 else { continue }
          let first = index.firstRows(slots, plan, rows: rows, wholeBelow: 0)
          #expect(first.entries == Array(full.prefix(rows)), "\(query), \(rows) rows")
          if first.isComplete { #expect(first.entries == full, "\(query)") }
          compared += 1
        }
      }
    }
    #expect(compared > 500)
  }

  @Test("rows past the first page are ranked when read, where the full sort puts them")
  func rowsPastTheFirstPage() throws {
    var random = SplitMix64(seed: 2812)
    var collection = try Self.randomCatalog(count: 6_000, using: &random)
    for query in ["a", "b", "a b"] {
      collection.filter(by: SearchCriteria(text: query))
      let full = Self.fullOrder(query, in: collection.index)
      #expect(full.count > 2 * RankedMatches<ItemID>.firstRows, "\(query): too few matches")
      #expect(collection.rows.count == full.count)
      // Only a screenful and more is in order until further rows are read.
      #expect(collection.matches.orderedCount == RankedMatches<ItemID>.firstRows, "\(query)")
      let expected = full.map { collection.index.ids[Int($0.slot)] }
      #expect(collection.rows[150] == expected[150], "\(query)")
      #expect(collection.matches.orderedCount < full.count, "\(query): ranked whole too soon")
      #expect(Array(collection.rows) == expected, "\(query)")
      #expect(
        (0..<full.count).allSatisfy {
          collection.rank(atRow: $0) == MatchRank(packed: full[$0].rank)
        }, "\(query)")
    }
  }

  @Test("edits while most rows are unranked land where a new search puts them")
  func editsOnALazyOrder() throws {
    var random = SplitMix64(seed: 2813)
    var collection = try Self.randomCatalog(count: 4_000, using: &random)
    var live = (0..<4_000).map { ItemID("i\($0)") }
    var next = 4_000
    for round in 0..<120 {
      if round % 10 == 0 {
        // A new search: its rows past the first page are unranked again.
        collection.filter(by: .everything)
        collection.filter(by: SearchCriteria(text: ["a", "b", "a", "b"][round / 30]))
        #expect(collection.matches.orderedCount == RankedMatches<ItemID>.firstRows)
        #expect(collection.rows.count > 4 * RankedMatches<ItemID>.firstRows)
      }
      let oldFirst = Array(collection.rows.prefix(40))
      let before = collection.matches.orderedCount
      let id: ItemID
      let changes: RowChanges
      switch Int.random(in: 0..<3, using: &random) {
      case 0:
        id = ItemID("i\(next)")
        next += 1
        changes = try collection.add(
          RelevanceTests.item(
            id.rawValue, Self.randomName(using: &random),
            population: [nil, 7_000, 20][Int.random(in: 0..<3, using: &random)]))
        live.append(id)
      case 1:
        // Often a row shown, sometimes any item (most are far down or not shown).
        id = Self.someItem(collection, live, using: &random)
        changes = try collection.update(
          RelevanceTests.item(
            id.rawValue, Self.randomName(using: &random),
            population: [nil, 1, 500][Int.random(in: 0..<3, using: &random)]))
      default:
        id = Self.someItem(collection, live, using: &random)
        live.removeAll { $0 == id }
        changes = try collection.delete(id: id)
      }
      // The rows and their ranks are what a fresh search of the edited catalog gives.
      var fresh = collection
      fresh.filter(by: .everything)
      fresh.filter(by: collection.criteria)
      #expect(collection.rows.count == fresh.rows.count, "round \(round)")
      #expect(Array(collection.rows.prefix(60)) == Array(fresh.rows.prefix(60)), "round \(round)")
      // The changes name the edited item's rows before and after.
      for row in changes.deleted { #expect(oldFirst.count <= row || oldFirst[row] == id) }
      for row in changes.inserted + changes.reloaded { #expect(collection.rows[row] == id) }
      for move in changes.moved {
        #expect(collection.rows[move.to] == id)
        if move.from < oldFirst.count { #expect(oldFirst[move.from] == id) }
      }
      #expect(changes.deleted.count + changes.inserted.count + changes.moved.count <= 1)
      // An edit among the rows shown ranks nothing more (one far down ranks the rows up to it,
      // to tell its row).
      let rows =
        changes.deleted + changes.inserted + changes.reloaded
        + changes.moved.flatMap {
          [$0.from, $0.to]
        }
      if rows.allSatisfy({ $0 < before - 1 }), oldFirst.contains(id) || changes.isEmpty {
        #expect(collection.matches.orderedCount <= before + 1, "round \(round)")
      }
      if round % 10 == 9 {
        #expect(Array(collection.rows) == Array(fresh.rows), "round \(round)")
      }
    }
  }

  /// A row among the first shown, or any live item.
  static func someItem(
    _ collection: FilteredCollection, _ live: [ItemID], using random: inout SplitMix64
  ) -> ItemID {
    Bool.random(using: &random)
      ? collection.rows[Int.random(in: 0..<30, using: &random)]
      : live.randomElement(using: &random)!
  }
}
