/// A catalog's index as bytes, so that a catalog file can keep what the engine searches and an
/// open reads it back instead of folding every item again.
///
/// The archive is *canonical*: it holds the live items in catalog order, numbered afresh, with
/// categories numbered by first appearance — exactly what a fresh build of the same items
/// holds. So an index kept current through any sequence of edits archives to the same bytes as
/// one built from scratch, which is how its correctness is tested. It ends with a checksum:
/// truncated or altered bytes are refused, never searched.
///
/// Layout (little-endian): magic "SIFTIX", format version (u16), the schema's fingerprint
/// (u64), the folding table's fingerprint (u64: text folded by another table must be folded
/// again), the item count, then the ids, per text field the folded bytes, slot starts, readings
/// (`Readings`) and summaries, per number field the values, the category names (folded, then
/// as spelt), the lists of several values and each item's category, the popularity order and each slot's position in it, the lists of
/// `LeadingMatches`, and a 64-bit checksum of everything before it.
package enum IndexArchive {
  /// Raised when the format changes; an archive of another version is refused (and rebuilt).
  /// Version 2 added the folding table's fingerprint; version 3 aligns every array to 8 bytes
  /// (so a mapped archive is read in place) and checksums in four lanes; version 4 keeps each
  /// slot's position in the popularity order, so that opening computes nothing per item;
  /// version 5 keeps the first matches of short needles (`LeadingMatches`); version 6 has the
  /// same layout, but its lists were ranked with the attribute of the value that decides
  /// exactness (issue 29), so a list of version 5 is in another order; version 7 ranks its
  /// lists as a word still being typed ranks (`MatchRequest.isTyping`); version 8's lists break
  /// ties of equal values by their agreement (`MatchRank.agreement`, issue 52); version 9 keeps
  /// each category value's spelling and the lists of values an item in several holds; version
  /// 10's lists rank by issue 68's rules (a magnitude is a place in the popularity order, a
  /// match inside a word comes after every word start, names before describing fields).
  /// An archive of a schema with a vector keeps each slot's vector (`VectorColumn`: floats,
  /// bytes, scales) after the popularity order; the schema's fingerprint names the vector and
  /// its byte copy, so the format stays 10. Version 11 reads Han characters by pinyin and kana
  /// by romaji beside Hangul's initials, each value's readings after a marker of their kind,
  /// and ranks its lists with them.
  static let formatVersion: UInt16 = 11
  static let magic: [UInt8] = Array("SIFTIX".utf8)

  /// Why archived bytes were not read; the caller builds the index from the items instead.
  package enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
    case notAnArchive
    case otherVersion(UInt16)
    /// The archive was made for another schema (fields added or changed since).
    case otherSchema
    /// The archive's text was folded by another folding table (a Sift that folds more scripts).
    case otherFolding
    /// Cut short, or bytes changed since it was written (the checksum disagrees).
    case damaged(String)

    package var description: String {
      switch self {
      case .notAnArchive: "not an index archive"
      case .otherVersion(let version):
        "an index archive of format \(version) (this Sift reads \(IndexArchive.formatVersion))"
      case .otherSchema: "an index archive made for another schema"
      case .otherFolding: "an index archive folded by another version of Sift's folding"
      case .damaged(let reason): "a damaged index archive (\(reason))"
      }
    }
  }

  /// A fingerprint of the parts of a schema the index depends on.
  static func fingerprint(of schema: CatalogSchema) -> UInt64 {
    var text = "\(schema.titleField)|\(schema.categoryField ?? "")|"
    text += schema.rankingField.map { "\($0.field):\($0.isAscending)" } ?? ""
    // The raw value is the case's name, as interpolating the kind gave, without the run-time
    // conformance lookups `String(describing:)` makes (a one-shot `sift search` pays them).
    for field in schema.fields { text += "|\(field.name):\(field.kind.rawValue)" }
    if let vector = schema.vector { text += "|vector:\(vector.field):\(vector.dimensions):int8" }
    return Checksum.of(Array(text.utf8))
  }

  /// A fingerprint of the folding table (the mappings outside ASCII and Hangul, which are
  /// computed): an archive folded with another table must not be searched with this one.
  static let foldingFingerprint: UInt64 = Checksum.of(
    Array((FoldingTable.source + TextFolding.rulesRevision).utf8))
}

extension SearchIndex where ID == ItemID {
  /// The index as canonical archive bytes (see `IndexArchive`).
  ///
  /// - Complexity: O(*n*) in the items and their folded text.
  package func archived() -> [UInt8] {
    archived(
      leadingRowsKept: LeadingMatches.rowsKept, leadingMatchesAbove: LeadingMatches.matchesAbove)
  }

  /// `archived()` handed to `sink` as it is made, never whole in memory.
  package func writeArchive(to sink: @escaping ArchiveSink) {
    _ = archived(
      leadingRowsKept: LeadingMatches.rowsKept, leadingMatchesAbove: LeadingMatches.matchesAbove,
      sink: sink)
  }

  /// `archived()` with lists of `LeadingMatches` kept as asked (tests keep short ones); empty
  /// when handed to a `sink`.
  func archived(
    leadingRowsKept: Int, leadingMatchesAbove: Int, sink: ArchiveSink? = nil
  ) -> [UInt8] {
    ArchiveWriter.archive(
      magic: IndexArchive.magic, version: IndexArchive.formatVersion, schema: schema, sink: sink
    ) { writer in
      write(to: &writer, leadingRowsKept: leadingRowsKept, leadingMatchesAbove: leadingMatchesAbove)
    }
  }

  private func write(
    to writer: inout ArchiveWriter, leadingRowsKept: Int, leadingMatchesAbove: Int
  ) {
    let keep = orderedLiveSlots()
    var newSlot = [Int32](repeating: -1, count: slotCount)
    for (position, slot) in keep.enumerated() { newSlot[slot] = Int32(position) }
    writer.append(UInt64(keep.count))
    // The ids as a column (UTF-8 bytes back to back, then where each starts), so that reading
    // one does not read them all.
    var idBytes: [UInt8] = []
    var idStarts: [UInt32] = [0]
    idStarts.reserveCapacity(keep.count + 1)
    for slot in keep {
      idBytes.append(contentsOf: ids[slot].rawValue.utf8)
      idStarts.append(UInt32(truncatingIfNeeded: idBytes.count))
    }
    writer.appendArray(idBytes)
    writer.appendArray(idStarts)
    // Every slot live and in catalog order (a new catalog's import): the columns are written
    // as they are, not copied first (the copies held 24-48 MB more at four times the cities).
    let isCanonical = keep.count == slotCount && keep.elementsEqual(0..<slotCount)
    func kept(_ column: FoldedColumn) -> FoldedColumn {
      isCanonical ? column : column.compacted(keeping: keep)
    }
    for field in textFields.indices {
      let column = kept(columns[field])
      writer.appendArray(column.bytes)
      writer.appendArray(column.starts)
      // Readings only where some item has one: a fresh build has none otherwise.
      if let readings = readingColumns[field].map(kept), !readings.bytes.isEmpty {
        writer.append(UInt8(1))
        writer.appendArray(readings.bytes)
        writer.appendArray(readings.starts)
      } else {
        writer.append(UInt8(0))
      }
      let whole = summaries[field] ?? ColumnSummary(columns[field])
      let summary = isCanonical ? whole : whole.compacted(keeping: keep)
      writer.appendArray(summary.wordStarts)
      writer.appendArray(summary.valueStarts)
      writer.appendArray(summary.lengths)
    }
    for values in numbers {
      writer.appendArray(
        values.withUnsafeBufferPointer { values in
          keep.map { values[$0].isNaN ? Double.nan : values[$0] }
        })
    }
    // Categories numbered by first appearance among the live items, as a fresh build does: a
    // list's values in its order, and the lists themselves by first appearance.
    let names = Dictionary(uniqueKeysWithValues: categoryIDs.map { ($1, $0) })
    var renumbered: [Int32: Int32] = [:]
    var categoryNames: [String] = []
    var renumberedSets: [[Int32]: Int32] = [:]
    var sets: [[Int32]] = []
    var itemCategories: [Int32] = []
    itemCategories.reserveCapacity(keep.count)
    func value(_ old: Int32) -> Int32 {
      if let id = renumbered[old] { return id }
      let id = Int32(categoryNames.count)
      renumbered[old] = id
      categoryNames.append(names[old] ?? "")
      return id
    }
    for slot in keep {
      let old = categories[slot]
      if old >= 0 {
        itemCategories.append(value(old))
      } else if old == -1 {
        itemCategories.append(-1)
      } else {
        let set = storage.categorySets[Int(-2 - old)].map(value)
        if let id = renumberedSets[set] {
          itemCategories.append(-2 - id)
        } else {
          let id = Int32(sets.count)
          renumberedSets[set] = id
          sets.append(set)
          itemCategories.append(-2 - id)
        }
      }
    }
    writer.appendStrings(categoryNames)
    let spellings = storage.categorySpellings
    writer.appendStrings(categoryNames.map { spellings[$0] ?? $0 })
    writer.appendArray(sets.map { Int32($0.count) })
    writer.appendArray(Array(sets.joined()))
    writer.appendArray(itemCategories)
    let order = IndexBuffer(
      popularityOrder.compactMap { newSlot[Int($0)] >= 0 ? newSlot[Int($0)] : nil })
    writer.appendArray(order)
    writer.appendArray(SlotStorage<ID>.positions(in: order))
    if let vectors = storage.vectors {
      let kept = isCanonical ? vectors : vectors.compacted(keeping: keep)
      writer.appendArray(kept.values)
      writer.appendArray(kept.codes)
      writer.appendArray(kept.scales)
    }
    // The lists read back when nothing changed since; else made for the live slots as they are.
    let leading =
      leadingMatches.flatMap { $0.slotCount == slotCount && keep.count == slotCount ? $0 : nil }
      ?? makeLeadingMatches(rowsKept: leadingRowsKept, matchesAbove: leadingMatchesAbove)
    leading.write(to: &writer, renumbering: newSlot)
  }

  /// The index an archive holds, for `schema` (which must be the one it was made for).
  ///
  /// - Throws: `IndexArchive.Failure` for bytes that are not a whole, unaltered archive of this
  ///   version and schema; nothing is trusted before the checksum agrees.
  /// - Complexity: O(*n*) in the archive's size: the buffers are copied, not refolded.
  package init(archive bytes: [UInt8], schema: CatalogSchema) throws(IndexArchive.Failure) {
    let read = bytes.withUnsafeBytes { bytes in
      Result { () throws(IndexArchive.Failure) in try Self(archive: bytes, schema: schema) }
    }
    self = try read.get()
  }

  /// The index an archive holds, read straight from memory someone else owns (a database's
  /// buffer for the blob): the buffers are copied out once, and nothing of `bytes` is kept.
  ///
  /// - Throws: as `init(archive:schema:)` for an array.
  package init(
    archive bytes: UnsafeRawBufferPointer, schema: CatalogSchema
  ) throws(IndexArchive.Failure) {
    try self.init(reading: bytes, keptBy: nil, checksum: .verify, schema: schema)
  }

  /// The index an archive holds, its buffers *borrowed* from `bytes` rather than copied: an
  /// archive mapped from a file is read where it lies, and only the pages a search touches are
  /// ever read. `owner` must keep `bytes` valid and unchanged for as long as the index or any
  /// copy of it lives; a buffer an edit changes is copied first.
  ///
  /// `checksum: .verified` when the caller checked `IndexArchive.checksumAgrees` on the same
  /// bytes already (reading a file in chunks, so that checking does not map every page); the
  /// offsets are then checked here, so that no damage can make a search read out of bounds.
  /// `.trusted` when the caller knows the bytes are the ones Sift wrote and checked: neither is
  /// read, and opening touches only the pages it needs.
  ///
  /// - Throws: as `init(archive:schema:)` for an array.
  package init(
    borrowing bytes: UnsafeRawBufferPointer, keptBy owner: any AnyObject & Sendable,
    checksum: IndexArchive.ChecksumCheck, schema: CatalogSchema
  ) throws(IndexArchive.Failure) {
    try self.init(reading: bytes, keptBy: owner, checksum: checksum, schema: schema)
  }

  private init(
    reading bytes: UnsafeRawBufferPointer, keptBy owner: (any AnyObject & Sendable)?,
    checksum: IndexArchive.ChecksumCheck, schema: CatalogSchema
  ) throws(IndexArchive.Failure) {
    var reader = try ArchiveReader(
      opening: bytes, magic: IndexArchive.magic, version: IndexArchive.formatVersion,
      schema: schema, checksum: checksum)
    reader.owner = owner
    let empty = SlotStorage<ItemID>(empty: schema)
    let count = Int(try reader.read() as UInt64)
    let idColumn = try reader.readColumn(slots: count)
    let ids = SlotIDs(archived: idColumn.bytes, starts: idColumn.starts) {
      ItemID(String(decoding: $0, as: UTF8.self))
    }
    var columns = empty.columns
    var readingColumns = empty.readingColumns
    var summaries = empty.summaries
    for field in empty.textFields.indices {
      columns[field] = try reader.readColumn(slots: count)
      if try reader.read() as UInt8 == 1 {
        readingColumns[field] = try reader.readColumn(slots: count)
      }
      guard
        let summary = ColumnSummary(
          wordStarts: try reader.readBuffer(), valueStarts: try reader.readBuffer(),
          lengths: try reader.readBuffer(), slots: count)
      else { throw .damaged("summary") }
      summaries[field] = summary
    }
    var numbers = empty.numbers
    for field in empty.numberFields.indices {
      numbers[field] = try reader.readBuffer()
      guard numbers[field].count == count else { throw .damaged("numbers") }
    }
    let categoryNames = try reader.readStrings()
    var categoryIDs: [String: Int32] = [:]
    for (id, name) in categoryNames.enumerated() { categoryIDs[name] = Int32(id) }
    let spellingList = try reader.readStrings()
    guard spellingList.count == categoryNames.count else { throw .damaged("category spellings") }
    let spellings = Dictionary(
      zip(categoryNames, spellingList).map { ($0, $1) }, uniquingKeysWith: { first, _ in first })
    let categoryCount = Int32(categoryNames.count)
    let setLengths: IndexBuffer<Int32> = try reader.readBuffer()
    let setMembers: IndexBuffer<Int32> = try reader.readBuffer()
    var sets: [[Int32]] = []
    var start = 0
    for length in setLengths.withUnsafeBufferPointer(Array.init) {
      guard length > 1, start + Int(length) <= setMembers.count else {
        throw .damaged("category lists")
      }
      let set = (start..<start + Int(length)).map { setMembers[$0] }
      guard set.allSatisfy({ $0 >= 0 && $0 < categoryCount }) else {
        throw .damaged("category lists")
      }
      sets.append(set)
      start += Int(length)
    }
    guard start == setMembers.count else { throw .damaged("category lists") }
    let setCount = Int32(sets.count)
    let categories: IndexBuffer<Int32> = try reader.readBuffer()
    guard categories.count == count,
      reader.holds({
        categories.withUnsafeBufferPointer {
          $0.allSatisfy { $0 >= -1 - setCount && $0 < categoryCount }
        }
      })
    else { throw .damaged("categories") }
    let order: IndexBuffer<Int32> = try reader.readBuffer()
    let ranks: IndexBuffer<UInt32> = try reader.readBuffer()
    guard order.count == count, ranks.count == count,
      reader.holds({ Self.areInverse(order, ranks) })
    else {
      throw .damaged("popularity order")
    }
    var vectors: VectorColumn?
    if let dimensions = schema.vector?.dimensions {
      let values: IndexBuffer<Float> = try reader.readBuffer()
      let codes: IndexBuffer<Int8> = try reader.readBuffer()
      let scales: IndexBuffer<Float> = try reader.readBuffer()
      vectors = VectorColumn(
        dimensions: dimensions, slotCount: count, values: values, codes: codes, scales: scales)
      guard vectors != nil else { throw .damaged("vectors") }
    }
    let leadingMatches = try LeadingMatches(reading: &reader, slotCount: count)
    guard reader.offset == reader.end else { throw .damaged("trailing bytes") }
    self.init(
      schema: schema,
      storage: SlotStorage(
        schema: schema, ids: ids, count: count, columns: columns, readingColumns: readingColumns,
        summaries: summaries, numbers: numbers, categoryIDs: categoryIDs,
        categorySpellings: spellings, categorySets: sets, categories: categories,
        popularityOrder: order, popularityRanks: ranks, vectors: vectors))
    self.leadingMatches = leadingMatches
  }
}

extension SearchIndex {
  /// Whether `order` holds each of `0..<order.count` once, at the position `ranks` gives it.
  static func areInverse(_ order: IndexBuffer<Int32>, _ ranks: IndexBuffer<UInt32>) -> Bool {
    order.withUnsafeBufferPointer { order in
      ranks.withUnsafeBufferPointer { ranks in
        guard order.count == ranks.count else { return false }
        for (position, slot) in order.enumerated() {
          guard slot >= 0, Int(slot) < ranks.count, ranks[Int(slot)] == UInt32(position) else {
            return false
          }
        }
        return true
      }
    }
  }
}

/// FNV-1a over 64-bit words in four lanes (then the tail bytes): the lanes do not wait for each
/// other. Fed in pieces whose lengths are multiples of 32 bytes (but the last), it gives what one
/// call over the whole does. Archives are sealed with `sealing`, a checksum of per-megabyte
/// checksums, so that both cores check a 35 MB archive on open.
package struct Checksum {
  private static let prime: UInt64 = 0x0000_0100_0000_01b3
  private var lanes: (UInt64, UInt64, UInt64, UInt64) = (
    0xcbf2_9ce4_8422_2325, 0x8422_2325_cbf2_9ce4, 0x9ce4_8422_2325_cbf2, 0x2325_cbf2_9ce4_8422
  )
  private var tail: UInt64 = 0

  package init() {}

  /// Adds `raw`: 32 bytes at a time, then 8, then single bytes.
  package mutating func update(_ raw: UnsafeRawBufferPointer) {
    let prime = Self.prime
    var (a, b, c, d) = lanes
    let blocks = raw.count / 32
    for block in 0..<blocks {
      let offset = block * 32
      a = (a ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* prime
      b = (b ^ raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)) &* prime
      c = (c ^ raw.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)) &* prime
      d = (d ^ raw.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)) &* prime
    }
    lanes = (a, b, c, d)
    var offset = blocks * 32
    while offset + 8 <= raw.count {
      tail = (tail ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* prime
      offset += 8
    }
    while offset < raw.count {
      tail = (tail ^ UInt64(raw[offset])) &* prime
      offset += 1
    }
  }

  package var value: UInt64 {
    let (a, b, c, d) = lanes
    var hash = tail
    for lane in [a, b, c, d] { hash = (hash ^ lane) &* Self.prime }
    return hash
  }

  package static func of(_ raw: UnsafeRawBufferPointer) -> UInt64 {
    var checksum = Checksum()
    checksum.update(raw)
    return checksum.value
  }

  package static func of(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { of($0) } }
}

extension IndexArchive {
  /// Whether `init(borrowing:…)` checks the archive's checksum itself.
  package enum ChecksumCheck: Sendable {
    /// Check it: every byte is read.
    case verify
    /// The caller checked it with `checksumAgrees(_:done:)`.
    case verified
    /// The caller knows these are the bytes Sift wrote and checked: an index file unchanged
    /// since (`MappedIndexFile`). Neither the checksum nor the offsets are read, so opening
    /// touches no page a search does not need.
    case trusted
  }

  /// Whether the last 8 bytes of `bytes` are the seal (`Checksum.sealing`) of those before them,
  /// checked on every core; `done` is called with each chunk's range once it was read (a mapped
  /// file lets its pages go there, so checking does not keep the whole file in memory).
  package static func checksumAgrees(
    _ bytes: UnsafeRawBufferPointer, done: @Sendable (Range<Int>) -> Void = { _ in }
  ) -> Bool {
    guard bytes.count >= 8 else { return false }
    let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 8)])
    let stored = UInt64(
      littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
    return stored == Checksum.sealing(body, done: done)
  }
}

extension Checksum {
  /// The bytes an archive's seal checksums apart: chunks of a megabyte.
  static let sealChunk = 1 << 20

  /// An archive's seal: each megabyte of `raw` checksummed on its own — on every core — then
  /// the chunks' checksums (little-endian) checksummed in order. `done` is called with each
  /// chunk's range once it was read.
  static func sealing(
    _ raw: UnsafeRawBufferPointer, done: @Sendable (Range<Int>) -> Void = { _ in }
  ) -> UInt64 {
    let chunks = (raw.count + sealChunk - 1) / sealChunk
    let bytes = SharedReadBuffer(buffer: raw.assumingMemoryBound(to: UInt8.self))
    let ranges = Parallel.ranges(
      count: chunks, parts: Parallel.parts(for: chunks, minimumPerPart: 4))
    let parts = Parallel.map(parts: ranges.count) { part in
      ranges[part].map { chunk in
        let range = (chunk * sealChunk)..<min(bytes.buffer.count, (chunk + 1) * sealChunk)
        let value = Checksum.of(
          UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.buffer[range])))
        done(range)
        return value.littleEndian
      }
    }
    return Array(parts.joined()).withUnsafeBytes { Checksum.of($0) }
  }
}

/// Where an archive's bytes go as they are made, a megabyte at a time (a file being written),
/// instead of into one array: an archive is tens of MB, and its index is in memory beside it.
package typealias ArchiveSink = (UnsafeRawBufferPointer) -> Void

struct ArchiveWriter {
  /// The bytes not yet handed to the sink: all of them without one, less than a seal chunk
  /// with one.
  private var bytes: [UInt8] = []
  private let sink: ArchiveSink?
  private var handedOn = 0
  /// The checksums of the chunks handed on, little-endian, for the seal.
  private var chunkSums: [UInt64] = []

  /// A writer that has written the header every archive starts with: its magic and format
  /// version, then what its contents depend on — the schema's fingerprint and the folding
  /// table's. With a `sink`, the bytes are handed to it as each seal chunk fills.
  init(magic: [UInt8], version: UInt16, schema: CatalogSchema, sink: ArchiveSink? = nil) {
    self.sink = sink
    write(magic)
    append(version)
    append(IndexArchive.fingerprint(of: schema))
    append(IndexArchive.foldingFingerprint)
  }

  /// The archive `body` writes after the header, sealed: its bytes, or — with a `sink` —
  /// none, every byte handed to the sink.
  static func archive(
    magic: [UInt8], version: UInt16, schema: CatalogSchema, sink: ArchiveSink?,
    _ body: (inout ArchiveWriter) -> Void
  ) -> [UInt8] {
    var writer = ArchiveWriter(magic: magic, version: version, schema: schema, sink: sink)
    body(&writer)
    guard sink == nil else {
      writer.finish()
      return []
    }
    return writer.sealed()
  }

  /// The bytes written so far.
  var count: Int { handedOn + bytes.count }

  /// The bytes followed by their seal (`Checksum.sealing`; appended in place: an archive is
  /// tens of MB). Only for a writer without a sink.
  mutating func sealed() -> [UInt8] {
    precondition(sink == nil, "an archive written to a sink ends with finish()")
    append(bytes.withUnsafeBytes { Checksum.sealing($0) })
    return bytes
  }

  /// Hands the last bytes and the seal to the sink: the same bytes `sealed()` returns.
  mutating func finish() {
    guard let sink else { return }
    if !bytes.isEmpty {
      bytes.withUnsafeBytes { chunkSums.append(Checksum.of($0).littleEndian) }
      bytes.withUnsafeBytes(sink)
    }
    let seal = chunkSums.withUnsafeBytes { Checksum.of($0) }
    withUnsafeBytes(of: seal.littleEndian, sink)
    handedOn += bytes.count + 8
    bytes = []
  }

  mutating func append<T: FixedWidthInteger>(_ value: T) {
    withUnsafeBytes(of: value.littleEndian) { write($0) }
  }

  mutating func append(_ value: UInt64) {
    withUnsafeBytes(of: value.littleEndian) { write($0) }
  }

  /// A count, zeros up to the next multiple of 8 bytes, then the elements' bytes as they lie in
  /// memory (little-endian on every platform Swift runs on): aligned, so that a mapped archive
  /// can be read in place.
  mutating func appendArray<T: BitwiseCopyable>(_ values: [T]) {
    values.withUnsafeBytes { appendAligned(count: values.count, $0) }
  }

  mutating func appendArray<T: BitwiseCopyable>(_ values: IndexBuffer<T>) {
    values.withUnsafeBytes { appendAligned(count: values.count, $0) }
  }

  private mutating func appendAligned(count elements: Int, _ raw: UnsafeRawBufferPointer) {
    append(UInt64(elements))
    write(Array(repeating: 0, count: (8 - count % 8) % 8))
    write(raw)
  }

  mutating func appendStrings(_ strings: [String]) {
    append(UInt64(strings.count))
    for string in strings {
      append(UInt32(string.utf8.count))
      write(Array(string.utf8))
    }
  }

  private mutating func write(_ values: [UInt8]) {
    values.withUnsafeBytes { write($0) }
  }

  /// Appends `raw`; with a sink, hands on each seal chunk as it fills, a large buffer's
  /// whole chunks straight from it.
  private mutating func write(_ raw: UnsafeRawBufferPointer) {
    guard sink != nil else {
      bytes.append(contentsOf: raw)
      return
    }
    let chunk = Checksum.sealChunk
    var rest = raw[...]
    while !rest.isEmpty {
      if bytes.isEmpty, rest.count >= chunk {
        handOn(UnsafeRawBufferPointer(rebasing: rest.prefix(chunk)))
        rest = rest.dropFirst(chunk)
        continue
      }
      let taken = min(chunk - bytes.count, rest.count)
      bytes.append(contentsOf: rest.prefix(taken))
      rest = rest.dropFirst(taken)
      if bytes.count == chunk {
        let full = bytes
        full.withUnsafeBytes { handOn($0) }
        bytes.removeAll(keepingCapacity: true)
      }
    }
  }

  private mutating func handOn(_ chunk: UnsafeRawBufferPointer) {
    chunkSums.append(Checksum.of(chunk).littleEndian)
    sink?(chunk)
    handedOn += chunk.count
  }
}

/// Reads an archive in place; it lives only while the caller's bytes do, and so do the buffers it
/// reads unless an `owner` keeps them.
struct ArchiveReader {
  let bytes: UnsafeRawBufferPointer
  let end: Int
  var offset = 0
  /// What keeps `bytes` alive, when buffers may borrow them instead of copying.
  var owner: (any AnyObject & Sendable)?
  /// Whether the bytes are vouched for (`ChecksumCheck.trusted`): whole-buffer checks pass
  /// unread.
  private(set) var trusted = false

  init(bytes: UnsafeRawBufferPointer, end: Int) {
    self.bytes = bytes
    self.end = end
  }

  /// A reader of the contents after `ArchiveWriter`'s header, the checksum kept out of reach:
  /// nothing is trusted before the checksum agrees, and the header must name this magic,
  /// version, schema and folding table.
  init(
    opening bytes: UnsafeRawBufferPointer, magic: [UInt8], version: UInt16, schema: CatalogSchema,
    checksum: IndexArchive.ChecksumCheck = .verify
  ) throws(IndexArchive.Failure) {
    guard bytes.count >= magic.count + 2 + 8 + 8 + 8, bytes.starts(with: magic) else {
      throw .notAnArchive
    }
    let body = bytes.count - 8
    self.init(bytes: bytes, end: body)
    offset = magic.count
    let found: UInt16 = try read()
    guard found == version else { throw .otherVersion(found) }
    if case .verify = checksum, !IndexArchive.checksumAgrees(bytes) {
      throw .damaged("checksum")
    }
    if case .trusted = checksum { trusted = true }
    guard try read() as UInt64 == IndexArchive.fingerprint(of: schema) else {
      throw .otherSchema
    }
    guard try read() as UInt64 == IndexArchive.foldingFingerprint else { throw .otherFolding }
  }

  /// Whether `condition` holds of a whole buffer, read only when the bytes are not trusted.
  func holds(_ condition: () -> Bool) -> Bool { trusted || condition() }

  private mutating func take(_ count: Int) throws(IndexArchive.Failure) -> Range<Int> {
    guard count >= 0, count <= end - offset else { throw .damaged("cut short") }
    defer { offset += count }
    return offset..<(offset + count)
  }

  mutating func read<T: FixedWidthInteger>() throws(IndexArchive.Failure) -> T {
    let range = try take(MemoryLayout<T>.size)
    return T(littleEndian: bytes.loadUnaligned(fromByteOffset: range.lowerBound, as: T.self))
  }

  /// An array written by `ArchiveWriter.appendArray`: borrowed in place when an owner keeps
  /// the bytes (and they are aligned for `T`), else copied.
  mutating func readBuffer<T: BitwiseCopyable>() throws(IndexArchive.Failure) -> IndexBuffer<T> {
    let count = Int(clamping: try read() as UInt64)
    _ = try take((8 - offset % 8) % 8)
    guard count <= (end - offset) / max(1, MemoryLayout<T>.stride) else {
      throw .damaged("cut short")
    }
    let range = try take(count * MemoryLayout<T>.stride)
    let raw = UnsafeRawBufferPointer(rebasing: bytes[range])
    if let owner, let base = raw.baseAddress,
      Int(bitPattern: base) % MemoryLayout<T>.alignment == 0
    {
      let typed = base.assumingMemoryBound(to: T.self)
      return IndexBuffer(borrowing: UnsafeBufferPointer(start: typed, count: count), keptBy: owner)
    }
    return IndexBuffer(
      [T](unsafeUninitializedCapacity: count) { buffer, initialized in
        UnsafeMutableRawBufferPointer(buffer).copyMemory(from: raw)
        initialized = count
      })
  }

  mutating func readStrings() throws(IndexArchive.Failure) -> [String] {
    let count = Int(clamping: try read() as UInt64)
    guard count <= (end - offset) / 4 else { throw .damaged("cut short") }
    var strings: [String] = []
    strings.reserveCapacity(count)
    for _ in 0..<count {
      let length = Int(try read() as UInt32)
      let range = try take(length)
      strings.append(
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self))
    }
    return strings
  }

  /// A folded column of `slots` slots whose starts are in order and inside its bytes.
  mutating func readColumn(slots: Int) throws(IndexArchive.Failure) -> FoldedColumn {
    let columnBytes: IndexBuffer<UInt8> = try readBuffer()
    let starts: IndexBuffer<UInt32> = try readBuffer()
    guard starts.count == slots + 1, holds({ starts.areOffsets(into: columnBytes.count) }) else {
      throw .damaged("column offsets")
    }
    return FoldedColumn(bytes: columnBytes, starts: starts)
  }
}
