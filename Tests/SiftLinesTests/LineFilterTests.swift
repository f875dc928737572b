import SiftLines
import SiftTestSupport
import Testing

@testable import Sift

@Suite("Line filter", .tags(.unit))
struct LineFilterTests {
  @Test(
    "splitting and folding bytes on every core equals folding Strings, on random lines",
    .tags(.large), .notInFastRun)
  func bytesEqualStrings() {
    var random = SplitMix64(seed: 404)
    let pieces: [[UInt8]] = [
      Array("da".utf8), Array(" ".utf8), Array("Nẵng".utf8), Array("서울".utf8), Array("ㅅ".utf8),
      Array("SAN".utf8), [0xFF], [0xC3], Array("Straße".utf8), Array("a".utf8), [0x09],
      [0x0D, 0x61],
      Array("ﷺ".utf8), [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82],
      Array("ヨコハマ".utf8), Array("ｶﾞ".utf8), Array("كهريزـة".utf8), Array("٢٠۱۰".utf8),
      Array("北京".utf8), Array("トーキョー".utf8),
    ]
    // Up to 300,000 lines (over 2 MB), so the buffer is split across cores.
    for lineCount in [0, 1, 2, 7, 3_000, 300_000] {
      var buffer: [UInt8] = []
      var ranges: [Range<Int>] = []
      for line in 0..<lineCount {
        let start = buffer.count
        for _ in 0..<Int.random(in: 0...4, using: &random) {
          buffer += pieces.randomElement(using: &random)!
        }
        ranges.append(start..<buffer.count)
        // "\r\n" or "\n" endings; the last line sometimes has none.
        if line == lineCount - 1, Bool.random(using: &random), !ranges[line].isEmpty { break }
        if Bool.random(using: &random) { buffer.append(0x0D) }
        buffer.append(0x0A)
      }
      let strings = ranges.map { String(decoding: buffer[$0], as: UTF8.self) }
      let reference = SearchIndex(lines: strings)
      let (fast, lines) = buffer.withUnsafeBufferPointer { SearchIndex.lines(utf8: $0) }
      // Compared as Bools: a failing comparison of huge arrays would be diffed for minutes.
      let sameLines = buffer.withUnsafeBufferPointer { buffer in
        lines.count == ranges.count
          && ranges.indices.allSatisfy { lines.range(ofLine: $0, in: buffer) == ranges[$0] }
      }
      let sameColumn =
        fast.columns[0].bytes == reference.columns[0].bytes
        && fast.columns[0].starts == reference.columns[0].starts
      let sameReadings =
        fast.readingColumns[0]?.bytes == reference.readingColumns[0]?.bytes
        && fast.readingColumns[0]?.starts == reference.readingColumns[0]?.starts
      #expect(sameLines, "\(lineCount) lines")
      #expect(sameColumn, "\(lineCount) lines")
      #expect(sameReadings, "\(lineCount) lines")
      let filter = buffer.withUnsafeBufferPointer { LineFilter.splitting(utf8: $0).filter }
      let referenceFilter = LineFilter(lines: strings)
      // Every query on the small buffers; on the split one, a query of each kind (the reference
      // folds Strings, which takes minutes in a debug build).
      let allQueries = [
        "da", "nang", "서우", "ㅅㅇ", "ss", "\u{FFFD}", "a -san", "\"a da\"", "-a", "line:da n",
        "other:da", "DA ng", "", "bj", "beijing", "tokyo", "yokohama",
      ]
      let queries =
        lineCount > 10_000 ? ["ㅅㅇ", "a -san", "line:da n", "bj"] : allQueries
      for query in queries {
        expectSameMatches(filter, buffer, ranges: ranges, reference: referenceFilter, query: query)
      }
    }
  }

  /// Text that folds no longer than it is (accents, capitals, CRLF), over 2 MB: each core folds
  /// in place into its region of one buffer, with a gap of zeros between the regions. (Hangul
  /// in the test above folds longer and takes the copying path instead.)
  @Test(
    "folding in place on every core: same lines, values and matches as folding Strings",
    .tags(.large), .notInFastRun)
  func inPlaceParts() {
    var random = SplitMix64(seed: 2_026)
    let pieces = ["da", " ", "Nẵng", "SAN", "Straße", "Łódź", "a", "\t", "ÀÉ", "x-y"]
    var text = ""
    var lines: [String] = []
    for _ in 0..<250_000 {
      let line = (0..<Int.random(in: 0...4, using: &random)).map { _ in
        pieces.randomElement(using: &random)!
      }.joined()
      lines.append(line)
      text += line + (Bool.random(using: &random) ? "\r\n" : "\n")
    }
    let buffer = Array(text.utf8)
    let reference = SearchIndex(lines: lines)
    let (fast, starts) = buffer.withUnsafeBufferPointer { SearchIndex.lines(utf8: $0) }
    #expect(fast.columns[0].bytes.count > reference.columns[0].bytes.count, "a gap: in place")
    let sameValues = buffer.withUnsafeBufferPointer { buffer in
      lines.indices.allSatisfy { line in
        let range = starts.range(ofLine: line, in: buffer)
        return String(decoding: buffer[range], as: UTF8.self) == lines[line]
          && fast.columns[0].line(line) == reference.columns[0].line(line)
      }
    }
    #expect(starts.count == lines.count && sameValues)
    let filter = buffer.withUnsafeBufferPointer { LineFilter.splitting(utf8: $0).filter }
    let referenceFilter = LineFilter(lines: lines)
    let ranges = buffer.withUnsafeBufferPointer { buffer in
      lines.indices.map { starts.range(ofLine: $0, in: buffer) }
    }
    for query in ["da", "nang", "ss", "lodz", "a -san", "\"a da\"", "x-y", "dnang", "zzzq"] {
      expectSameMatches(filter, buffer, ranges: ranges, reference: referenceFilter, query: query)
    }
  }

  /// The filter over the split buffer and `matchingLines` (which drops the lines that cannot
  /// match while folding) give the lines the reference filter (every line folded from a `String`)
  /// matches, in both modes and both orders.
  private func expectSameMatches(
    _ filter: LineFilter, _ buffer: [UInt8], ranges: [Range<Int>], reference: LineFilter,
    query: String
  ) {
    for mode in [LineFilter.Mode.exact, .fuzzy] {
      for sorted in [true, false] {
        let expected = reference.matches(query, mode: mode, sorted: sorted)
        #expect(
          filter.matches(query, mode: mode, sorted: sorted) == expected,
          "\(query) \(mode) sorted: \(sorted)")
        let onePass = buffer.withUnsafeBufferPointer {
          LineFilter.matchingLines(of: $0, query: query, mode: mode, sorted: sorted)
        }
        #expect(onePass == expected.map { ranges[$0] }, "\(query) \(mode) sorted: \(sorted)")
      }
    }
  }

  @Test("an empty buffer, even one without an address, has no lines")
  func emptyBuffer() {
    let (index, lines) = SearchIndex.lines(utf8: UnsafeBufferPointer(start: nil, count: 0))
    #expect(index.count == 0 && lines.count == 0)
    #expect(
      LineFilter.splitting(utf8: UnsafeBufferPointer(start: nil, count: 0)).filter
        .matches("a").isEmpty)
  }

  @Test("eight bytes folded at once equal their printable ASCII start folded one by one")
  func wordFolding() {
    var random = SplitMix64(seed: 8)
    // Every byte value in every lane, next to random neighbours, then random words.
    var words: [UInt64] = []
    for value in 0...255 {
      for lane in 0..<8 {
        var word = random.next() & 0x7F7F_7F7F_7F7F_7F7F | 0x2020_2020_2020_2020
        word = word & ~(0xFF << (8 * lane)) | UInt64(value) << (8 * lane)
        words.append(word)
      }
    }
    for _ in 0..<10_000 { words.append(random.next()) }
    for word in words {
      let bytes = (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
      // Printable ASCII but the apostrophe, which folding drops (the byte loop does that).
      let printable = bytes.prefix { (0x20...0x7E).contains($0) && $0 != 0x27 }.count
      let (folded, count) = LineFolding.foldedPrintableASCIIPrefix(word)
      let foldedBytes = (0..<count).map { UInt8(truncatingIfNeeded: folded >> (8 * $0)) }
      #expect(count == printable, "\(String(word, radix: 16))")
      #expect(
        foldedBytes == bytes.prefix(count).map(TextFolding.foldASCII),
        "\(String(word, radix: 16))")
    }
  }
}

extension FoldedColumn {
  /// A line index's folded line, as an array.
  fileprivate func line(_ slot: Int) -> [UInt8] {
    withUnsafeBytes { Array(FoldedColumn.firstValue(of: slot, bytes: $0, starts: $1)) }
  }
}
