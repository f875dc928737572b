// libFuzzer entry point for folding, compiled into one module with the engine's sources by
// Fuzz/run.sh (not part of the package).
//
// Input: any bytes. Checked on every input:
// - UTF8Validation agrees with the standard library's validation;
// - folding is idempotent and never produces a 0 byte (the index's value separator);
// - the byte path (`FoldedColumn.appendFolded(utf8:)`, used by `sift filter`) folds valid UTF-8
//   exactly as the String path does;
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

  if valid != nil, !bytes.contains(UInt8(ascii: "\n")) {
    var column = FoldedColumn()
    column.appendFolded(utf8: bytes)
    check(
      Array(column.bytes.dropLast()) == Array(folded.utf8), "byte path folds differently")
  }

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
