import Sift

/// Filters plain lines the way `sift filter` does (and fzf's `--filter`): the same folding and
/// query syntax as catalogs, over one text field per line.
public struct LineFilter: Sendable {
  public enum Mode: Sendable {
    /// Every term a substring (quoted phrases, `-negation` as usual); ranked by relevance tier.
    case exact
    /// Every plain term a subsequence, scored like fzf; phrases and negations stay exact.
    case fuzzy
  }

  private let index: LineIndex

  /// Folds every line once.
  ///
  /// - Complexity: O(*n*) in the total length of the lines.
  public init(lines: some Sequence<String>) {
    index = LineIndex(lines: lines)
  }

  private init(index: LineIndex) { self.index = index }

  /// A filter over the lines of a UTF-8 buffer, split and folded in one pass on every core
  /// without a `String` per line, and where each line starts, for printing matches byte for
  /// byte. Invalid UTF-8 is matched with replacement characters.
  package static func splitting(utf8 buffer: UnsafeBufferPointer<UInt8>) -> (
    filter: LineFilter, lines: LineStarts
  ) {
    let (index, lines) = LineIndex.lines(utf8: buffer)
    return (LineFilter(index: index), lines)
  }

  /// The lines of a UTF-8 buffer that match `query` (as byte ranges, without their line ends),
  /// best first or in input order when `sorted` is false: the same as `splitting(utf8:)` then
  /// `matches`, for one query, in one pass that keeps only the lines that may match (what
  /// `sift filter` does, so a selective query holds a few lines, not the whole input).
  public static func matchingLines(
    of buffer: UnsafeBufferPointer<UInt8>, query: String, mode: Mode = .exact, sorted: Bool = true
  ) -> [Range<Int>] {
    let criteria = ResolvedCriteria(SearchCriteria(text: query), schema: LineIndex.lineSchema)
    let (index, lines) = LineIndex.lines(
      utf8: buffer, keeping: LinePrefilter(criteria, fuzzy: mode == .fuzzy))
    return LineFilter(index: index).matches(query, mode: mode, sorted: sorted).map {
      lines.range(ofLine: $0, in: buffer)
    }
  }

  public var lineCount: Int { index.count }

  /// The indices of the matching lines: best first, or in input order when `sorted` is false.
  public func matches(_ query: String, mode: Mode = .exact, sorted: Bool = true) -> [Int] {
    let resolved = ResolvedCriteria(SearchCriteria(text: query), schema: index.schema)
    switch mode {
    case .exact: return index.exactLineMatches(resolved, sorted: sorted)
    case .fuzzy: return index.fuzzyLineMatches(resolved, sorted: sorted)
    }
  }
}
