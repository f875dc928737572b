import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// The trigram index (`TrigramIndex`, `SearchIndex.prepareSubstringSearch()`): terms of three
/// bytes or more check only the slots holding their rarest trigram. It must change nothing but
/// the time: every search equals one on an index that scans.
@Suite("Trigram index", .tags(.unit))
struct TrigramIndexTests {
  static let schema = CatalogSchema(
    name: "places", fields: [.text("title"), .text("aliases"), .number("n"), .category("kind")],
    titleField: "title", categoryField: "kind", rankingField: RankingField("n"))
  static let pieces = [
    "san", "ta", "mo", "sco", "w ", "ri", "o", "đà", "nẵ", "ng", "서울", "東京", "ß", "-", "ka",
  ]

  static func text(_ random: inout SplitMix64) -> String {
    (0..<Int.random(in: 1...6, using: &random)).map { _ in
      pieces.randomElement(using: &random)!
    }.joined()
  }

  static func item(_ id: Int, _ random: inout SplitMix64) -> Item {
    Item(
      id: ItemID(String(id)),
      fields: [
        "title": .text(text(&random)),
        "aliases": .texts((0..<Int.random(in: 0...3, using: &random)).map { _ in text(&random) }),
        "n": .number(Double(Int.random(in: 0...9, using: &random))),
        "kind": .text(["city", "town"].randomElement(using: &random)!),
      ])
  }

  /// A query of one to three terms: substrings of the catalog's text (some across words),
  /// sometimes negated, a phrase, a field or a number.
  static func query(_ items: [Item], _ random: inout SplitMix64) -> String {
    (0..<Int.random(in: 1...3, using: &random)).map { _ in
      let source = Array(items.randomElement(using: &random)!.fields["title"]!.displayText)
      let start = Int.random(in: 0..<source.count, using: &random)
      let length = Int.random(in: 1...max(1, min(7, source.count - start)), using: &random)
      var term = String(source[start..<start + length]).trimmingCharacters(in: .whitespaces)
      if term.isEmpty { term = "sa" }
      switch Int.random(in: 0..<10, using: &random) {
      case 0: return "-\(term)"
      case 1: return "\"\(term)\""
      case 2: return "aliases:\(term)"
      case 3: return String(Int.random(in: 0...9, using: &random))
      default: return term
      }
    }.joined(separator: " ")
  }

  /// Rows and ranks, to compare two collections.
  static func shown(_ collection: FilteredCollection) -> [[Int]] {
    collection.rows.indices.map { row in
      let rank = collection.rank(atRow: row)!
      return [rank.typos, Int(rank.exactness.rawValue), rank.attribute, rank.position]
    }
  }

  @Test(
    "searches with the trigram index equal searches that scan, typed letter by letter, across edits"
  )
  func sameAsScanning() throws {
    let seed: UInt64 = 20_261_123
    print("trigram index property test seed \(seed)")
    var random = SplitMix64(seed: seed)
    var trigramSearches = 0
    var letterSearches = 0
    var bigramSearches = 0
    for round in 0..<40 {
      var next = 0
      let items = (0..<Int.random(in: 1...120, using: &random)).map { _ in
        next += 1
        return Self.item(next, &random)
      }
      var scanning = try FilteredCollection(schema: Self.schema, items: items)
      var indexed = try FilteredCollection(schema: Self.schema, items: items)
      indexed.index.prepareSubstringSearch()
      #expect(indexed.index.substringSearchMemory != nil)
      #expect(scanning.index.substringSearchMemory == nil)
      for step in 0..<12 {
        // Edits after the build: new slots are checked one by one, dead ones skipped; many
        // deletions compact the index, which drops the trigrams until built again.
        for _ in 0..<Int.random(in: 0...8, using: &random) {
          let ids = scanning.allItems.map(\.id)
          switch Int.random(in: 0..<3, using: &random) {
          case 0,
            _ where ids.isEmpty:
            next += 1
            let item = Self.item(next, &random)
            _ = try scanning.add(item)
            _ = try indexed.add(item)
          case 1:
            let changed = Item(
              id: ids.randomElement(using: &random)!, fields: Self.item(0, &random).fields)
            _ = try scanning.update(changed)
            _ = try indexed.update(changed)
          default:
            let id = ids.randomElement(using: &random)!
            _ = try scanning.delete(id: id)
            _ = try indexed.delete(id: id)
          }
        }
        if step % 4 == 0 { indexed.index.prepareSubstringSearch() }
        guard !scanning.allItems.isEmpty else { continue }
        let query = Self.query(scanning.allItems, &random)
        var typed = ""
        for character in query {
          typed.append(character)
          let criteria = SearchCriteria(
            text: typed, tokens: [], scopeIndex: Int.random(in: 0...2, using: &random) == 0 ? 1 : 0)
          scanning.filter(by: criteria)
          indexed.filter(by: criteria)
          if indexed.index.substringSearchMemory != nil, typed.utf8.count >= 3 {
            trigramSearches += 1
          }
          // One letter a–z: answered from the per-item letters beside the trigrams.
          if indexed.index.substringSearchMemory != nil, typed.utf8.count == 1,
            typed.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) })
          {
            letterSearches += 1
          }
          // A term of two bytes: answered from its bigram's slots.
          if indexed.index.substringSearchMemory != nil,
            typed.split(separator: " ").last.map({ $0.utf8.count == 2 }) == true
          {
            bigramSearches += 1
          }
          let same = scanning.rows == indexed.rows && Self.shown(scanning) == Self.shown(indexed)
          #expect(same, "seed \(seed) round \(round) step \(step): \"\(typed)\"")
        }
      }
    }
    #expect(trigramSearches > 500, "only \(trigramSearches) searches could use the trigrams")
    #expect(letterSearches > 50, "only \(letterSearches) one-letter searches")
    #expect(bigramSearches > 100, "only \(bigramSearches) searches ending in two bytes")
  }

  @Test("merging ascending slot lists agrees with sets: a union, and keeping those in either list")
  func listMerges() {
    let seed: UInt64 = 73
    print("list merges seed \(seed)")
    var random = SplitMix64(seed: seed)
    func list() -> [Int32] {
      Set(
        (0..<Int.random(in: 0...40, using: &random)).map { _ in
          Int32.random(in: 0..<100, using: &random)
        }
      ).sorted()
    }
    for _ in 0..<500 {
      let (a, b, c) = (list(), list(), list())
      #expect(SearchIndex<ItemID>.union(a, b) == Set(a).union(b).sorted(), "\(a) \(b)")
      let either = Set(b).union(c)
      for keepingCommon in [true, false] {
        let kept = SearchIndex<ItemID>.merging(
          a, with: b, or: c, keepingCommon: keepingCommon, unlisted: { _ in nil })
        #expect(kept == a.filter { either.contains($0) == keepingCommon }, "\(a) \(b) \(c)")
      }
    }
  }

  @Test(
    "a letter's live slots, found in parts on every core, are those a plain filter finds",
    arguments: [1, 7, 100, 1_000])
  func lettersInParts(minimumPerPart: Int) throws {
    var random = SplitMix64(seed: 78)
    print("letters in parts seed 78")
    let items = (1...400).map { Self.item($0, &random) }
    var collection = try FilteredCollection(schema: Self.schema, items: items)
    let index = collection.index
    let trigrams = TrigramIndex(columns: index.columns, slotCount: index.slotCount)
    // Dead slots too: every third item deleted after the letters were made.
    for item in items.enumerated().filter({ $0.offset % 3 == 1 }).map(\.element) {
      _ = try collection.delete(id: item.id)
    }
    for isLive in [index.isLive, collection.index.isLive] {
      for letter in UInt8(ascii: "a")...UInt8(ascii: "z") {
        let expected = (0..<trigrams.slotCount).filter { slot in
          isLive[slot] && trigrams.slot(slot, holdsLetter: letter)
        }
        #expect(
          trigrams.liveSlots(holdingLetter: letter, isLive: isLive, minimumPerPart: minimumPerPart)
            == expected.map(Int32.init), "\(UnicodeScalar(letter))")
      }
    }
    #expect(trigrams.liveSlots(holdingLetter: UInt8(ascii: "1"), isLive: index.isLive) == nil)
  }

  @Test(
    "a needle's candidates are the slots holding its rarest trigram, which hold every match; two bytes', exactly the slots holding them",
    arguments: [1, 2, 3])
  func candidatesAgainstReference(parts: Int) throws {
    var random = SplitMix64(seed: 77)
    print("trigram candidates seed 77")
    let items = (1...300).map { Self.item($0, &random) }
    let index = try FilteredCollection(schema: Self.schema, items: items).index
    let trigrams = TrigramIndex(columns: index.columns, slotCount: index.slotCount, parts: parts)
    // Per slot, the folded bytes of every text value, apart.
    let values: [[[UInt8]]] = (0..<index.slotCount).map { slot in
      index.columns.flatMap { column in
        column.bytes[column.range(of: slot)].split(separator: 0, omittingEmptySubsequences: true)
          .map(Array.init)
      }
    }
    func holds(_ value: [UInt8], _ needle: ArraySlice<UInt8>) -> Bool {
      value.count >= needle.count
        && (0...(value.count - needle.count)).contains { value[$0..<$0 + needle.count] == needle }
    }
    for _ in 0..<300 {
      let text = Array(TextFolding.fold(Self.text(&random)).utf8)
      let start = Int.random(in: 0..<text.count, using: &random)
      let needle = Array(
        text[start..<min(text.count, start + Int.random(in: 1...9, using: &random))])
      if needle.count == 2 {
        // A bigram's slots are exactly those whose values hold the two bytes.
        let matching = (0..<index.slotCount).filter { slot in
          values[slot].contains { holds($0, needle[...]) }
        }
        #expect(trigrams.candidates(for: needle) == matching.map(Int32.init), "\(needle)")
        #expect(trigrams.candidateCount(for: needle) == matching.count)
        continue
      }
      guard needle.count >= 3 else {
        #expect(trigrams.candidates(for: needle) == nil)
        continue
      }
      let grams = (0...(needle.count - 3)).map { needle[$0..<$0 + 3] }
      let holding = grams.map { gram in
        (0..<index.slotCount).filter { slot in values[slot].contains { holds($0, gram) } }
      }
      let rarest = holding.min { $0.count < $1.count }!
      let candidates = trigrams.candidates(for: needle)!
      #expect(candidates == rarest.map(Int32.init), "\(needle)")
      #expect(trigrams.candidateCount(for: needle) == rarest.count)
      let matching = (0..<index.slotCount).filter { slot in
        values[slot].contains { holds($0, needle[...]) }
      }
      #expect(Set(matching).isSubset(of: Set(rarest)))
    }
  }

  @Test("a trigram index built in 2, 3 or 7 parts is written byte for byte as one built whole")
  func partsWriteTheSameBytes() throws {
    var random = SplitMix64(seed: 79)
    print("trigram parts seed 79")
    let items = (1...500).map { Self.item($0, &random) }
    let index = try FilteredCollection(schema: Self.schema, items: items).index
    func written(parts: Int) -> [UInt8] {
      let trigrams = TrigramIndex(
        columns: index.columns, slotCount: index.slotCount, parts: parts)
      return ArchiveWriter.archive(
        magic: TrigramIndex.magic, version: TrigramIndex.formatVersion, schema: Self.schema,
        sink: nil
      ) { trigrams.write(to: &$0) }
    }
    let whole = written(parts: 1)
    #expect(whole.count > 1_000)
    for parts in [2, 3, 7] { #expect(written(parts: parts) == whole, "\(parts) parts") }
  }
}
