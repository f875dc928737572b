import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A text column as raw memory, with per-slot summaries that let ranking skip work: which
/// first bytes start a word, and which value lengths occur.
struct RawColumn {
  var bytes: UnsafeBufferPointer<UInt8>
  var starts: UnsafeBufferPointer<UInt32>
  /// Nil without summaries (a line index): every bit set.
  var wordStarts: UnsafeBufferPointer<UInt32>?
  var valueStarts: UnsafeBufferPointer<UInt32>?
  var lengths: UnsafeBufferPointer<UInt64>?

  /// Whether a value of the slot may start with `byte`.
  @inline(__always)
  func mayStartValue(_ slot: Int, with byte: UInt8) -> Bool {
    valueStarts.map { $0[slot] & Self.wordStartBit(byte) != 0 } ?? true
  }

  /// Whether a word of the slot may start with `byte`.
  @inline(__always)
  func mayStartWord(_ slot: Int, with byte: UInt8) -> Bool {
    wordStarts.map { $0[slot] & Self.wordStartBit(byte) != 0 } ?? true
  }

  /// Whether a value of the slot may be `count` bytes long.
  @inline(__always)
  func mayHaveValue(_ slot: Int, ofLength count: Int) -> Bool {
    lengths.map { $0[slot] & Self.lengthBit(count) != 0 } ?? true
  }

  /// The bit of `wordStarts` for words starting with `byte`: a letter or digit of its own, any
  /// other lead byte shares one of the remaining bits.
  @inline(__always)
  static func wordStartBit(_ byte: UInt8) -> UInt32 {
    switch byte {
    case 0x61...0x7A: 1 << UInt32(byte - 0x61)
    case 0x30...0x39: 1 << 26
    default: 1 << UInt32(27 + Int(byte) % 5)
    }
  }

  /// Whether words starting with `byte` have a `wordStarts` bit of their own.
  @inline(__always)
  static func hasOwnBit(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }

  /// The bit of `lengths` for values of `count` bytes (63: 63 or more).
  @inline(__always)
  static func lengthBit(_ count: Int) -> UInt64 { 1 << UInt64(min(count, 63)) }

  /// The first of the slot's values that starts with `query`, preferring one that equals it;
  /// with `wholeWords`, one where the query's last word is a whole word of the value.
  func valueStarting(
    with query: UnsafeBufferPointer<UInt8>, inSlot slot: Int, wholeWords: Bool = false
  ) -> (offset: Int, isEqual: Bool)? {
    var start = Int(starts[slot])
    let end = Int(starts[slot + 1])
    let base = bytes.baseAddress!
    // Past the first value that starts with the query, only an equal one can do better.
    let mayEqual = mayHaveValue(slot, ofLength: query.count)
    var found: (offset: Int, isEqual: Bool)?
    while start < end {
      let valueEnd =
        memchr(base + start, 0, end - start).map {
          UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0))
        } ?? end
      if valueEnd - start >= query.count,
        memcmp(base + start, query.baseAddress!, query.count) == 0
      {
        if valueEnd - start == query.count { return (start, true) }
        // A finished query starts a value only where its last word ends one of the value's.
        if found == nil,
          !wholeWords || NearSpelling.isWordBoundary(base[start + query.count])
        {
          found = (start, false)
        }
        if !mayEqual, found != nil { return found }
      }
      start = valueEnd + 1
    }
    return found
  }
}

/// Per-slot summaries of one text column for `RawColumn`.
struct ColumnSummary: Sendable {
  private(set) var wordStarts: IndexBuffer<UInt32> = []
  /// The first bytes of the values, in the bits of `wordStarts`.
  private(set) var valueStarts: IndexBuffer<UInt32> = []
  private(set) var lengths: IndexBuffer<UInt64> = []

  /// The summaries of `slots` slots as an archive holds them; nil when one is not that long.
  init?(
    wordStarts: IndexBuffer<UInt32>, valueStarts: IndexBuffer<UInt32>,
    lengths: IndexBuffer<UInt64>, slots: Int
  ) {
    guard wordStarts.count == slots, valueStarts.count == slots, lengths.count == slots else {
      return nil
    }
    self.wordStarts = wordStarts
    self.valueStarts = valueStarts
    self.lengths = lengths
  }

  /// Summaries of every slot of `column`, on every core.
  init(_ column: FoldedColumn) {
    let ranges = Parallel.ranges(
      count: column.slotCount, parts: Parallel.parts(for: column.slotCount, minimumPerPart: 50_000))
    let parts = Parallel.map(parts: ranges.count) { part in
      ColumnSummary(column, slots: ranges[part])
    }
    wordStarts = IndexBuffer(Array(parts.map(\.wordStarts).joined()))
    valueStarts = IndexBuffer(Array(parts.map(\.valueStarts).joined()))
    lengths = IndexBuffer(Array(parts.map(\.lengths).joined()))
  }

  /// Summaries of `column`'s slots in `slots`, on this thread: one part of a parallel build.
  init(_ column: FoldedColumn, slots: Range<Int>) {
    wordStarts.reserveCapacity(slots.count)
    valueStarts.reserveCapacity(slots.count)
    lengths.reserveCapacity(slots.count)
    column.withUnsafeBytes { bytes, starts in
      for slot in slots { append(slot, bytes: bytes, starts: starts) }
    }
  }

  /// These summaries followed by `other`'s.
  mutating func append(contentsOf other: ColumnSummary) {
    other.wordStarts.withUnsafeBufferPointer { wordStarts.append(contentsOf: $0) }
    other.valueStarts.withUnsafeBufferPointer { valueStarts.append(contentsOf: $0) }
    other.lengths.withUnsafeBufferPointer { lengths.append(contentsOf: $0) }
  }

  /// Adds the summary of `column`'s last slot.
  mutating func appendLast(of column: FoldedColumn) {
    column.withUnsafeBytes { bytes, starts in
      append(column.slotCount - 1, bytes: bytes, starts: starts)
    }
  }

  private mutating func append(
    _ slot: Int, bytes: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<UInt32>
  ) {
    var words: UInt32 = 0
    var values: UInt32 = 0
    var lengths: UInt64 = 0
    var valueStart = Int(starts[slot])
    let end = Int(starts[slot + 1])
    for offset in valueStart..<end {
      let byte = bytes[offset]
      if byte == 0 {
        lengths |= RawColumn.lengthBit(offset - valueStart)
        valueStart = offset + 1
        continue
      }
      if offset == valueStart { values |= RawColumn.wordStartBit(byte) }
      if !NearSpelling.isWordBoundary(byte),
        offset == Int(starts[slot]) || NearSpelling.isWordBoundary(bytes[offset - 1])
      {
        words |= RawColumn.wordStartBit(byte)
      }
    }
    wordStarts.append(words)
    valueStarts.append(values)
    self.lengths.append(lengths)
  }

  /// A copy keeping only the given slots, in the given order.
  func compacted(keeping slots: [Int]) -> ColumnSummary {
    var copy = ColumnSummary()
    copy.wordStarts = IndexBuffer(
      wordStarts.withUnsafeBufferPointer { old in slots.map { old[$0] } })
    copy.valueStarts = IndexBuffer(
      valueStarts.withUnsafeBufferPointer { old in slots.map { old[$0] } })
    copy.lengths = IndexBuffer(lengths.withUnsafeBufferPointer { old in slots.map { old[$0] } })
    return copy
  }

  /// No slots yet.
  init() {}
}

extension ColumnSummary? {
  /// The summaries as raw memory; nil pointers when there are none.
  func withUnsafeBuffers<Result>(
    _ body: (
      UnsafeBufferPointer<UInt32>?, UnsafeBufferPointer<UInt32>?, UnsafeBufferPointer<UInt64>?
    ) -> Result
  ) -> Result {
    guard let summary = self else { return body(nil, nil, nil) }
    return summary.wordStarts.withUnsafeBufferPointer { words in
      summary.valueStarts.withUnsafeBufferPointer { values in
        summary.lengths.withUnsafeBufferPointer { body(words, values, $0) }
      }
    }
  }
}
