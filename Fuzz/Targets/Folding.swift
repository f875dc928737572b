// libFuzzer entry point for folding, compiled into one module with the engine's sources by
// Fuzz/run.sh (not part of the package).
//
// Input: any bytes. Checked on every input:
// - UTF8Validation agrees with the standard library's validation;
// - folding is idempotent and never produces a 0 byte (the index's value separator);
// - the byte path of `sift filter` (`SearchIndex.lines(utf8:)`) splits and folds any bytes
//   exactly as Strings of its lines would be;
// - initial-consonant keys, highlighting and fuzzy scoring return without trapping, with
//   highlight ranges inside the text.

@_cdecl("LLVMFuzzerTestOneInput")
public func foldingFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  let valid = String(validating: bytes, as: UTF8.self)
  check(UTF8Validation.isValid(bytes) == (valid != nil), "validation disagrees")

  let text = String(decoding: bytes, as: UTF8.self)
  let folded = TextFolding.fold(text)
  check(TextFolding.fold(folded) == folded, "folding is not idempotent")
  check(!folded.utf8.contains(0), "folded text holds a 0 byte")

  // The byte path of `sift filter` splits and folds exactly as Strings would.
  var expected: [Range<Int>] = []
  var lineStart = 0
  for index in bytes.indices where bytes[index] == 0x0A {
    expected.append(lineStart..<index)
    lineStart = index + 1
  }
  if lineStart < bytes.count { expected.append(lineStart..<bytes.count) }
  expected = expected.map { $0.isEmpty || bytes[$0.upperBound - 1] != 0x0D ? $0 : $0.dropLast() }
  let (fast, lines) = SearchIndex.lines(utf8: bytes)
  check(lines.count == expected.count, "line count \(lines.count), expected \(expected.count)")
  for line in expected.indices {
    check(lines.range(ofLine: line, in: bytes) == expected[line], "line \(line) range")
  }
  let reference = SearchIndex(
    lines: expected.map {
      String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self)
    })
  check(fast.columns[0].bytes == reference.columns[0].bytes, "byte path folds differently")
  check(fast.columns[0].starts == reference.columns[0].starts, "byte path splits differently")
  check(
    fast.initialColumns[0]?.bytes == reference.initialColumns[0]?.bytes,
    "byte path makes other initials")

  if let key = TextFolding.initialConsonants(of: text) {
    check(!key.utf8.contains(0), "initial-consonant key holds a 0 byte")
  }

  // The first half of the input as needles in the second half.
  let middle = text.index(text.startIndex, offsetBy: text.count / 2)
  let needle = String(text[..<middle])
  let haystack = String(text[middle...])
  let needles = TextFolding.fold(needle).split(separator: " ").map(String.init)
  var last = haystack.startIndex
  for range in Highlighting.ranges(in: haystack, needles: needles) {
    check(
      range.lowerBound >= last && range.upperBound <= haystack.endIndex,
      "highlight outside \(haystack)")
    last = range.upperBound
  }
  _ = FuzzyMatch.score(needle, in: haystack)
  return 0
}
