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
  public static func splitting(utf8 buffer: UnsafeBufferPointer<UInt8>) -> (
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
      utf8: buffer, keeping: LinePrefilter(criteria, mode: mode))
    return LineFilter(index: index).matches(query, mode: mode, sorted: sorted).map {
      lines.range(ofLine: $0, in: buffer)
    }
  }

  public var lineCount: Int { index.count }

  /// The indices of the matching lines: best first, or in input order when `sorted` is false.
  public func matches(_ query: String, mode: Mode = .exact, sorted: Bool = true) -> [Int] {
    let resolved = ResolvedCriteria(SearchCriteria(text: query), schema: index.schema)
    switch mode {
    case .exact:
      let outcome = index.searchSlots(resolved.request(typos: .off), rows: sorted ? .max : 0)
      return sorted ? outcome.ranked.map { Int($0.slot) } : outcome.slots.map { Int($0) }
    case .fuzzy:
      return fuzzyMatches(resolved, sorted: sorted)
    }
  }

  private func fuzzyMatches(_ resolved: ResolvedCriteria, sorted: Bool) -> [Int] {
    var fuzzyTerms: [[UInt8]] = []
    var exactCriteria = resolved
    exactCriteria.query.terms.removeAll { term in
      guard !term.isNegated, let text = term.textCondition, !text.isPhrase else { return false }
      fuzzyTerms.append(Array(text.needle.utf8))
      return true
    }
    // Phrases and negations narrow first, exactly; then every fuzzy term must match.
    let candidates =
      exactCriteria.allTerms.isEmpty
      ? Array(0..<Int32(index.slotCount))
      : index.searchSlots(exactCriteria.request(typos: .off), rows: 0).slots
    let column = index.columns[0]
    var scored: [(line: Int, score: Int, length: Int)] = []
    column.withUnsafeBytes { bytes, starts in
      candidateLoop: for slot in candidates {
        let text = FoldedColumn.firstValue(of: Int(slot), bytes: bytes, starts: starts)
        var total = 0
        for term in fuzzyTerms {
          let score = term.withUnsafeBufferPointer { FuzzyMatch.score($0, in: text) }
          guard let score else { continue candidateLoop }
          total += score
        }
        scored.append((Int(slot), total, text.count))
      }
    }
    if sorted {
      scored.sort { ($1.score, $0.length, $0.line) < ($0.score, $1.length, $1.line) }
    }
    return scored.map(\.line)
  }
}
