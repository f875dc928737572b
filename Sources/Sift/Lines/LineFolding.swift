#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Splits a UTF-8 buffer into lines and folds them in the same pass, the way `sift filter`
/// reads its input: each byte is read once, ASCII bytes (most of them) are folded where they
/// stand, other scalars are validated, decoded and looked up as they come, and the folded bytes
/// are written straight into the column, never through a `String` or a per-line array.
enum LineFolding {
  /// One part of the buffer, folded: where its lines start, their folded text and their
  /// initial-consonant keys.
  struct Part {
    /// The folded lines, each followed by a 0 byte: in the region given (`count` bytes of it)
    /// or, when they outgrew it, in an array of their own.
    enum Output {
      case inPlace(count: Int)
      case moved([UInt8])
    }
    var output: Output
    var inPlaceCount: Int? {
      if case .inPlace(let count) = output { count } else { nil }
    }
    /// Where each folded line starts in the output, then the output's end.
    var starts: [UInt32]
    var initials: FoldedColumn?
    /// Where each line starts in the input, from the part's start.
    var lineStarts: [UInt32]
  }

  /// Boundaries that cut `buffer` into about `parts` pieces, each just after a "\n".
  static func partBoundaries(of buffer: UnsafeBufferPointer<UInt8>, parts: Int) -> [Range<Int>] {
    guard let base = buffer.baseAddress, parts > 1 else { return [0..<buffer.count] }
    var ranges: [Range<Int>] = []
    var start = 0
    for part in 1..<parts {
      let target = max(start, buffer.count * part / parts)
      guard target < buffer.count, let newline = memchr(base + target, 0x0A, buffer.count - target)
      else { break }
      let end = base.distance(to: newline.assumingMemoryBound(to: UInt8.self)) + 1
      ranges.append(start..<end)
      start = end
    }
    ranges.append(start..<buffer.count)
    return ranges
  }

  /// The lines of `buffer[range]`, folded into `region` (which should have room for
  /// `range.count` bytes and a few more). Lines that are not valid UTF-8 are folded as
  /// `String(decoding:as:)` reads them (with replacement characters).
  static func fold(
    _ buffer: UnsafeBufferPointer<UInt8>, range: Range<Int>,
    into region: UnsafeMutableBufferPointer<UInt8>
  ) -> Part {
    var out = OutputBytes(region: region)
    defer { out.deallocate() }
    out.reserve(range.count + 1)  // the room the unchecked ASCII writes rely on
    var starts: [UInt32] = [0]
    var lineStarts: [UInt32] = []
    starts.reserveCapacity(range.count / 10)
    lineStarts.reserveCapacity(range.count / 10)
    var initials: FoldedColumn?
    let table = FoldingTable.shared

    var lineStart = range.lowerBound
    var lineHasHangul = false
    var i = range.lowerBound
    let end = range.upperBound

    func finishLine(at lineEnd: Int) {
      var contentEnd = lineEnd
      if contentEnd > lineStart, buffer[contentEnd - 1] == 0x0D {
        contentEnd -= 1
        out.count -= 1  // the "\r" was folded to one space
      }
      out.append(0)
      starts.append(UInt32(truncatingIfNeeded: out.count))
      lineStarts.append(UInt32(truncatingIfNeeded: lineStart - range.lowerBound))
      if lineHasHangul {
        let line = String(
          decoding: UnsafeBufferPointer(rebasing: buffer[lineStart..<contentEnd]), as: UTF8.self)
        initials.appendInitials([line], slotsBefore: lineStarts.count - 1)
      } else {
        initials?.appendEmpty(count: 1)
      }
      lineHasHangul = false
      lineStart = lineEnd + 1
    }

    // An empty buffer may have no address at all; it has no lines either.
    guard let input = UnsafeRawPointer(buffer.baseAddress) else {
      return Part(output: .inPlace(count: 0), starts: [0], initials: nil, lineStarts: [])
    }
    while i < end {
      // Eight printable ASCII bytes at a time (most of a line), folded in a register.
      // Output never outgrows the input here: the room left is kept at least the input left.
      while i + 8 <= end {
        let word = input.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        guard let folded = foldedPrintableASCII(word) else { break }
        UnsafeMutableRawPointer(out.base + out.count).storeBytes(of: folded, as: UInt64.self)
        out.count += 8
        i += 8
      }
      guard i < end else { break }
      let byte = buffer[i]
      if byte < 0x80 {
        if byte == 0x0A {
          finishLine(at: i)
        } else {
          out.append(TextFolding.foldASCII(byte))
        }
        i += 1
        continue
      }
      guard let (scalar, length) = UTF8Validation.scalar(in: buffer, at: i) else {
        // Not UTF-8: fold this line again the way a String reads it.
        let lineEnd = newline(in: buffer, from: i, end: end)
        out.count = Int(starts[starts.count - 1])
        var folded: [UInt8] = []
        let line = UnsafeBufferPointer(rebasing: buffer[lineStart..<lineEnd])
        TextFolding.append(String(decoding: line, as: UTF8.self), to: &folded)
        out.reserve(folded.count + (end - lineEnd) + 1)
        for folded in folded { out.append(folded) }
        lineHasHangul = line.contains { $0 >= 0xEA && $0 <= 0xED }
        if lineEnd < end {
          finishLine(at: lineEnd)
        } else {
          // The last line has no "\n"; `finishLine` below ends it.
          i = end
          break
        }
        i = lineEnd + 1
        continue
      }
      let remainingInput = end - i - length
      if scalar >= TextFolding.hangulBase && scalar <= TextFolding.hangulLast {
        lineHasHangul = true
        out.reserve(9 + remainingInput)
        out.count += TextFolding.encodeHangul(scalar, initialsOnly: false, into: out.free)
      } else {
        let replaced = table.withReplacement(of: scalar) { folded in
          out.reserve(folded.count + remainingInput)
          for byte in folded { out.append(byte) }
        }
        if !replaced {
          for offset in 0..<length { out.append(buffer[i + offset]) }
        }
      }
      i += length
    }
    if lineStart < end { finishLine(at: end) }

    let output: Part.Output = out.isInRegion ? .inPlace(count: out.count) : .moved(out.array())
    return Part(output: output, starts: starts, initials: initials, lineStarts: lineStarts)
  }

  /// `word`'s eight bytes folded (A–Z lowered), or nil unless all are printable ASCII
  /// (0x20…0x7E): the SWAR checks of "Bit Twiddling Hacks", one byte a lane.
  @inline(__always)
  static func foldedPrintableASCII(_ word: UInt64) -> UInt64? {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    guard word & highs == 0 else { return nil }
    // A byte below 0x20 (a control, "\n", "\r") or equal to 0x7F: leave it to the byte loop.
    let belowSpace = (word &- ones &* 0x20) & ~word & highs
    let delete = ((word ^ (ones &* 0x7F)) &- ones) & ~(word ^ (ones &* 0x7F)) & highs
    guard belowSpace | delete == 0 else { return nil }
    // High bit of each lane: byte >= "A", and byte > "Z"; upper case is the first without the second.
    let atLeastA = (word &+ ones &* (0x80 - 0x41)) & highs
    let aboveZ = (word &+ ones &* (0x7F - 0x5A)) & highs
    return word | ((atLeastA & ~aboveZ) >> 2)
  }

  private static func newline(in buffer: UnsafeBufferPointer<UInt8>, from: Int, end: Int) -> Int {
    guard let base = buffer.baseAddress, from < end,
      let found = memchr(base + from, 0x0A, end - from)
    else { return end }
    return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
  }
}

/// A byte buffer written without bounds or uniqueness checks: first a region of a larger
/// buffer, then, if the output outgrows it, memory of its own. Callers keep the room left at
/// least the input left to read, calling `reserve` before a scalar that folds longer.
private struct OutputBytes {
  private(set) var base: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  var count = 0
  /// Still writing into the region it was given (which it does not own).
  private(set) var isInRegion = true

  init(region: UnsafeMutableBufferPointer<UInt8>) {
    base = region.baseAddress!
    capacity = region.count
  }

  @inline(__always)
  mutating func append(_ byte: UInt8) {
    base[count] = byte
    count += 1
  }

  /// Makes room for `extra` more bytes (plus a line's separator).
  @inline(__always)
  mutating func reserve(_ extra: Int) {
    guard count + extra + 1 > capacity else { return }
    let grown = max(capacity * 2, count + extra + 64)
    let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
    moved.update(from: base, count: count)
    if !isInRegion { base.deallocate() }
    base = moved
    capacity = grown
    isInRegion = false
  }

  /// The room after the bytes written.
  var free: UnsafeMutableBufferPointer<UInt8> {
    UnsafeMutableBufferPointer(start: base + count, count: capacity - count)
  }

  func array() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

  func deallocate() { if !isInRegion { base.deallocate() } }
}

/// Where each line of a buffer starts, four bytes a line (a line's end is the next "\n"), so
/// that a million lines cost little fresh memory.
public struct LineStarts: Sendable {
  struct Part: Sendable {
    /// The offset of the part in the buffer.
    var base: Int
    /// Where each of its lines starts, from `base`.
    var starts: [UInt32]
  }

  private let parts: [Part]
  /// The index of each part's first line.
  private let firstLines: [Int]
  public let count: Int

  init(parts: [Part]) {
    self.parts = parts
    var first = 0
    firstLines = parts.map { part in
      defer { first += part.starts.count }
      return first
    }
    count = first
  }

  /// The byte range of line `index` in `buffer` (the buffer the lines were split from),
  /// without its "\n" or "\r\n".
  public func range(ofLine index: Int, in buffer: UnsafeBufferPointer<UInt8>) -> Range<Int> {
    var part = parts.count - 1
    while firstLines[part] > index { part -= 1 }
    let start = parts[part].base + Int(parts[part].starts[index - firstLines[part]])
    var end = start
    if let base = buffer.baseAddress, start < buffer.count,
      let newline = memchr(base + start, 0x0A, buffer.count - start)
    {
      end = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
    } else {
      end = buffer.count
    }
    if end > start, buffer[end - 1] == 0x0D { end -= 1 }
    return start..<end
  }
}
