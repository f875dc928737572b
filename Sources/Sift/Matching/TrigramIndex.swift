import Dispatch
import Foundation

/// Which slots hold each run of three folded bytes, in any text column: a term of three bytes
/// or more is looked for only in the slots of its rarest trigram, not in all the text. Runs of
/// two bytes (bigrams, keyed as a trigram ending in 0, which folded text never holds) are kept
/// too: the slots of a two-letter term's bigram are exactly the slots holding the term, so
/// typing "h" → "ho" reads 13,000 postings instead of rechecking the text of 89,000 items.
///
/// On the cities, the rarest trigram of a prefix typed names at most 5% of the items and
/// mostly under 1% (`Benchmarks/trigram-census.py`), so a first search for "mos" checks 722
/// items instead of scanning 18 MB, and typing "sa" → "san" checks 12,263 instead of the
/// 30,000 that matched "sa". Postings are delta-coded (8.7 MB for the cities' 5.8 million).
///
/// Built once, off the typing path (`SearchIndex.prepareSubstringSearch()`), over the slots
/// that existed then; slots added later are checked one by one, dead ones are skipped by the
/// caller, and a compaction (which renumbers slots) drops it. A search never waits for it: until
/// it is built, the scan answers.
///
/// Readings (`Readings`: "beijing" for 北京) match only where a word of them starts, so they
/// are listed by the two and the three letters that start each of their words ("be", "bei",
/// "ji", "jin", "bj"), under keys of their own (`readingStartKey`): `readingStarts(of:)`.
final class TrigramIndex: Sendable {
  static let magic: [UInt8] = Array("SIFTTG".utf8)
  /// Version 2 added the bigrams; version 3 lists where the readings' words start.
  static let formatVersion: UInt16 = 3

  /// Open addressing from a trigram (three bytes, packed) to its id, -1 for an empty place.
  private let table: IndexBuffer<Int32>
  private let keys: IndexBuffer<UInt32>
  /// Per id: how many slots hold it, and where its postings start in `postings`.
  private let counts: IndexBuffer<UInt32>
  private let postingStarts: IndexBuffer<UInt32>
  /// Per id, its slots ascending, each as the gap from the one before (the first from -1),
  /// seven bits a byte, the high bit set on all but a gap's last byte.
  private let postings: IndexBuffer<UInt8>
  /// Per slot, which bytes occur in any of its text columns (not its readings: one letter never
  /// reads), in the bits of
  /// `RawColumn.wordStartBit` (a letter a–z has a bit of its own): a one-letter term's matches
  /// in one pass over four bytes an item, without reading the text.
  private let letters: IndexBuffer<UInt32>
  /// The slots covered: `0..<slotCount`.
  let slotCount: Int
  let buildSeconds: Double

  var memoryBytes: Int {
    table.count * 4 + keys.count * 4 + counts.count * 4 + postingStarts.count * 4 + postings.count
      + letters.count * 4
  }

  /// The trigrams of the first `slotCount` slots of `columns` and of the `readings` of some of
  /// them (each a column's readings; nil where it has none).
  ///
  /// Built in `parts` runs of slots (by default one a core), each counting and then writing the
  /// postings of its own slots, into a table of its own. A run's postings follow those of the
  /// runs before it, its first gap counted from their last slot. The ids are the keys'
  /// ascending order, so the index (and the file it is written to) is the same whatever the
  /// parts.
  ///
  /// - Complexity: two passes over the columns' bytes (one to count and size each trigram's
  ///   postings, one to write them), two table reads per occurrence.
  init(
    columns: [FoldedColumn], readings: [FoldedColumn?] = [], slotCount: Int, parts: Int? = nil
  ) {
    let started = DispatchTime.now()
    let letterColumns = columns
    let readingFrom = columns.count
    let columns = columns + readings.compactMap { $0 }
    let ranges = Parallel.ranges(
      count: slotCount,
      parts: parts ?? Parallel.parts(for: slotCount, minimumPerPart: 20_000))
    self.slotCount = slotCount
    // Pass 1: each run's trigrams, how many of its slots hold each, the size of its postings.
    let runs = Parallel.map(parts: ranges.count) { part in
      Run(columns, readingFrom: readingFrom, slots: ranges[part])
    }
    // The ids in key order; a key's runs in slot order.
    var order: [(key: UInt32, part: Int32, id: Int32)] = []
    order.reserveCapacity(runs.reduce(0) { $0 + $1.keys.count })
    for (part, run) in runs.enumerated() {
      for (id, key) in run.keys.enumerated() { order.append((key, Int32(part), Int32(id))) }
    }
    order.sort { ($0.key, $0.part) < ($1.key, $1.part) }
    var keys: [UInt32] = []
    var counts: [UInt32] = []
    keys.reserveCapacity(order.count)
    counts.reserveCapacity(order.count)
    var postingStarts: [UInt32] = [0]
    // Per run, per id of its own: where its postings go, and the slot its first gap counts
    // from (the last one the runs before it hold, or -1).
    var cursors = runs.map { [UInt32](repeating: 0, count: $0.keys.count) }
    var lastSlots = runs.map { [Int32](repeating: -1, count: $0.keys.count) }
    var end: UInt32 = 0
    var previous: (key: UInt32, last: Int32)?
    for entry in order {
      let (part, local) = (Int(entry.part), Int(entry.id))
      let run = runs[part]
      let last: Int32
      if let previous, previous.key == entry.key {
        last = previous.last
        counts[counts.count - 1] += run.counts[local]
      } else {
        if !keys.isEmpty { postingStarts.append(end) }
        keys.append(entry.key)
        counts.append(run.counts[local])
        last = -1
      }
      cursors[part][local] = end
      lastSlots[part][local] = last
      // The first gap is from `last`, not from -1 as the run counted it.
      let first = run.firstSlots[local]
      end +=
        run.sizes[local] - UInt32(Self.gapSize(UInt32(first + 1)))
        + UInt32(Self.gapSize(UInt32(first - last)))
      previous = (entry.key, run.lastSlots[local])
    }
    postingStarts.append(end)
    if keys.isEmpty { postingStarts = [0] }
    // Pass 2: each run writes its gaps where they go (places no other run writes).
    let postings = [UInt8](unsafeUninitializedCapacity: Int(end)) { buffer, initialized in
      let output = SharedWriteBuffer(buffer: buffer)
      let (cursors, lastSlots) = (cursors, lastSlots)
      _ = Parallel.map(parts: runs.count) { part in
        runs[part].writePostings(
          columns, readingFrom: readingFrom, slots: ranges[part], cursors: cursors[part],
          lastSlots: lastSlots[part],
          into: output.buffer)
      }
      initialized = buffer.count
    }
    self.table = IndexBuffer(Self.table(of: keys))
    self.keys = IndexBuffer(keys)
    self.counts = IndexBuffer(counts)
    self.postingStarts = IndexBuffer(postingStarts)
    self.postings = IndexBuffer(postings)
    letters = IndexBuffer(Self.letters(of: letterColumns, slotCount: slotCount))
    buildSeconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
  }

  /// The trigrams of one run of slots, counted by one pass over its text.
  private struct Run: Sendable {
    /// Per first two bytes, the page of `ids` for the third (0 for a bigram); -1: none yet.
    /// Two reads and no hashing per occurrence: the build is a lookup per byte of text.
    let pages: [Int32]
    /// Per page, 256 ids in this run; -1 for a trigram none of its slots holds.
    let ids: [Int32]
    let keys: [UInt32]
    let counts: [UInt32]
    /// Per id, the bytes of its postings, the first gap counted from -1.
    let sizes: [UInt32]
    /// Per id, the first and the last of the run's slots holding it.
    let firstSlots: [Int32]
    let lastSlots: [Int32]

    init(_ columns: [FoldedColumn], readingFrom: Int, slots: Range<Int>) {
      var pages = [Int32](repeating: -1, count: 1 << 16)
      var ids: [Int32] = []
      var keys: [UInt32] = []
      var counts: [UInt32] = []
      var sizes: [UInt32] = []
      var firstSlots: [Int32] = []
      var lastSlots: [Int32] = []
      TrigramIndex.forEachSlot(columns, readingFrom: readingFrom, slots: slots) {
        slot, slotKeys in
        for key in slotKeys {
          var page = pages[Int(key >> 8)]
          if page < 0 {
            page = Int32(ids.count >> 8)
            pages[Int(key >> 8)] = page
            ids.append(contentsOf: repeatElement(-1, count: 256))
          }
          let place = Int(page) << 8 | Int(key & 0xFF)
          var id = Int(ids[place])
          if id < 0 {
            id = keys.count
            ids[place] = Int32(id)
            keys.append(key)
            counts.append(0)
            sizes.append(0)
            firstSlots.append(Int32(slot))
            lastSlots.append(-1)
          }
          guard lastSlots[id] != Int32(slot) else { continue }
          counts[id] += 1
          sizes[id] += UInt32(TrigramIndex.gapSize(UInt32(Int32(slot) - lastSlots[id])))
          lastSlots[id] = Int32(slot)
        }
      }
      (self.pages, self.ids, self.keys, self.counts, self.sizes) = (
        pages, ids, keys, counts, sizes
      )
      (self.firstSlots, self.lastSlots) = (firstSlots, lastSlots)
    }

    /// The second pass: this run's postings, each id's from `cursors[id]` in `postings`, its
    /// first gap counted from `lastSlots[id]`.
    func writePostings(
      _ columns: [FoldedColumn], readingFrom: Int, slots: Range<Int>, cursors: [UInt32],
      lastSlots: [Int32], into postings: UnsafeMutableBufferPointer<UInt8>
    ) {
      var cursor = cursors
      var lastSlot = lastSlots
      cursor.withUnsafeMutableBufferPointer { cursor in
        lastSlot.withUnsafeMutableBufferPointer { lastSlot in
          pages.withUnsafeBufferPointer { pages in
            ids.withUnsafeBufferPointer { ids in
              TrigramIndex.forEachSlot(columns, readingFrom: readingFrom, slots: slots) {
                slot, slotKeys in
                for key in slotKeys {
                  let id = Int(ids[Int(pages[Int(key >> 8)]) << 8 | Int(key & 0xFF)])
                  guard lastSlot[id] != Int32(slot) else { continue }
                  var gap = UInt32(Int32(slot) - lastSlot[id])
                  var at = Int(cursor[id])
                  while gap >= 0x80 {
                    postings[at] = UInt8(truncatingIfNeeded: gap) | 0x80
                    gap >>= 7
                    at += 1
                  }
                  postings[at] = UInt8(gap)
                  cursor[id] = UInt32(at + 1)
                  lastSlot[id] = Int32(slot)
                }
              }
            }
          }
        }
      }
    }
  }

  /// Writes the index after `ArchiveWriter`'s header: the slot count, then its arrays.
  func write(to writer: inout ArchiveWriter) {
    writer.append(UInt64(slotCount))
    writer.appendArray(table)
    writer.appendArray(keys)
    writer.appendArray(counts)
    writer.appendArray(postingStarts)
    writer.appendArray(postings)
    writer.appendArray(letters)
  }

  /// Reads what `write(to:)` wrote (borrowing the arrays when the reader has an owner), checking
  /// every offset a search follows, so that no bytes can make one read out of bounds.
  init(reading reader: inout ArchiveReader, slotsAtMost limit: Int) throws(IndexArchive.Failure) {
    slotCount = Int(clamping: try reader.read() as UInt64)
    table = try reader.readBuffer()
    keys = try reader.readBuffer()
    counts = try reader.readBuffer()
    postingStarts = try reader.readBuffer()
    postings = try reader.readBuffer()
    letters = try reader.readBuffer()
    buildSeconds = 0
    let keyCount = keys.count
    let valid =
      slotCount <= limit && letters.count == slotCount && counts.count == keyCount
      && postingStarts.count == keyCount + 1 && table.count > keyCount
      && table.count & (table.count - 1) == 0
      && reader.holds {
        table.withUnsafeBufferPointer { $0.allSatisfy { $0 >= -1 && $0 < Int32(keyCount) } }
          && postingStarts.areOffsets(into: postings.count)
      }
    guard valid else { throw .damaged("trigram offsets") }
  }

  /// Per slot, the `RawColumn.wordStartBit` of every byte in its columns, ORed.
  private static func letters(of columns: [FoldedColumn], slotCount: Int) -> [UInt32] {
    var letters = [UInt32](repeating: 0, count: slotCount)
    letters.withUnsafeMutableBufferPointer { letters in
      for column in columns {
        column.withUnsafeBytes { bytes, starts in
          for slot in 0..<min(slotCount, column.slotCount) {
            var bits: UInt32 = 0
            for offset in Int(starts[slot])..<Int(starts[slot + 1]) where bytes[offset] != 0 {
              bits |= RawColumn.wordStartBit(bytes[offset])
            }
            letters[slot] |= bits
          }
        }
      }
    }
    return letters
  }

  /// Whether the text of `slot` (below `slotCount`) holds `letter`, a letter a–z.
  func slot(_ slot: Int, holdsLetter letter: UInt8) -> Bool {
    letters[slot] & RawColumn.wordStartBit(letter) != 0
  }

  /// The slots (below `slotCount`, ascending) whose text holds `letter`, a letter a–z, and that
  /// `isLive` (as long as `slotCount` or longer) says are live; nil for any other byte (its bit
  /// is shared). On both cores for many slots (`minimumPerPart` each): most of a first
  /// keystroke at 4×.
  func liveSlots(
    holdingLetter letter: UInt8, isLive: LiveSlots, minimumPerPart: Int = 100_000
  ) -> [Int32]? {
    guard RawColumn.hasOwnBit(letter), isLive.count >= slotCount else { return nil }
    let bit = RawColumn.wordStartBit(letter)
    let ranges = Parallel.ranges(
      count: slotCount, parts: Parallel.parts(for: slotCount, minimumPerPart: minimumPerPart))
    // Each part writes where its own slots would start, then the parts are moved together:
    // one array, no copy of 760,000 slots into another.
    return [Int32](unsafeUninitializedCapacity: slotCount) { output, initialized in
      let shared = SharedWriteBuffer(buffer: output)
      let found = letters.withUnsafeBufferPointer { letters in
        isLive.withFlags { isLive in
          let letters = SharedReadBuffer(buffer: letters)
          let isLive = isLive.map { SharedReadBuffer(buffer: $0) }
          return Parallel.map(parts: ranges.count) { part in
            let range = ranges[part]
            var end = range.lowerBound
            // No flags while every slot is live (no edit since opening).
            for slot in range
            where letters.buffer[slot] & bit != 0 && isLive?.buffer[slot] ?? true {
              shared.buffer.initializeElement(at: end, to: Int32(slot))
              end += 1
            }
            return end - range.lowerBound
          }
        }
      }
      var count = 0
      for (part, partCount) in found.enumerated() {
        let start = ranges[part].lowerBound
        if start != count, partCount > 0 {
          (output.baseAddress! + count).moveInitialize(
            from: output.baseAddress! + start, count: partCount)
        }
        count += partCount
      }
      initialized = count
    }
  }

  /// The slots (below `slotCount`, ascending) that may hold `needle`: those holding its rarest
  /// trigram — for a needle of two bytes, exactly those holding it. Nil for a needle shorter
  /// than two bytes.
  func candidates(for needle: [UInt8]) -> [Int32]? {
    rarest(in: needle).map { rarest in rarest.map { slots(of: $0.id) } ?? [] }
  }

  /// How many slots the rarest trigram of `needle` names (nil: it has none), to choose between
  /// it and another set of candidates without decoding.
  func candidateCount(for needle: [UInt8]) -> Int? {
    rarest(in: needle).map { $0.map { Int($0.count) } ?? 0 }
  }

  /// The id and slot count of the rarest trigram of `needle`; `.some(nil)` when one of its
  /// trigrams is in no slot (nothing can match), nil when it has no trigram.
  private func rarest(in needle: [UInt8]) -> (id: Int, count: UInt32)?? {
    if needle.count == 2 {
      guard needle[0] != 0, needle[1] != 0 else { return nil }
      guard let id = lookUp(Self.key(needle[0], needle[1], 0)) else { return .some(nil) }
      return .some((id, counts[id]))
    }
    guard needle.count >= 3 else { return nil }
    var rarest: (id: Int, count: UInt32)?
    for start in 0...(needle.count - 3) {
      let key = Self.key(needle[start], needle[start + 1], needle[start + 2])
      guard let id = lookUp(key) else { return .some(nil) }
      if counts[id] < rarest?.count ?? .max { rarest = (id, counts[id]) }
    }
    return .some(rarest)
  }

  private func slots(of id: Int) -> [Int32] {
    var slots: [Int32] = []
    slots.reserveCapacity(Int(counts[id]))
    let limit = Int32(slotCount)
    postings.withUnsafeBufferPointer { postings in
      var at = Int(postingStarts[id])
      let end = Int(postingStarts[id + 1])
      var slot: Int32 = -1
      while at < end {
        var gap: UInt32 = 0
        var shift: UInt32 = 0
        // A gap's bytes never run past its trigram's end (read from a file, they could).
        while at < end {
          let byte = postings[at]
          at += 1
          gap |= UInt32(byte & 0x7F) << (shift & 31)
          if byte < 0x80 { break }
          shift += 7
        }
        slot &+= Int32(bitPattern: gap)
        guard slot >= 0, slot < limit else { break }
        slots.append(slot)
      }
    }
    return slots
  }

  // MARK: - Building blocks

  @inline(__always)
  private static func key(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt32 {
    UInt32(a) << 16 | UInt32(b) << 8 | UInt32(c)
  }

  /// The key of a word of readings starting with the letters `a` `b`: the trigram 1 `a` `b`,
  /// which folded text, whose controls fold to spaces, never holds.
  @inline(__always)
  static func readingStartKey(_ a: UInt8, _ b: UInt8) -> UInt32 { key(1, a, b) }

  /// The key of one starting with the letters `a` `b` `c` (a–z): 2, then the three letters as
  /// a number below 26³ in the two bytes after it.
  @inline(__always)
  static func readingStartKey(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt32 {
    let letters = (UInt32(a) - 0x61) * 676 + (UInt32(b) - 0x61) * 26 + (UInt32(c) - 0x61)
    return 2 << 16 | letters
  }

  @inline(__always)
  private static func isLetter(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
  }

  /// The slots (below `slotCount`, ascending) whose readings have a word starting with the
  /// first two or three letters of `needle` (a–z): for a needle of two or three letters,
  /// exactly those whose readings start a word with it. Nil for a needle of fewer than two
  /// bytes.
  func readingStarts(of needle: [UInt8]) -> [Int32]? {
    guard needle.count >= 2 else { return nil }
    let key =
      needle.count >= 3
      ? Self.readingStartKey(needle[0], needle[1], needle[2])
      : Self.readingStartKey(needle[0], needle[1])
    guard let id = lookUp(key) else { return [] }
    return slots(of: id)
  }

  @inline(__always)
  private static func place(of key: UInt32, mask: Int) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B1) >> 8) & mask
  }

  /// The id of `key`; nil when no slot holds it.
  private func lookUp(_ key: UInt32) -> Int? {
    table.withUnsafeBufferPointer { table in
      keys.withUnsafeBufferPointer { keys in Self.lookUp(key, table: table, keys: keys) }
    }
  }

  /// The table of `keys` at the smallest power of two at least twice their count, 16 at least.
  private static func table(of keys: [UInt32]) -> [Int32] {
    var size = 16
    while size < keys.count * 2 { size *= 2 }
    var table = [Int32](repeating: -1, count: size)
    let mask = size - 1
    for (id, key) in keys.enumerated() {
      var place = place(of: key, mask: mask)
      while table[place] >= 0 { place = (place + 1) & mask }
      table[place] = Int32(id)
    }
    return table
  }

  private static func gapSize(_ gap: UInt32) -> Int {
    gap < 1 << 7 ? 1 : gap < 1 << 14 ? 2 : gap < 1 << 21 ? 3 : gap < 1 << 28 ? 4 : 5
  }

  /// The id of `key` in `table`; nil when it is not there. At most a table's length of probes:
  /// a table read from a file might have no empty place.
  private static func lookUp(
    _ key: UInt32, table: UnsafeBufferPointer<Int32>, keys: UnsafeBufferPointer<UInt32>
  ) -> Int? {
    let mask = table.count - 1
    var place = place(of: key, mask: mask)
    for _ in 0..<table.count {
      let id = table[place]
      if id < 0 { return nil }
      if keys[Int(id)] == key { return Int(id) }
      place = (place + 1) & mask
    }
    return nil
  }

  /// Calls `body` with each slot of `slots`, in order, and the trigrams and bigrams of its
  /// values (one may come several times). None spans two values. A call a slot, not an
  /// occurrence: a build reads every byte of the text twice, and a call per byte cost more than
  /// the work.
  /// The columns from `readingFrom` on are readings: only the two and three letters a–z
  /// starting each of their words are keyed (`readingStartKey`).
  private static func forEachSlot(
    _ columns: [FoldedColumn], readingFrom: Int, slots: Range<Int>,
    _ body: (_ slot: Int, _ keys: UnsafeBufferPointer<UInt32>) -> Void
  ) {
    var readers: [(bytes: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<UInt32>)] = []
    func withAll(_ index: Int, _ work: () -> Void) {
      guard index < columns.count else { return work() }
      columns[index].withUnsafeBytes { bytes, starts in
        readers.append((bytes, starts))
        withAll(index + 1, work)
      }
    }
    var keys: [UInt32] = []
    withAll(0) {
      for slot in slots {
        keys.removeAll(keepingCapacity: true)
        for (index, reader) in readers.enumerated() {
          let start = Int(reader.starts[slot])
          let end = Int(reader.starts[slot + 1])
          guard end - start >= 2 else { continue }
          if index >= readingFrom {
            for offset in start..<(end - 1)
            where (offset == start || NearSpelling.isWordBoundary(reader.bytes[offset - 1]))
              && isLetter(reader.bytes[offset]) && isLetter(reader.bytes[offset + 1])
            {
              let (first, second) = (reader.bytes[offset], reader.bytes[offset + 1])
              keys.append(readingStartKey(first, second))
              if offset + 2 < end, isLetter(reader.bytes[offset + 2]) {
                keys.append(readingStartKey(first, second, reader.bytes[offset + 2]))
              }
            }
            continue
          }
          var key = UInt32(reader.bytes[start])
          for offset in (start + 1)..<end {
            key = (key << 8 | UInt32(reader.bytes[offset])) & 0xFF_FFFF
            // A 0 ends a value: a run holding one spans two values (or none).
            guard key & 0xFF != 0, key & 0xFF00 != 0 else { continue }
            keys.append(key << 8 & 0xFF_FF00)  // the bigram
            if key & 0xFF_0000 != 0 { keys.append(key) }
          }
        }
        keys.withUnsafeBufferPointer { body(slot, $0) }
      }
    }
  }
}

extension SearchIndex {
  /// Builds the trigram index now (unless it is built or being built), so that terms of three
  /// bytes or more check only the items holding their rarest trigram instead of scanning all the
  /// text. Searches never wait for it: until it is done, terms are found by scanning, with the
  /// same results.
  package func prepareSubstringSearch() {
    guard !summaries.contains(where: { $0 == nil }) else { return }  // a line index scans
    trigrams.prepare {
      TrigramIndex(columns: columns, readings: readingColumns, slotCount: slotCount)
    }
  }

  /// The trigram index as bytes a catalog's index file keeps beside the archive, so that an open
  /// maps it instead of building it (0.6 s for the cities): `ArchiveWriter`'s header ("SIFTTG"),
  /// then `TrigramIndex.write(to:)`, then a checksum. Canonical, as the archive: the live slots
  /// renumbered in catalog order — the one already built when it covers exactly those.
  ///
  /// - Complexity: O(1) to write one built over these slots; else a build over the live slots.
  /// Lets the trigram index go, in this index and every copy that shares it: what a caller
  /// that archived it and searches no more frees before its next step.
  package func releaseTrigrams() {
    trigrams.release()
  }

  /// With a `sink`, the bytes are handed to it as they are made, and none are returned.
  package func archivedTrigrams(sink: ArchiveSink? = nil) -> [UInt8] {
    let keep = orderedLiveSlots()
    let built: TrigramIndex
    if let current = trigrams.current, current.slotCount == slotCount,
      keep.count == slotCount, keep.elementsEqual(0..<slotCount)
    {
      built = current
    } else {
      built = TrigramIndex(
        columns: columns.map { $0.compacted(keeping: keep) },
        readings: readingColumns.map { $0?.compacted(keeping: keep) }, slotCount: keep.count)
    }
    return ArchiveWriter.archive(
      magic: TrigramIndex.magic, version: TrigramIndex.formatVersion, schema: schema, sink: sink
    ) { built.write(to: &$0) }
  }

  /// Uses the trigram index `archivedTrigrams()` wrote beside the archive this index was read
  /// from, borrowing its arrays from `bytes` (kept alive by `owner`), instead of building one.
  /// Slots added since (a replayed log) are checked one by one, as after a build.
  ///
  /// - Returns: false, changing nothing, when the bytes do not read back (damaged, another
  ///   schema or version) or the slots were renumbered since the index was read.
  @discardableResult
  package mutating func useStoredTrigrams(
    _ bytes: UnsafeRawBufferPointer, keptBy owner: any AnyObject & Sendable,
    checksum: IndexArchive.ChecksumCheck
  ) -> Bool {
    guard layout == 0, !summaries.contains(where: { $0 == nil }) else { return false }
    do throws(IndexArchive.Failure) {
      var reader = try ArchiveReader(
        opening: bytes, magic: TrigramIndex.magic, version: TrigramIndex.formatVersion,
        schema: schema, checksum: checksum)
      reader.owner = owner
      let stored = try TrigramIndex(reading: &reader, slotsAtMost: slotCount)
      guard reader.offset == reader.end else { return false }
      trigrams = TrigramBox(built: stored)
      return true
    } catch {
      return false
    }
  }

  /// What the trigram index holds and cost to build; nil until it is built.
  package var substringSearchMemory: (bytes: Int, buildSeconds: Double)? {
    trigrams.current.map { ($0.memoryBytes, $0.buildSeconds) }
  }

  /// Makes ready what speeds up searches on a large catalog — the near-spelling dictionaries
  /// (read from the file or built) and the trigram index — on a background queue, right after
  /// opening: typing never waits for them, and copies of the index share them.
  package func prepareForSearchingInBackground() {
    let index = self
    DispatchQueue.global(qos: .utility).async { index.prepareForSearching() }
  }

  /// `prepareForSearchingInBackground()` on the caller's thread: what a task that also saves
  /// the index runs first, so that the save writes what searches share.
  package func prepareForSearching() {
    prepareNearSpellings()
    prepareSubstringSearch()
  }
}

/// An index's trigram index once built, shared by its copies (searches on other threads) like
/// the near-spelling dictionaries; a compaction starts a new, empty one.
final class TrigramBox: Sendable {
  private let state: Locked<(built: TrigramIndex?, building: Bool)>

  init(built: TrigramIndex? = nil) { state = Locked((built, false)) }

  /// The trigram index if it is built; never waits for one being built.
  var current: TrigramIndex? { state.withLock { $0.built } }

  /// Lets a built index go (it is built again when next needed); one being built stays.
  func release() {
    state.withLock { state in
      if !state.building { state.built = nil }
    }
  }

  /// Builds it with `make` unless it is built or being built elsewhere.
  func prepare(_ make: () -> TrigramIndex) {
    let claimed = state.withLock { state in
      guard state.built == nil, !state.building else { return false }
      state.building = true
      return true
    }
    guard claimed else { return }
    let made = make()
    state.withLock { $0 = (made, false) }
  }
}
