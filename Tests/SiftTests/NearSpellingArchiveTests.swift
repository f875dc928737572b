import SiftTestSupport
import Testing

@testable import Sift

/// The near-spelling dictionaries as bytes (`archivedNearSpellings()`, `readNearSpellings`):
/// what a catalog file keeps beside the index so that the first misspelt search reads them
/// instead of reading every word.
@Suite("Near-spelling archive", .tags(.unit))
struct NearSpellingArchiveTests {
  static let schema = CatalogSchema(
    name: "words", fields: [.text("title"), .text("tags"), .number("n")], titleField: "title",
    rankingField: RankingField("n"))
  static let syllables = ["ka", "ro", "mi", "sa", "to", "ля", "né", "ri", "o", "s"]

  static func word(_ random: inout SplitMix64) -> String {
    (0..<Int.random(in: 2...4, using: &random)).map { _ in
      syllables.randomElement(using: &random)!
    }.joined()
  }

  static func item(_ id: Int, _ random: inout SplitMix64) -> Item {
    Item(
      id: ItemID(String(id)),
      fields: [
        "title": .text(
          (0..<Int.random(in: 1...3, using: &random)).map { _ in word(&random) }
            .joined(separator: " ")),
        "tags": .texts((0..<Int.random(in: 0...2, using: &random)).map { _ in word(&random) }),
        "n": .number(Double(Int.random(in: 0...5, using: &random))),
      ])
  }

  /// A word of the catalog with one letter changed, dropped or doubled.
  static func misspelt(_ word: String, _ random: inout SplitMix64) -> String {
    var letters = Array(word)
    let at = Int.random(in: 0..<letters.count, using: &random)
    switch Int.random(in: 0..<3, using: &random) {
    case 0 where letters.count > 4: letters.remove(at: at)
    case 1: letters.insert(letters[at], at: at)
    default: letters[at] = at == 0 ? "z" : "k"
    }
    return String(letters)
  }

  /// An index read from an archive, its dictionaries to be read from `bytes`.
  static func reopened(
    _ collection: FilteredCollection, nearSpellings bytes: [UInt8]
  ) throws -> FilteredCollection {
    var index = try SearchIndex<ItemID>(
      archive: collection.index.archived(), schema: collection.index.schema)
    #expect(index.readNearSpellings { read in bytes.withUnsafeBytes { read($0) } })
    return try FilteredCollection(
      collection.allItems, schema: collection.searchSchema, index: index)
  }

  @Test("dictionaries borrowed from mapped bytes are not copied and find what a fresh build finds")
  func borrowed() throws {
    var random = SplitMix64(seed: 104)
    print("near-spelling archive seed 104")
    let items = (1...300).map { Self.item($0, &random) }
    let built = try FilteredCollection(schema: Self.schema, items: items)
    let owner = IndexArchiveTests.Borrowed(built.index.archivedNearSpellings())
    var index = try SearchIndex<ItemID>(
      archive: built.index.archived(), schema: built.index.schema)
    let registered = index.readNearSpellings(borrowingWhenNeeded: {
      (UnsafeRawBufferPointer(owner.bytes), owner, .verify)
    })
    #expect(registered)
    var read = try FilteredCollection(built.allItems, schema: built.searchSchema, index: index)
    var fresh = built
    for item in items.prefix(40) {
      guard case .text(let title) = item["title"] else { continue }
      let query = Self.misspelt(String(title.split(separator: " ")[0]), &random)
      let criteria = SearchCriteria(text: query, tokens: [], scopeIndex: 0)
      read.filter(by: criteria)
      fresh.filter(by: criteria)
      #expect(read.rows == fresh.rows, "\(query)")
    }
    let dictionaries = read.index.typoDictionaries.all
    #expect(!dictionaries.isEmpty && dictionaries.allSatisfy(\.wasStored))
    #expect(dictionaries.allSatisfy { $0.words.isBorrowed && $0.postings.isBorrowed })
  }

  @Test(
    "dictionaries read back equal a fresh build, before and after edits, and find the same near spellings",
    arguments: [101, 102, 103] as [UInt64])
  func roundTrip(seed: UInt64) throws {
    print("near-spelling archive seed \(seed)")
    var random = SplitMix64(seed: seed)
    var next = 0
    let items = (0..<300).map { _ in
      next += 1
      return Self.item(next, &random)
    }
    let built = try FilteredCollection(schema: Self.schema, items: items)
    let bytes = built.index.archivedNearSpellings()
    var read = try Self.reopened(built, nearSpellings: bytes)
    var fresh = built
    var nearQueries = 0
    read.index.prepareNearSpellings()
    #expect(read.index.nearSpellingMemory.wereStored)
    let readsBack = read.index.archivedNearSpellings() == bytes
    #expect(readsBack, "seed \(seed): the read dictionaries archive to other bytes")
    // The same edits on both; the read one keeps its dictionaries (and checks new slots one by
    // one), the fresh one built its own before the edits.
    for step in 0..<60 {
      let ids = fresh.allItems.map(\.id)
      switch Int.random(in: 0..<3, using: &random) {
      case 0:
        next += 1
        let item = Self.item(next, &random)
        _ = try read.add(item)
        _ = try fresh.add(item)
      case 1:
        let item = Self.item(0, &random)
        let changed = Item(id: ids.randomElement(using: &random)!, fields: item.fields)
        _ = try read.update(changed)
        _ = try fresh.update(changed)
      default:
        let id = ids.randomElement(using: &random)!
        _ = try read.delete(id: id)
        _ = try fresh.delete(id: id)
      }
      if step % 6 == 0 {
        // A word of some item, misspelt; sometimes after a correct one.
        let title = fresh.allItems.randomElement(using: &random)!.fields["title"]!.displayText
        let target = Self.misspelt(String(title.split(separator: " ")[0]), &random)
        let query = Bool.random(using: &random) ? "\(Self.word(&random)) \(target)" : target
        read.filter(by: SearchCriteria(text: query))
        fresh.filter(by: SearchCriteria(text: query))
        #expect(read.rows == fresh.rows, "seed \(seed) step \(step): \(query)")
        #expect(read.includesNearSpellings == fresh.includesNearSpellings)
        if fresh.includesNearSpellings && !fresh.rows.isEmpty { nearQueries += 1 }
      }
    }
    #expect(nearQueries >= 3, "only \(nearQueries) of 10 queries showed near spellings")
    // After edits the slots are numbered otherwise: the archive of the edited index equals
    // that of a fresh build of the same items, byte for byte.
    let rebuilt = try FilteredCollection(schema: Self.schema, items: read.allItems)
    let sameAsFresh = read.index.archivedNearSpellings() == rebuilt.index.archivedNearSpellings()
    #expect(sameAsFresh, "seed \(seed): after edits, other bytes than a fresh build")
  }

  @Test("a misspelt query finds its word through dictionaries read from bytes")
  func findsThroughStored() throws {
    var random = SplitMix64(seed: 7)
    var items = (1...50).map { Self.item($0, &random) }
    items.append(Item(id: "lisbon", fields: ["title": .text("Lisbon"), "n": .number(1)]))
    let built = try FilteredCollection(schema: Self.schema, items: items)
    var read = try Self.reopened(built, nearSpellings: built.index.archivedNearSpellings())
    read.filter(by: SearchCriteria(text: "lisbn"))
    #expect(read.rows == ["lisbon"])
    #expect(read.includesNearSpellings)
    #expect(read.index.nearSpellingMemory.wereStored)
  }

  @Test("cut, altered or foreign bytes are not read: the dictionaries are built, results unchanged")
  func damage() throws {
    let seed: UInt64 = 4242
    print("near-spelling damage seed \(seed)")
    var random = SplitMix64(seed: seed)
    let items = (1...80).map { Self.item($0, &random) }
    let built = try FilteredCollection(schema: Self.schema, items: items)
    let bytes = built.index.archivedNearSpellings()
    let otherSchema = CatalogSchema(
      name: "words", fields: [.text("title"), .text("tags"), .number("n"), .number("m")],
      titleField: "title", rankingField: RankingField("n"))
    let foreign = try FilteredCollection(schema: otherSchema, items: items).index
      .archivedNearSpellings()
    let query = Self.misspelt(
      String(items[3].fields["title"]!.displayText.split(separator: " ")[0]), &random)
    var expected = built
    expected.filter(by: SearchCriteria(text: query))
    for round in 0..<150 {
      var damaged = round == 0 ? foreign : bytes
      if round > 0 {
        if Bool.random(using: &random) {
          damaged.removeLast(Int.random(in: 1..<bytes.count, using: &random))
        } else {
          damaged[Int.random(in: 0..<bytes.count, using: &random)] ^=
            1
            << UInt8.random(
              in: 0..<8, using: &random)
        }
      }
      var read = try Self.reopened(built, nearSpellings: damaged)
      read.filter(by: SearchCriteria(text: query))
      #expect(!read.index.nearSpellingMemory.wereStored, "seed \(seed) round \(round)")
      #expect(read.rows == expected.rows, "seed \(seed) round \(round)")
    }
  }
}
