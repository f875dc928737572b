/// What a folded line must hold to have any chance of matching a query, checked as each line is
/// folded so that `sift filter` keeps (and indexes) only the lines that can match: most lines of
/// a selective query are dropped while their folded bytes are still in cache, and the index
/// never grows to the whole input.
///
/// It only ever drops lines the engine would not match: it looks at positive text terms alone
/// (a negation, a number or a field it does not know never drops a line), and it keeps every
/// line with Hangul, whose initial consonants match in a column of their own.
///
/// The check runs once per input line, so the needles sit in one block of memory with their
/// rarest byte worked out in advance: no array or closure is touched per line.
package final class LinePrefilter: @unchecked Sendable {
  // `@unchecked`: the storage is written once, in `init`, and only read afterwards.
  private struct Needle {
    var start: Int
    var count: Int
    /// The needle's rarest byte, and where it is in the needle: what `memchr` looks for.
    var anchor: Int
    /// A fuzzy term: a subsequence, not a substring.
    var isSubsequence: Bool
  }

  private let needles: [Needle]
  private let bytes: UnsafeMutableBufferPointer<UInt8>

  /// The needs of `criteria` on a line index (one text field, `line`); nil when it has none
  /// (every line is kept).
  package init?(_ criteria: ResolvedCriteria, fuzzy: Bool) {
    let lineField = LineIndex.lineSchema.fields[0].name
    var flat: [UInt8] = []
    var needles: [Needle] = []
    for term in criteria.allTerms where !term.isNegated {
      guard case .text(let text) = term.condition, text.field == nil || text.field == lineField
      else { continue }
      let needle = Array(text.needle.utf8)
      guard !needle.isEmpty else { continue }
      let anchor = needle.withUnsafeBufferPointer(ByteSearch.rarestByteOffset)
      needles.append(
        Needle(
          start: flat.count, count: needle.count, anchor: anchor,
          isSubsequence: fuzzy && !text.isPhrase))
      flat += needle
    }
    guard !needles.isEmpty else { return nil }
    // Longer needles first: they are rarer, so most lines fail on the first.
    self.needles = needles.sorted { $0.count > $1.count }
    bytes = .allocate(capacity: flat.count)
    _ = bytes.initialize(from: flat)
  }

  deinit { bytes.deallocate() }

  /// Whether a line folded to `line` may match.
  @inline(__always)
  package func mayMatch(_ line: UnsafePointer<UInt8>, count: Int) -> Bool {
    let base = bytes.baseAddress!
    for needle in needles {
      let found =
        needle.isSubsequence
        ? FuzzyMatch.endOfFirstMatch(
          UnsafeBufferPointer(start: base + needle.start, count: needle.count),
          in: UnsafeBufferPointer(start: line, count: count)) != nil
        : ByteSearch.firstOffset(
          of: base + needle.start, count: needle.count, anchor: needle.anchor, in: line,
          range: 0..<count) != nil
      guard found else { return false }
    }
    return true
  }
}
