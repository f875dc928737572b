import Testing

@testable import Sift

@Suite("Line filter")
struct LineFilterTests {
  @Test("folding from bytes on every core equals folding Strings, on random lines")
  func bytesEqualStrings() {
    var random = SplitMix64(seed: 404)
    let pieces: [[UInt8]] = [
      Array("da".utf8), Array(" ".utf8), Array("Nẵng".utf8), Array("서울".utf8), Array("ㅅ".utf8),
      Array("SAN".utf8), [0xFF], [0xC3], Array("Straße".utf8), Array("a".utf8), [0x09],
    ]
    // Up to 120,000 lines, so the fold is split across cores (50,000 lines a part at least).
    for lineCount in [0, 1, 7, 3_000, 120_000] {
      var buffer: [UInt8] = []
      var ranges: [Range<Int>] = []
      for _ in 0..<lineCount {
        let start = buffer.count
        for _ in 0..<Int.random(in: 0...4, using: &random) {
          buffer += pieces.randomElement(using: &random)!
        }
        ranges.append(start..<buffer.count)
        buffer.append(0x0A)
      }
      let strings = ranges.map { String(decoding: buffer[$0], as: UTF8.self) }
      let reference = LineFilter(lines: strings)
      let fast = buffer.withUnsafeBufferPointer { LineFilter(utf8: $0, lines: ranges) }
      for query in ["da", "nang", "서우", "ㅅㅇ", "ss", "\u{FFFD}", "a -san", "\"a da\""] {
        #expect(fast.matches(query) == reference.matches(query), "\(query)")
        #expect(fast.matches(query, mode: .fuzzy) == reference.matches(query, mode: .fuzzy))
      }
    }
  }
}
