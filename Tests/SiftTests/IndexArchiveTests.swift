import SiftTestSupport
import Testing

@testable import Sift

/// The index as bytes (`SearchIndex.archived()`, `SearchIndex(archive:schema:)`): what a
/// catalog file keeps so that opening does not fold every item again.
@Suite("Index archive", .tags(.unit))
struct IndexArchiveTests {
  static let queries = [
    "", "rose", "r", "red rose", "choc", "2010", "carmel", "서울", "-rose", "a b",
  ]

  @Test(
    "an archive reads back to an index that archives the same and finds the same rows",
    arguments: SeedCatalog.allCases)
  func roundTrip(catalog: SeedCatalog) throws {
    let document = try catalog.load()
    let built = try document.makeCollection()
    let bytes = built.index.archived()
    let read = try SearchIndex<ItemID>(archive: bytes, schema: document.schema)
    #expect(read.archived() == bytes)
    var reopened = try FilteredCollection(
      document.items, schema: built.searchSchema, index: read)
    var fresh = built
    for query in Self.queries {
      let criteria = SearchCriteria(text: query, tokens: [], scopeIndex: 0)
      reopened.filter(by: criteria)
      fresh.filter(by: criteria)
      #expect(reopened.rows == fresh.rows, "\(query)")
    }
  }

  @Test(
    "an archive handed to a sink a megabyte at a time is the one made in memory, seal and all",
    arguments: [31, 32, 33])
  func sinkMatchesMemory(seed: UInt64) throws {
    print("seed \(seed)")
    var random = SplitMix64(seed: seed)
    let schema = try SeedCatalog.products.load().schema
    // Writes of every size, some past a seal chunk and some ending exactly on one.
    let chunk = Checksum.sealChunk
    let sizes = (0..<24).map { _ -> Int in
      switch random.next() % 4 {
      case 0: Int(random.next() % 16)
      case 1: Int(random.next() % 70_000)
      case 2: chunk - 8 - Int(random.next() % 2)
      default: Int(random.next() % UInt64(3 * chunk))
      }
    }
    let arrays = sizes.map { size in (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) }
    }
    func write(_ writer: inout ArchiveWriter) {
      for (index, array) in arrays.enumerated() {
        writer.append(UInt32(index))
        writer.appendArray(array)
        writer.appendStrings(["é", String(index)])
      }
    }
    let inMemory = ArchiveWriter.archive(
      magic: IndexArchive.magic, version: 1, schema: schema, sink: nil, write)
    final class Collected: @unchecked Sendable { var bytes: [UInt8] = []; var calls = 0 }
    let collected = Collected()
    let none = ArchiveWriter.archive(
      magic: IndexArchive.magic, version: 1, schema: schema,
      sink: {
        collected.bytes.append(contentsOf: $0)
        collected.calls += 1
      }, write)
    #expect(none.isEmpty)
    #expect(collected.bytes == inMemory)
    #expect(collected.calls >= inMemory.count / chunk)
    #expect(inMemory.withUnsafeBytes { IndexArchive.checksumAgrees($0) })
  }

  /// Bytes someone else owns, as a mapped file is: aligned, alive as long as the object.
  final class Borrowed: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer

    init(_ contents: [UInt8]) {
      bytes = .allocate(byteCount: contents.count, alignment: 16)
      contents.withUnsafeBytes { bytes.copyMemory(from: $0) }
    }

    deinit { bytes.deallocate() }
  }

  @Test(
    "an index borrowing its archive's bytes searches and edits as one that copied them, and never writes them",
    arguments: [21, 22])
  func borrowed(seed: UInt64) throws {
    print("seed \(seed)")
    var random = SplitMix64(seed: seed)
    let document = try SeedCatalog.products.load()
    let bytes = try document.makeCollection().index.archived()
    let owner = Borrowed(bytes)
    let borrowed = try SearchIndex<ItemID>(
      borrowing: UnsafeRawBufferPointer(owner.bytes), keptBy: owner, checksum: .verify,
      schema: document.schema)
    #expect(borrowed.columns.allSatisfy { $0.bytes.isBorrowed && $0.starts.isBorrowed })
    let schema = try SearchSchema<Item>(document.schema)
    var onBorrowed = try FilteredCollection(document.items, schema: schema, index: borrowed)
    var onCopied = try FilteredCollection(
      document.items, schema: schema,
      index: try SearchIndex<ItemID>(archive: bytes, schema: document.schema))
    for step in 0..<120 {
      let ids = onCopied.allItems.map(\.id)
      let fields: [String: FieldValue] = [
        "title": .text(["Rose", "Lily \(step)", "서울", "Candle"].randomElement(using: &random)!),
        "year": .number(Double(Int.random(in: 1990...2024, using: &random))),
      ]
      switch Int.random(in: 0..<3, using: &random) {
      case 0:
        let item = Item(id: ItemID("b\(step)"), fields: fields)
        try onBorrowed.add(item)
        try onCopied.add(item)
      case 1:
        let item = Item(id: ids.randomElement(using: &random)!, fields: fields)
        try onBorrowed.update(item)
        try onCopied.update(item)
      default:
        let id = ids.randomElement(using: &random)!
        try onBorrowed.delete(id: id)
        try onCopied.delete(id: id)
      }
      let query = Self.queries.randomElement(using: &random)!
      let criteria = SearchCriteria(text: query, tokens: [], scopeIndex: 0)
      onBorrowed.filter(by: criteria)
      onCopied.filter(by: criteria)
      #expect(onBorrowed.rows == onCopied.rows, "step \(step): \(query)")
    }
    #expect(onBorrowed.index.archived() == onCopied.index.archived())
    #expect(Array(owner.bytes) == bytes, "the borrowed bytes were written")
  }

  /// Random edits, then the archive of the edited index must equal, byte for byte, the archive
  /// of an index built from scratch over the same items.
  @Test(
    "an index kept current by edits archives to the bytes of a fresh build", arguments: [7, 8, 9])
  func editsThenArchive(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let document = try SeedCatalog.products.load()
    var collection = try document.makeCollection()
    let words = ["Rose", "Red", "서울", "Lily", "Đà Nẵng", "Candle", "Tulip"]
    var next = 1000
    // Enough edits to force compactions (more dead slots than live ones).
    for _ in 0..<400 {
      let ids = collection.allItems.map(\.id)
      let fields: [String: FieldValue] = [
        "title": .text(
          (0..<Int.random(in: 1...3, using: &random)).map { _ in
            words.randomElement(using: &random)!
          }.joined(separator: " ")),
        "year": .number(Double(Int.random(in: 1990...2025, using: &random))),
        "type": .text(
          ["Birthdays", "Weddings", "Funerals", "Gifts"].randomElement(using: &random)!),
      ]
      switch Int.random(in: 0..<3, using: &random) {
      case 0 where ids.count < 40, 1 where ids.isEmpty:
        next += 1
        try collection.add(Item(id: ItemID(String(next)), fields: fields))
      case 0, 1:
        try collection.update(Item(id: ids.randomElement(using: &random)!, fields: fields))
      default:
        if let id = ids.randomElement(using: &random) { try collection.delete(id: id) }
      }
    }
    let fresh = try CatalogDocument(schema: document.schema, items: collection.allItems)
      .makeCollection()
    #expect(collection.index.archived() == fresh.index.archived())
  }

  /// `archive` changed by `change` and sealed again, as Sift seals: whole, but not as written.
  static func resealed(_ archive: [UInt8], _ change: (inout [UInt8]) -> Void) -> [UInt8] {
    var bytes = Array(archive.dropLast(8))
    change(&bytes)
    // FNV-1a in four lanes over 32-byte blocks, the rest in a fifth, folded together; an
    // archive's seal is that of each megabyte, then of those checksums in order.
    func fnv(_ bytes: [UInt8]) -> UInt64 {
      let prime: UInt64 = 0x100_0000_01b3
      var lanes: [UInt64] = [
        0xcbf2_9ce4_8422_2325, 0x8422_2325_cbf2_9ce4, 0x9ce4_8422_2325_cbf2,
        0x2325_cbf2_9ce4_8422,
      ]
      var tail: UInt64 = 0
      let words = stride(from: 0, to: bytes.count / 8 * 8, by: 8).map { offset in
        bytes[offset..<offset + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      }
      let blockWords = bytes.count / 32 * 4
      for (index, word) in words.enumerated() {
        if index < blockWords {
          lanes[index % 4] = (lanes[index % 4] ^ word) &* prime
        } else {
          tail = (tail ^ word) &* prime
        }
      }
      for byte in bytes[(bytes.count / 8 * 8)...] { tail = (tail ^ UInt64(byte)) &* prime }
      return lanes.reduce(tail) { ($0 ^ $1) &* prime }
    }
    let chunk = 1 << 20
    let chunkSums = stride(from: 0, to: bytes.count, by: chunk).flatMap { start in
      withUnsafeBytes(
        of: fnv(Array(bytes[start..<min(bytes.count, start + chunk)])).littleEndian, Array.init)
    }
    let checksum = fnv(chunkSums)
    return bytes + withUnsafeBytes(of: checksum.littleEndian, Array.init)
  }

  /// Where `values`, little-endian, lie in `body` at a multiple of 8 bytes (where an archive
  /// puts an array).
  static func offset<T: FixedWidthInteger>(of values: [T], in body: [UInt8]) -> Int? {
    let pattern = values.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }
    guard !pattern.isEmpty else { return nil }
    return stride(from: 0, through: body.count - pattern.count, by: 8).first {
      body[$0..<($0 + pattern.count)].elementsEqual(pattern)
    }
  }

  @Test("cut, altered or foreign bytes are refused, never searched", arguments: [11, 12])
  func damage(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let document = try SeedCatalog.media.load()
    let bytes = try document.makeCollection().index.archived()
    for _ in 0..<200 {
      var damaged = bytes
      if Bool.random(using: &random) {
        damaged.removeLast(Int.random(in: 1..<bytes.count, using: &random))
      } else {
        let at = Int.random(in: 0..<bytes.count, using: &random)
        damaged[at] ^= UInt8.random(in: 1...255, using: &random)
      }
      #expect(throws: IndexArchive.Failure.self) {
        _ = try SearchIndex<ItemID>(archive: damaged, schema: document.schema)
      }
    }
    var otherSchema = document.schema
    otherSchema.fields.append(.number("rating"))
    #expect(throws: IndexArchive.Failure.otherSchema) {
      _ = try SearchIndex<ItemID>(archive: bytes, schema: otherSchema)
    }
    #expect(throws: IndexArchive.Failure.notAnArchive) {
      _ = try SearchIndex<ItemID>(archive: Array("SQLite format 3".utf8), schema: document.schema)
    }
    // Whole and unaltered, but folded by another table (an older Sift's) or of format 1: the
    // checksum agrees, the header does not.
    func resealed(_ change: (inout [UInt8]) -> Void) -> [UInt8] { Self.resealed(bytes, change) }
    // Magic (6 bytes), version (2), the schema's fingerprint (8), the folding table's (8).
    #expect(throws: IndexArchive.Failure.otherFolding) {
      _ = try SearchIndex<ItemID>(
        archive: resealed { $0[16] ^= 1 }, schema: document.schema)
    }
    #expect(throws: IndexArchive.Failure.otherVersion(1)) {
      _ = try SearchIndex<ItemID>(
        archive: resealed {
          $0[6] = 1; $0[7] = 0
        }, schema: document.schema)
    }
    #expect(try SearchIndex<ItemID>(archive: resealed { _ in }, schema: document.schema).count > 0)
    // Sealed, but two slots' positions in the popularity order swapped: the order and the
    // positions must agree, or ranking could read out of bounds.
    let index = try SearchIndex<ItemID>(archive: bytes, schema: document.schema)
    #expect(throws: IndexArchive.Failure.damaged("popularity order")) {
      _ = try SearchIndex<ItemID>(
        archive: resealed { body in
          let at = try! #require(Self.offset(of: Array(index.popularityRanks), in: body))
          let (a, b) = (Array(body[at..<(at + 4)]), Array(body[(at + 4)..<(at + 8)]))
          #expect(a != b)
          body.replaceSubrange(at..<(at + 8), with: b + a)
        }, schema: document.schema)
    }
    // Sealed, but a kept first match names a slot past the last: refused the same way.
    let listed = try document.makeCollection().index.archived(
      leadingRowsKept: 9, leadingMatchesAbove: 0)
    let slots = try #require(
      try SearchIndex<ItemID>(archive: listed, schema: document.schema).leadingMatches?.slots)
    #expect(!slots.isEmpty)
    #expect(throws: IndexArchive.Failure.damaged("leading matches")) {
      _ = try SearchIndex<ItemID>(
        archive: Self.resealed(listed) { body in
          let at = try! #require(Self.offset(of: Array(slots), in: body))
          body.replaceSubrange(
            at..<(at + 4), with: withUnsafeBytes(of: Int32(index.count).littleEndian, Array.init))
        }, schema: document.schema)
    }
  }

  /// An index read from an archive finds its ids' slots on first use (not on open): copies made
  /// before that must still look up on their own, edits to one unseen by the others, and
  /// threads looking up at once must agree.
  @Test("copies of an index read from an archive keep their own ids, looked up from many threads")
  func idsLookedUpWhenFirstAsked() async throws {
    let document = try SeedCatalog.products.load()
    let built = try document.makeCollection()
    let read = try SearchIndex<ItemID>(archive: built.index.archived(), schema: document.schema)
    let ids = document.items.map(\.id)
    let untouched = try FilteredCollection(document.items, schema: built.searchSchema, index: read)
    var edited = untouched
    _ = try edited.delete(id: ids[0])
    _ = try edited.add(Item(id: "new-one", fields: ["title": .text("Rose")]))
    #expect(!edited.contains(id: ids[0]) && edited.contains(id: "new-one"))
    #expect(untouched.contains(id: ids[0]) && !untouched.contains(id: "new-one"))
    let fresh = try SearchIndex<ItemID>(archive: built.index.archived(), schema: document.schema)
    let found = await withTaskGroup(of: Int.self) { group in
      for _ in 0..<8 { group.addTask { ids.count { fresh.contains(id: $0) } } }
      return await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(found == Array(repeating: ids.count, count: 8))
    #expect(!fresh.contains(id: "new-one"))
  }
}
