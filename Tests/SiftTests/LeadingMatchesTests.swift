import SiftTestSupport
import Testing

@testable import Sift

/// The first matches of needles of one to three letters kept in the archive (`LeadingMatches`):
/// a page read from them must be the start of the full sort (`order(rank(…))`) of the index as
/// it is — after adds, changes and deletes, with scopes, tokens and negations, and with lists
/// too short for the page (then the bounds answer).
@Suite("Kept first matches of short needles", .tags(.unit))
struct LeadingMatchesTests {
  static let countries = ["fr", "us", "vn", "no"]
  static let queries = [
    "a", "b", "c", "s", "n", "ab", "ba", "ca", "an", "sa", "ac", "san", "cab", "aba",
    "country:fr a",
    "country:no sa", "ban -a",
    "a -b", "b -san", "a country:us", "name:a", "x", "zz",
  ]

  static func item(_ number: Int, using random: inout SplitMix64) -> Item {
    var fields: [String: FieldValue] = [
      "name": .text(LazyOrderTests.randomName(using: &random)),
      "alternates": .texts(
        (0..<Int.random(in: 0...2, using: &random)).map { _ in
          LazyOrderTests.randomName(using: &random)
        }),
      "country": .text(countries[Int.random(in: 0..<countries.count, using: &random)]),
    ]
    if Int.random(in: 0...3, using: &random) != 0 {
      fields["population"] = .number(
        [500, 20, 7_000, 20, 1][Int.random(in: 0..<5, using: &random)])
    }
    return Item(id: ItemID("i\(number)"), fields: fields)
  }

  /// Compares every query's first rows, read from the lists when they answer, with the full
  /// sort; returns how many pages the lists answered.
  static func compare(_ index: SearchIndex<ItemID>, _ label: String) -> Int {
    var answered = 0
    for query in queries {
      let request = ResolvedCriteria(SearchCriteria(text: query), schema: index.schema)
        .request(typos: .off)
      let plan = index.plan(request)
      let slots = index.searchSlots(request, rows: 0).slots
      let full = index.order(index.rank(slots, plan, nearSpellings: false))
      for rows in Set([1, 2, 3, 5, 8, 9, 12, full.count / 2]) where rows > 0 && rows < full.count {
        if let listed = index.leadingRows(slots, plan, rows: rows) {
          #expect(listed == Array(full.prefix(rows)), "\(label): \(query), \(rows) rows")
          answered += 1
        }
        let first = index.firstRows(slots, plan, rows: rows, wholeBelow: 0)
        #expect(first.entries == Array(full.prefix(rows)), "\(label): \(query), \(rows) rows")
      }
    }
    return answered
  }

  @Test("a page read from the lists is the start of the full order, before and after edits")
  func pagesFromTheLists() throws {
    let seed: UInt64 = 2_830
    print("seed \(seed)")
    var random = SplitMix64(seed: seed)
    let schema = RelevanceTests.schema()
    var items = (0..<1_500).map { Self.item($0, using: &random) }
    let built = try FilteredCollection(schema: schema, items: items)
    #expect(built.index.leadingMatches == nil)
    // Lists of nine rows, for every needle that matches: pages both inside and past them.
    let bytes = built.index.archived(leadingRowsKept: 9, leadingMatchesAbove: 0)
    var read = try SearchIndex<ItemID>(archive: bytes, schema: schema)
    // The trigram index read beside it, as a catalog's file gives it: it knows none of the
    // slots added below, so lists made after them must not trust its counts.
    Self.readStoredTrigrams(into: &read, of: built.index)
    let leading = try #require(read.leadingMatches)
    #expect(leading.needles.count > 20)
    #expect(Self.compare(read, "as read") > 50)

    var collection = try FilteredCollection(items, schema: built.searchSchema, index: read)
    var next = items.count
    var answered = 0
    for round in 0..<300 {
      switch Int.random(in: 0..<3, using: &random) {
      case 0:
        let item = Self.item(next, using: &random)
        next += 1
        _ = try collection.add(item)
        items.append(item)
      case 1:
        let position = Int.random(in: 0..<items.count, using: &random)
        var item = Self.item(0, using: &random)
        item = Item(id: items[position].id, fields: item.fields)
        _ = try collection.update(item)
        items[position] = item
      default:
        let position = Int.random(in: 0..<items.count, using: &random)
        _ = try collection.delete(id: items[position].id)
        items.remove(at: position)
      }
      if round % 50 == 49 {
        answered += Self.compare(collection.index, "round \(round)")
      }
    }
    #expect(collection.index.leadingMatches != nil, "compacted: the edits test nothing")
    // After an edit only the finished needles' lists answer: a typed one's ranks weigh each
    // item's place in the popularity order, which the edits move.
    #expect(answered > 40)
    // Archived again, the edited index keeps the lists a fresh build of its items makes.
    let fresh = try FilteredCollection(schema: schema, items: items)
    #expect(
      collection.index.archived(leadingRowsKept: 9, leadingMatchesAbove: 0)
        == fresh.index.archived(leadingRowsKept: 9, leadingMatchesAbove: 0))
  }

  /// Gives `index` the trigram index archived from `source`, read as a catalog's file gives it.
  static func readStoredTrigrams(
    into index: inout SearchIndex<ItemID>, of source: SearchIndex<ItemID>
  ) {
    let trigrams = IndexArchiveTests.Borrowed(source.archivedTrigrams())
    let usesStored = index.useStoredTrigrams(
      UnsafeRawBufferPointer(trigrams.bytes), keptBy: trigrams, checksum: .verify)
    #expect(usesStored)
  }

  @Test("needles only items added since the trigram index was read hold still get their lists")
  func listsForNeedlesOfAddedItems() throws {
    var random = SplitMix64(seed: 2_833)
    let schema = RelevanceTests.schema()
    var items = (0..<300).map { Self.item($0, using: &random) }
    let built = try FilteredCollection(schema: schema, items: items)
    var read = try SearchIndex<ItemID>(
      archive: built.index.archived(leadingRowsKept: 9, leadingMatchesAbove: 0), schema: schema)
    Self.readStoredTrigrams(into: &read, of: built.index)
    var collection = try FilteredCollection(items, schema: built.searchSchema, index: read)
    // Letters the random names never use: "zq" and "zqx" are held by added items only.
    for number in 300..<305 {
      let item = RelevanceTests.item("i\(number)", "zqx \(number)")
      _ = try collection.add(item)
      items.append(item)
    }
    let fresh = try FilteredCollection(schema: schema, items: items)
    #expect(
      collection.index.archived(leadingRowsKept: 9, leadingMatchesAbove: 0)
        == fresh.index.archived(leadingRowsKept: 9, leadingMatchesAbove: 0))
  }

  @Test("a compaction drops the lists, and searches still give the full order")
  func compactionDropsTheLists() throws {
    var random = SplitMix64(seed: 2_831)
    let schema = RelevanceTests.schema()
    let items = (0..<600).map { Self.item($0, using: &random) }
    let built = try FilteredCollection(schema: schema, items: items)
    let read = try SearchIndex<ItemID>(
      archive: built.index.archived(leadingRowsKept: 9, leadingMatchesAbove: 0), schema: schema)
    var collection = try FilteredCollection(items, schema: built.searchSchema, index: read)
    for item in items.prefix(400) { _ = try collection.delete(id: item.id) }
    #expect(collection.index.leadingMatches == nil)
    #expect(Self.compare(collection.index, "compacted") == 0)
  }

  @Test("the lists of a large catalog answer the first keystroke of a search")
  func firstKeystrokeReadsTheList() throws {
    var random = SplitMix64(seed: 2_832)
    let schema = RelevanceTests.schema()
    let items = (0..<6_000).map { Self.item($0, using: &random) }
    let built = try FilteredCollection(schema: schema, items: items)
    // The lists as a catalog keeps them: 256 rows, needles of over 2,048 matches.
    let read = try SearchIndex<ItemID>(archive: built.index.archived(), schema: schema)
    var collection = try FilteredCollection(items, schema: built.searchSchema, index: read)
    var fresh = built
    // Typed and finished ("an "): each has lists of its own, ranked its own way.
    for query in ["a", "b", "an", "-ba a", "a country:fr", "an ", "a -ba"] {
      let request = ResolvedCriteria(SearchCriteria(text: query), schema: schema)
        .request(typos: .off)
      let slots = read.searchSlots(request, rows: 0).slots
      let listed = read.leadingRows(
        slots, read.plan(request), rows: RankedMatches<ItemID>.firstRows)
      if query.contains("country") {
        // A quarter of a 256-row list is not a page: the bounds answer.
        #expect(listed == nil, "\(query)")
      } else {
        #expect(slots.count > 2_048, "\(query): too few matches for a list")
        #expect(listed != nil, "\(query)")
      }
      collection.filter(by: SearchCriteria(text: query))
      fresh.filter(by: SearchCriteria(text: query))
      #expect(Array(collection.rows.prefix(300)) == Array(fresh.rows.prefix(300)), "\(query)")
    }
  }
}
