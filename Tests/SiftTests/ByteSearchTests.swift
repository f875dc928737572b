import SiftTestSupport
import Testing

@testable import Sift

@Suite("Byte search", .tags(.unit))
struct ByteSearchTests {
  /// Haystacks of common letters, so both the memchr path (a rare byte in the needle) and the
  /// 16-at-a-time pair path (only common bytes) meet many near misses; lengths cross the 16-byte
  /// steps and the 64-byte threshold.
  @Test(
    "the first offset equals a naive search",
    arguments: ["a", "sa", "an", "ana", "sanf", "zq", "nnnn", "ea ", "ẵ", "ss"])
  func firstOffsetMatchesNaive(needle: String) {
    var random = SplitMix64(seed: 77)
    let alphabet = Array("sanea zq".utf8) + Array("ẵ".utf8)
    let needleBytes = Array(needle.utf8)
    for length in [0, 1, 15, 16, 17, 63, 64, 65, 200, 1_000] {
      for _ in 0..<40 {
        let haystack = (0..<length).map { _ in alphabet.randomElement(using: &random)! }
        let from = length == 0 ? 0 : Int.random(in: 0..<length, using: &random)
        let found = needleBytes.withUnsafeBufferPointer { needle in
          haystack.withUnsafeBufferPointer { haystack in
            ByteSearch.firstOffset(of: needle, in: haystack, range: from..<length)
          }
        }
        let expected = ReferenceMatcher.offsets(Array(haystack[from...]), needleBytes).first
          .map { $0 + from }
        #expect(found == expected, "\(needle) in \(length) bytes from \(from)")
      }
    }
  }
}
