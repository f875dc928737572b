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
  /// readings (`Readings`).
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
    var readings: FoldedColumn?
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
  /// `String(decoding:as:)` reads them (with replacement characters). With a `prefilter`, only
  /// the lines that may match it are kept: the others are folded and let go.
  static func fold(
    _ buffer: UnsafeBufferPointer<UInt8>, range: Range<Int>,
    into region: UnsafeMutableBufferPointer<UInt8>, keeping prefilter: LinePrefilter? = nil
  ) -> Part {
    // An empty buffer may have no address at all; it has no lines either.
    guard let input = UnsafeRawPointer(buffer.baseAddress) else {
      return Part(output: .inPlace(count: 0), starts: [0], readings: nil, lineStarts: [])
    }
    var out = OutputBytes(region: region)
    defer { out.deallocate() }
    out.reserve(range.count + 1)  // the room the unchecked ASCII writes rely on
    var lines = LineWriter(partStart: range.lowerBound, prefilter: prefilter)
    lines.reserve(prefilter == nil ? range.count / 10 : 1024)
    let table = FoldingTable.shared

    // Nothing below is captured by a closure, so `out` and `i` stay in registers.
    var i = range.lowerBound
    let end = range.upperBound
    while i < end {
      // Eight printable ASCII bytes at a time (most of a line), folded in a register.
      // Output never outgrows the input here: the room left is kept at least the input left.
      // A word that ends in something else (a line's "\n", a non-ASCII letter) still gives
      // its printable ASCII start: all eight bytes are stored, the count moves past those.
      while i + 8 <= end {
        let word = UInt64(littleEndian: input.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let (folded, count) = foldedPrintableASCIIPrefix(word)
        UnsafeMutableRawPointer(out.base + out.count).storeBytes(
          of: folded.littleEndian, as: UInt64.self)
        out.count += count
        i += count
        guard count == 8 else { break }
      }
      guard i < end else { break }
      let byte = buffer[i]
      if byte < 0x80 {
        if byte == 0x0A {
          lines.finishLine(at: i, in: buffer, out: &out)
        } else if byte != TextFolding.apostrophe {
          out.append(TextFolding.foldASCII(byte))
        }
        i += 1
        continue
      }
      guard let (scalar, length) = UTF8Validation.scalar(in: buffer, at: i) else {
        // Not UTF-8: fold this line again the way a String reads it.
        let lineEnd = newline(in: buffer, from: i, end: end)
        out.count = lines.currentOutputStart
        var folded: [UInt8] = []
        let line = UnsafeBufferPointer(rebasing: buffer[lines.lineStart..<lineEnd])
        TextFolding.append(String(decoding: line, as: UTF8.self), to: &folded)
        out.reserve(folded.count + (end - lineEnd) + 1)
        for folded in folded { out.append(folded) }
        lines.lineMayRead = line.contains { $0 >= 0xE3 && $0 <= 0xEF }
        if lineEnd < end {
          lines.finishLine(at: lineEnd, in: buffer, out: &out)
        } else {
          // The last line has no "\n"; `finishLine` below ends it.
          i = end
          break
        }
        i = lineEnd + 1
        continue
      }
      let remainingInput = end - i - length
      if length == 3, Readings.mayRead(scalar) { lines.lineMayRead = true }
      if scalar >= TextFolding.hangulBase && scalar <= TextFolding.hangulLast {
        out.reserve(9 + remainingInput)
        out.count += TextFolding.encodeHangul(scalar, initialsOnly: false, into: out.free)
      } else if let folded = table.replacement(of: scalar) {
        out.reserve(folded.count + remainingInput)
        for byte in folded { out.append(byte) }
      } else {
        for offset in 0..<length { out.append(buffer[i + offset]) }
      }
      i += length
    }
    if lines.lineStart < end { lines.finishLine(at: end, in: buffer, out: &out) }

    let output: Part.Output = out.isInRegion ? .inPlace(count: out.count) : .moved(out.array())
    return Part(
      output: output, starts: lines.starts, readings: lines.readings,
      lineStarts: lines.lineStarts)
  }

  /// The lines of one part as they are finished: where each starts in the output and in the
  /// input, and their readings (`Readings`).
  private struct LineWriter {
    let partStart: Int
    let prefilter: LinePrefilter?
    var starts: [UInt32] = [0]
    var lineStarts: [UInt32] = []
    var readings: FoldedColumn?
    /// Where the line being folded starts in the input.
    var lineStart: Int
    var lineMayRead = false

    init(partStart: Int, prefilter: LinePrefilter?) {
      self.partStart = partStart
      self.prefilter = prefilter
      lineStart = partStart
    }

    mutating func reserve(_ lines: Int) {
      starts.reserveCapacity(lines)
      lineStarts.reserveCapacity(lines)
    }

    /// Where the line being folded starts in the output.
    var currentOutputStart: Int { Int(starts[starts.count - 1]) }

    /// Ends the line being folded at `lineEnd` (its "\n", or the end of the part): keeps it,
    /// unless the prefilter says it cannot match, and starts the next one.
    mutating func finishLine(
      at lineEnd: Int, in buffer: UnsafeBufferPointer<UInt8>, out: inout OutputBytes
    ) {
      defer {
        lineMayRead = false
        lineStart = lineEnd + 1
      }
      var contentEnd = lineEnd
      if contentEnd > lineStart, buffer[contentEnd - 1] == 0x0D {
        contentEnd -= 1
        out.count -= 1  // the "\r" was folded to one space
      }
      let outputStart = currentOutputStart
      if let prefilter, !lineMayRead,
        !prefilter.mayMatch(out.base + outputStart, count: out.count - outputStart)
      {
        out.count = outputStart
        return
      }
      out.append(0)
      starts.append(UInt32(truncatingIfNeeded: out.count))
      lineStarts.append(UInt32(truncatingIfNeeded: lineStart - partStart))
      if lineMayRead {
        let line = String(
          decoding: UnsafeBufferPointer(rebasing: buffer[lineStart..<contentEnd]), as: UTF8.self)
        readings.appendReadings([line], slotsBefore: lineStarts.count - 1)
      } else {
        readings?.appendEmpty(count: 1)
      }
    }
  }

  /// `word`'s bytes folded (A–Z lowered) and how many of its first bytes are printable ASCII
  /// (0x20…0x7E): the lanes from there on are not to be used. The SWAR checks of "Bit Twiddling
  /// Hacks" are exact up to the first lane they flag (carries and borrows only move upwards).
  @inline(__always)
  static func foldedPrintableASCIIPrefix(_ word: UInt64) -> (folded: UInt64, count: Int) {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let belowSpace = (word &- ones &* 0x20) & ~word & highs
    let delete = ((word ^ (ones &* 0x7F)) &- ones) & ~(word ^ (ones &* 0x7F)) & highs
    // An apostrophe is dropped, which the byte loop does.
    let quote = ((word ^ (ones &* 0x27)) &- ones) & ~(word ^ (ones &* 0x27)) & highs
    let stops = (word & highs) | belowSpace | delete | quote
    let atLeastA = (word &+ ones &* (0x80 - 0x41)) & highs
    let aboveZ = (word &+ ones &* (0x7F - 0x5A)) & highs
    // The first byte is the lowest lane (the caller loads words little-endian).
    return (word | ((atLeastA & ~aboveZ) >> 2), stops.trailingZeroBitCount >> 3)
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
package struct LineStarts: Sendable {
  struct Part: Sendable {
    /// The offset of the part in the buffer.
    var base: Int
    /// Where each of its lines starts, from `base`.
    var starts: [UInt32]
  }

  private let parts: [Part]
  /// The index of each part's first line.
  private let firstLines: [Int]
  package let count: Int

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
  package func range(ofLine index: Int, in buffer: UnsafeBufferPointer<UInt8>) -> Range<Int> {
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
