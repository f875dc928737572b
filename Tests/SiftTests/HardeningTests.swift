import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// Issue 6's properties at scale, seeded so every failure reproduces: edit sequences against the
/// reference, restoration from mutated snapshots, and hostile queries end to end in the engine.
@Suite("Hardening", .tags(.unit))
struct HardeningTests {
  typealias Engine = EnginePropertyTests

  @Test(
    "10,000 random edit sequences: rows always equal the reference's", .tags(.large), .notInFastRun)
  func editSequences() throws {
    var random = SplitMix64(seed: 600_613)
    let reference = ReferenceMatcher(schema: Engine.schema)
    var edits = 0
    for sequence in 0..<10_000 {
      var (items, collection, criteria) = try Engine.randomFilteredCatalog(upTo: 6, using: &random)
      var nextID = items.count
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        let before = Array(collection.rows)
        let changes: RowChanges
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
          let item = Engine.randomItem(nextID, using: &random)
          nextID += 1
          items.append(item)
          changes = try collection.add(item)
        case 1 where !items.isEmpty:
          let position = Int.random(in: 0..<items.count, using: &random)
          var item = Engine.randomItem(0, using: &random)
          item.id = items[position].id
          items[position] = item
          changes = try collection.update(item)
        case 2 where !collection.rows.isEmpty:
          let row = Int.random(in: 0..<collection.rows.count, using: &random)
          let id = collection.rows[row]
          items.removeAll { $0.id == id }
          changes = try collection.deleteRow(row)
        default:
          // An edit that must fail changes nothing.
          let unknown = ItemID("missing-\(sequence)")
          #expect(throws: CatalogEditError.unknownID(unknown)) {
            try collection.delete(id: unknown)
          }
          #expect(collection.rows == before)
          continue
        }
        edits += 1
        let expected = reference.rows(items: items, criteria: criteria)
        guard collection.rows == expected else {
          Issue.record("sequence \(sequence): rows \(collection.rows), expected \(expected)")
          return
        }
        #expect(changes.applied(to: before) { collection.rows[$0] } == collection.rows)
      }
    }
    #expect(edits > 10_000)
  }

  @Test(
    "snapshots mutated at random restore or fail cleanly, never leave a broken state",
    .tags(.large), .notInFastRun)
  func mutatedSnapshots() throws {
    var random = SplitMix64(seed: 1_848)
    var base = SearchController(collection: try Fixtures.collection(.media))
    base.send(.focus)
    base.send(.setText("moon -the"))
    base.send(.selectScope(1))
    if let token = base.schema.suggestedTokens.first { base.send(.insertToken(token, at: 0)) }
    if let first = base.rows.first { base.send(.select(first)) }
    let original = Array(base.encodedSnapshot())
    let junk: [[UInt8]] = [
      Array("\"".utf8), Array("{".utf8), Array("}".utf8), Array("null".utf8), Array("99".utf8),
      Array("-1".utf8), Array("1e999".utf8), Array("\\u0000".utf8), [0xFF], [0xC3],
      Array("[]".utf8), Array("\"selectedScopeIndex\":".utf8), Array("true".utf8),
    ]
    var restoredCleanly = 0
    for _ in 0..<3_000 {
      var bytes = original
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        let position = Int.random(in: 0...bytes.count, using: &random)
        switch Int.random(in: 0..<4, using: &random) {
        case 0 where position < bytes.count:
          bytes[position] = UInt8.random(in: 0...255, using: &random)
        case 1 where position < bytes.count: bytes.remove(at: position)
        case 2: bytes.insert(contentsOf: junk.randomElement(using: &random)!, at: position)
        default: bytes = Array(bytes.prefix(position))
        }
      }
      var search = SearchController(collection: try Fixtures.collection(.media))
      let problems = search.restore(from: Data(bytes))
      if problems.isEmpty { restoredCleanly += 1 }
      // Whatever happened, the state is one the controller could have reached by itself.
      #expect(search.schema.scopes.indices.contains(search.selectedScopeIndex))
      #expect(search.rows.allSatisfy { search.collection.item(id: $0) != nil })
      if let selection = search.selection { #expect(search.rows.contains(selection)) }
      var again = search
      #expect(again.restore(from: search.encodedSnapshot()).isEmpty, "a state it made restores")
      #expect(again.rows == search.rows)
    }
    #expect(restoredCleanly > 0 && restoredCleanly < 3_000)
  }

  /// Queries nobody should type, each through both parser doors, a search of a real catalog and
  /// highlighting of every row shown.
  static let hostileQueries: [(name: String, text: String)] = [
    ("1 MB of letters", String(repeating: "a", count: 1 << 20)),
    ("1 MB of quotes", String(repeating: "\"", count: 1 << 20)),
    ("5,000 terms", (0..<5_000).map { "t\($0)" }.joined(separator: " ")),
    ("5,000 negations", String(repeating: "-x ", count: 5_000)),
    ("5,000 fields", String(repeating: "year:2000..2010 ", count: 5_000)),
    ("unbalanced quotes", "\"red rose -\"\" \"\"\""),
    ("lone operators", "- : .. < <= > >= = -- :: ...."),
    ("invalid number filters", "year:abc price:<x year:1..2..3 year:>=1e999 price:NaN year:--5"),
    ("control characters", "\u{0}\u{1}\u{7}\u{8}\u{1B}[2J\u{1B}]0;title\u{7}\u{7F}\u{85}\u{9B}"),
    ("bidi overrides", "\u{202E}esor der\u{202C} \u{2066}a\u{2069} \u{200F}"),
    ("emoji and joiners", "🏳️‍🌈 👍🏽 👨‍👩‍👧‍👦 \u{200D}\u{200D} \u{FE0F}"),
    ("combining marks alone", String(repeating: "\u{301}", count: 10_000)),
    ("lone surrogate-like text", "\u{FFFD}\u{FFFF}\u{10FFFF}"),
    ("huge number", "year:" + String(repeating: "9", count: 10_000)),
  ]

  @Test("hostile queries: no trap, sane results, diagnostics where useful")
  func hostileQueries() throws {
    let base = try Fixtures.activeController(.media)
    for (name, text) in Self.hostileQueries {
      let query = Query(parsing: text, schema: base.schema)
      for diagnostic in query.diagnostics {
        #expect(diagnostic.range.upperBound <= text.count, "\(name)")
      }
      _ = try? Query(validating: text, schema: base.schema)
      var search = base
      search.send(.setText(text))
      #expect(Set(search.rows).count == search.rows.count, "\(name): each item once")
      #expect(
        search.rows.allSatisfy { search.collection.item(id: $0) != nil }, "\(name): live items")
      for row in search.rows.indices.prefix(20) {
        guard let item = search.collection.item(atRow: row),
          let title = item[search.schema.titleField]?.displayText
        else { continue }
        for range in search.collection.highlightRanges(
          in: title, field: search.schema.titleField, of: item)
        {
          #expect(range.lowerBound >= title.startIndex && range.upperBound <= title.endIndex)
        }
      }
    }
    // Useful diagnostics: an invalid number filter and an unclosed quote are named.
    let numbers = Query(parsing: "year:abc", schema: base.schema)
    #expect(!numbers.diagnostics.isEmpty)
    let quote = Query(parsing: "\"red rose", schema: base.schema)
    #expect(!quote.diagnostics.isEmpty)
    #expect(throws: QueryError.self) { try Query(validating: "year:abc", schema: base.schema) }
  }

  @Test("a 100,000-character field is indexed, found, highlighted and folded whole")
  func hugeField() throws {
    let long = String(repeating: "Đà Nẵng ", count: 12_500) + "needle"
    let items = [
      Item(id: "long", fields: ["title": .text(long), "tags": .texts([long, "x"])]),
      Item(id: "short", fields: ["title": .text("short")]),
    ]
    var collection = try FilteredCollection(schema: Engine.schema, items: items)
    collection.filter(by: SearchCriteria(text: "needle"))
    #expect(collection.rows == ["long"])
    collection.filter(by: SearchCriteria(text: "da nang needle"))
    #expect(collection.rows == ["long"])
    let ranges = collection.highlightRanges(in: long, field: "title", of: items[0])
    #expect(ranges.count == 25_001, "Đà and Nẵng of every copy, then the needle")
    #expect(ranges.last.map { String(long[$0]) } == "needle")
  }
}

@Suite("Index memory", .tags(.unit))
struct IndexMemoryTests {
  static let items = [
    Item(id: "1", fields: ["title": .text("Straße"), "tags": .texts(["서울", "ab"])]),
    Item(id: "2", fields: ["title": .text("Đà"), "year": .number(2007)]),
  ]

  @Test("counts the raw text and the folded buffers, folded value by value")
  func counts() throws {
    let memory = try FilteredCollection(schema: EnginePropertyTests.schema, items: Self.items)
      .memory
    // Raw: "Straße" 7 + "서울" 6 + "ab" 2 + "Đà" 4 (the unsearchable note field has none here).
    #expect(memory.rawTextBytes == 19)
    // Every folded value and its separator, plus the readings of the tags: "서울"'s marker,
    // initial-consonant key and separator, and an empty entry for "ab" (an entry a value).
    let values = ["Straße", "서울", "ab", "Đà"]
    let folded =
      values.reduce(0) { $0 + TextFolding.fold($1).utf8.count + 1 }
      + 1 + TextFolding.initialConsonants(of: "서울")!.utf8.count + 1 + 1
    #expect(memory.foldedTextBytes == folded)
    #expect(memory.slots == 2)
  }

  @Test("keeps no copy of fields it does not search: a long unsearched note costs it nothing")
  func unsearchedFieldsCostNothing() throws {
    let schema = EnginePropertyTests.schema
    #expect(schema.fields.contains { $0.name == "note" && !$0.isSearchable && $0.kind == .text })
    let short = Self.items.map { item -> Item in
      var item = item
      item["note"] = .text("n")
      return item
    }
    let long = short.map { item -> Item in
      var item = item
      item["note"] = .text(String(repeating: "a long note ", count: 1000))
      return item
    }
    let small = try FilteredCollection(schema: schema, items: short).index.memory
    let large = try FilteredCollection(schema: schema, items: long).index.memory
    // Unsearchable text is still folded (highlighting and `note:` filters read it), but per
    // slot the index holds the same offsets, order and numbers whatever the fields hold.
    #expect(small.bytesPerSlot == large.bytesPerSlot)
    #expect(large.foldedTextBytes - small.foldedTextBytes == 2 * (12_000 - 1))
  }
}
