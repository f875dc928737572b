#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Substring search over folded UTF-8 bytes.
///
/// It looks for the needle's *rarest* byte with `memchr` (vectorised in every C library) and
/// checks the whole needle only there, so a scan runs at memory speed and seldom stops.
enum ByteSearch {
  /// The offset of the first occurrence of `needle` in `haystack[range]`, or nil.
  @inline(__always)
  static func firstOffset(
    of needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>,
    range: Range<Int>
  ) -> Int? {
    guard let needleBase = needle.baseAddress, !needle.isEmpty else { return range.lowerBound }
    guard range.count >= needle.count, let base = haystack.baseAddress else { return nil }
    let anchor = rarestByteOffset(needle)
    let anchorByte = Int32(needle[anchor])
    // memchr stops every few bytes when even the rarest byte is common ("sa"): compare the first
    // and last bytes of 16 starts at once instead.
    if needle.count >= 2, commonness[Int(anchorByte)] >= 150, range.count >= 64 {
      return firstOffsetByPairs(of: needle, in: base, range: range)
    }
    return firstOffset(
      of: needleBase, count: needle.count, anchor: anchor, in: base, range: range)
  }

  /// `firstOffset` with the needle's rarest byte (`rarestByteOffset`) worked out once by the
  /// caller, for a caller that looks for the same needle in many short haystacks.
  @inline(__always)
  static func firstOffset(
    of needle: UnsafePointer<UInt8>, count: Int, anchor: Int, in base: UnsafePointer<UInt8>,
    range: Range<Int>
  ) -> Int? {
    let anchorByte = Int32(needle[anchor])
    // Candidate starts are range.lowerBound ... range.upperBound - count.
    var start = range.lowerBound
    let lastStart = range.upperBound - count
    while start <= lastStart {
      let from = base + start + anchor
      let length = lastStart - start + 1
      guard let hit = memchr(from, anchorByte, length) else { return nil }
      let candidate = start + UnsafeRawPointer(from).distance(to: UnsafeRawPointer(hit))
      // A one-byte needle is its anchor: memchr already matched it.
      if count == 1 || memcmp(base + candidate, needle, count) == 0 { return candidate }
      start = candidate + 1
    }
    return nil
  }

  /// `firstOffset` by the SIMD "first and last byte" filter: 16 candidate starts a step, each
  /// kept only where the needle's first byte and its last byte both sit; memcmp checks those.
  @inline(__always)
  private static func firstOffsetByPairs(
    of needle: UnsafeBufferPointer<UInt8>, in base: UnsafePointer<UInt8>, range: Range<Int>
  ) -> Int? {
    let needleBase = needle.baseAddress!
    let lastOffset = needle.count - 1
    let first = SIMD16<UInt8>(repeating: needle[0])
    let last = SIMD16<UInt8>(repeating: needle[lastOffset])
    let raw = UnsafeRawPointer(base)
    var start = range.lowerBound
    let lastStart = range.upperBound - needle.count
    while start + 15 <= lastStart {
      let starting = raw.loadUnaligned(fromByteOffset: start, as: SIMD16<UInt8>.self)
      let ending = raw.loadUnaligned(fromByteOffset: start + lastOffset, as: SIMD16<UInt8>.self)
      let candidates = (starting .== first) .& (ending .== last)
      if any(candidates) {
        for lane in 0..<16 where candidates[lane] {
          // Two bytes are both checked by the filter itself.
          if needle.count == 2 || memcmp(base + start + lane, needleBase, needle.count) == 0 {
            return start + lane
          }
        }
      }
      start += 16
    }
    while start <= lastStart {
      if base[start] == needle[0], memcmp(base + start, needleBase, needle.count) == 0 {
        return start
      }
      start += 1
    }
    return nil
  }

  /// Whether `needle` occurs in `haystack[range]`.
  @inline(__always)
  static func contains(
    _ needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>,
    range: Range<Int>
  ) -> Bool {
    firstOffset(of: needle, in: haystack, range: range) != nil
  }

  /// Every start offset of `needle` in `haystack` (non-overlapping, left to right).
  static func allOffsets(of needle: [UInt8], in haystack: [UInt8]) -> [Int] {
    guard !needle.isEmpty else { return [] }
    var offsets: [Int] = []
    needle.withUnsafeBufferPointer { needle in
      haystack.withUnsafeBufferPointer { haystack in
        var from = 0
        while let found = firstOffset(of: needle, in: haystack, range: from..<haystack.count) {
          offsets.append(found)
          from = found + needle.count
        }
      }
    }
    return offsets
  }

  /// The offset in `needle` of the byte least likely to occur in folded text.
  @inline(__always)
  static func rarestByteOffset(_ needle: UnsafeBufferPointer<UInt8>) -> Int {
    var best = 0
    var bestRank = commonness[Int(needle[0])]
    for offset in needle.indices.dropFirst() where commonness[Int(needle[offset])] < bestRank {
      best = offset
      bestRank = commonness[Int(needle[offset])]
    }
    return best
  }

  /// How common each byte is in folded text, 0 (rare) to 255 (very common): lowercase letters
  /// by their frequency in Latin-script names, space and vowels highest, UTF-8 continuation
  /// bytes and the lead bytes of common scripts high, uppercase (never in folded text) zero.
  static let commonness: [UInt8] = {
    var table = [UInt8](repeating: 20, count: 256)
    let letters = "eaniorltsudkcmhgbpyvzfwjxq"
    for (rank, letter) in letters.utf8.enumerated() {
      table[Int(letter)] = UInt8(240 - rank * 8)
    }
    table[Int(UInt8(ascii: " "))] = 250
    for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(byte)] = 0 }
    for byte in 0x80...0xBF { table[byte] = 200 }  // continuation bytes
    for byte in [0xC3, 0xC4, 0xC5, 0xD0, 0xD1, 0xD8, 0xD9, 0xE1, 0xE3, 0xE4, 0xE5, 0xE6, 0xE7] {
      table[byte] = 150
    }
    return table
  }()
}
