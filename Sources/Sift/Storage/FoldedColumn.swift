#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The folded text of one text field for every slot of an index, back to back in one buffer, so
/// that a search is one scan of contiguous memory rather than a call per item.
///
/// Each value of a slot is followed by a 0 byte, which folded text never contains: a match can
/// span neither two values nor two items.
struct FoldedColumn: Sendable {
  private(set) var bytes: IndexBuffer<UInt8> = []
  /// `starts[slot]..<starts[slot + 1]` are the slot's bytes.
  private(set) var starts: IndexBuffer<UInt32> = [0]

  var slotCount: Int { starts.count - 1 }

  init() {}

  /// A column over bytes folded elsewhere; `starts` begins with 0 and ends with `bytes.count`.
  init(bytes: [UInt8], starts: [UInt32]) {
    self.init(bytes: IndexBuffer(bytes), starts: IndexBuffer(starts))
  }

  /// A column over buffers read from an archive (borrowed or copied); as above.
  init(bytes: IndexBuffer<UInt8>, starts: IndexBuffer<UInt32>) {
    self.bytes = bytes
    self.starts = starts
  }

  func range(of slot: Int) -> Range<Int> { Int(starts[slot])..<Int(starts[slot + 1]) }

  /// Appends a slot holding the folded `values`.
  mutating func append(_ values: [String]) {
    bytes.withArray { bytes in
      for value in values {
        TextFolding.append(value, to: &bytes)
        bytes.append(0)
      }
    }
    starts.append(UInt32(truncatingIfNeeded: bytes.count))
  }

  /// This column followed by `other`'s slots.
  mutating func append(contentsOf other: FoldedColumn) {
    let base = UInt32(truncatingIfNeeded: bytes.count)
    other.bytes.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
    starts.append(contentsOf: other.starts.dropFirst().lazy.map { $0 &+ base })
  }

  /// Appends a slot holding the readings (`Readings`) of `values`: one entry a value, each
  /// ended by a 0 as in a text column (empty for a value without), so that the n-th entry is
  /// the n-th value's; a slot none of whose values has a reading is empty.
  mutating func appendReadings(_ values: [String]) {
    bytes.withArray { bytes in
      let start = bytes.count
      var any = false
      for value in values {
        if Readings.append(of: value, to: &bytes) { any = true }
        bytes.append(0)
      }
      if !any { bytes.removeSubrange(start...) }
    }
    starts.append(UInt32(truncatingIfNeeded: bytes.count))
  }

  mutating func reserve(bytes byteCount: Int, slots: Int) {
    bytes.reserveCapacity(byteCount)
    starts.reserveCapacity(slots + 1)
  }

  /// Appends `count` empty slots.
  mutating func appendEmpty(count: Int) {
    let end = UInt32(truncatingIfNeeded: bytes.count)
    // One at a time for a line index (every line after the first Hangul one): no generic append.
    if count == 1 {
      starts.append(end)
    } else {
      starts.append(contentsOf: repeatElement(end, count: count))
    }
  }

  /// The slot whose bytes hold `offset`, searching from slot `low` on: a few steps forward
  /// first (dense hits fall in the next slots), then binary search.
  @inline(__always)
  private static func slot(
    containing offset: Int, from low: Int, starts: UnsafeBufferPointer<UInt32>
  ) -> Int {
    let slotCount = starts.count - 1
    var low = low
    for _ in 0..<4 {
      guard low < slotCount, Int(starts[low + 1]) <= offset else { return low }
      low += 1
    }
    var high = slotCount
    while low + 1 < high {
      let mid = (low + high) / 2
      if Int(starts[mid]) <= offset { low = mid } else { high = mid }
    }
    return low
  }

  /// A slot's first value (the title, in the title column; the line, in a line index), from
  /// raw buffers: the bytes up to its 0 separator. Anything after it — other values, or the
  /// zeros that pad the last line of a part in `SearchIndex.lines(utf8:)` — is not part of it.
  @inline(__always)
  static func firstValue(
    of slot: Int, bytes: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<UInt32>
  ) -> UnsafeBufferPointer<UInt8> {
    let start = Int(starts[slot])
    let end = Int(starts[slot + 1])
    guard let base = bytes.baseAddress, start < end else {
      return UnsafeBufferPointer(rebasing: bytes[start..<start])
    }
    let valueEnd =
      memchr(base + start, 0, end - start).map {
        UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0))
      } ?? end
    return UnsafeBufferPointer(rebasing: bytes[start..<valueEnd])
  }

  /// Calls `body` with the column's bytes and value offsets as raw buffers.
  func withUnsafeBytes<Result>(
    _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt32>) throws -> Result
  ) rethrows -> Result {
    try bytes.withUnsafeBufferPointer { bytes in
      try starts.withUnsafeBufferPointer { starts in try body(bytes, starts) }
    }
  }

  /// Calls `body` for each slot of `slots` whose bytes contain `needle`, in slot order, once
  /// per slot; parts of a column can be scanned on different cores.
  ///
  /// - Complexity: one pass over the slots' bytes; a few steps (or a binary search) to map each
  ///   hit to its slot.
  func forEachSlot(containing needle: [UInt8], in slots: Range<Int>, _ body: (Int) -> Void) {
    guard !needle.isEmpty, !slots.isEmpty else { return }
    needle.withUnsafeBufferPointer { needle in
      withUnsafeBytes { haystack, starts in
        let end = Int(starts[slots.upperBound])
        var from = Int(starts[slots.lowerBound])
        var slot = slots.lowerBound
        while let found = ByteSearch.firstOffset(of: needle, in: haystack, range: from..<end) {
          slot = Self.slot(containing: found, from: slot, starts: starts)
          body(slot)
          slot += 1
          from = Int(starts[slot])
        }
      }
    }
  }

  /// Whether the slot's bytes contain `needle`.
  func slot(_ slot: Int, contains needle: [UInt8]) -> Bool {
    needle.withUnsafeBufferPointer { needle in
      bytes.withUnsafeBufferPointer { haystack in
        ByteSearch.contains(needle, in: haystack, range: range(of: slot))
      }
    }
  }

  /// A copy keeping only the given slots, in the given order.
  func compacted(keeping slots: [Int]) -> FoldedColumn {
    var copiedBytes: [UInt8] = []
    var copiedStarts: [UInt32] = [0]
    copiedBytes.reserveCapacity(bytes.count)
    copiedStarts.reserveCapacity(slots.count + 1)
    withUnsafeBytes { bytes, _ in
      for slot in slots {
        copiedBytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range(of: slot)]))
        copiedStarts.append(UInt32(truncatingIfNeeded: copiedBytes.count))
      }
    }
    return FoldedColumn(bytes: copiedBytes, starts: copiedStarts)
  }
}

extension FoldedColumn {
  /// Columns of consecutive slot ranges, folded apart, joined in order.
  static func joined(_ parts: [FoldedColumn]) -> FoldedColumn {
    if parts.count == 1 { return parts[0] }
    // One copy into buffers of the final size, not a copy of the first part that then grows.
    var result = FoldedColumn()
    result.reserve(
      bytes: parts.reduce(0) { $0 + $1.bytes.count }, slots: parts.reduce(0) { $0 + $1.slotCount })
    for part in parts { result.append(contentsOf: part) }
    return result
  }

  /// Reading columns of consecutive slot ranges joined in order; a part without readings
  /// (nil) stands for `slotCounts[i]` empty slots. Nil when no part has any.
  static func joinedReadings(_ parts: [FoldedColumn?], slotCounts: [Int]) -> FoldedColumn? {
    guard parts.contains(where: { $0 != nil }) else { return nil }
    var result = FoldedColumn()
    for (part, count) in zip(parts, slotCounts) {
      if let part {
        result.append(contentsOf: part)
      } else {
        result.appendEmpty(count: count)
      }
    }
    return result
  }
}

extension FoldedColumn? {
  /// Appends the readings of `values` as the next slot, creating the column (with
  /// `slotsBefore` empty slots) when the first reading arrives; a column stays nil until then.
  mutating func appendReadings(_ values: [String], slotsBefore: Int) {
    if self == nil {
      guard values.contains(where: Readings.hasReading) else { return }
      var created = FoldedColumn()
      created.appendEmpty(count: slotsBefore)
      self = created
    }
    self!.appendReadings(values)
  }
}
