/// What the footer says about the results: counts, the no-results state and correct plurals.
///
/// Not filtering: "15 items", "1 item", "No items". Filtering: "Items found: 3", "1 item found",
/// "No items match your query" — with `summary` in CandySearch's words, "Filtering 3 of 15".
public struct ResultsIndicator: Hashable, Sendable, CustomStringConvertible {
  public var isFiltering: Bool
  public var matchCount: Int
  public var totalCount: Int

  public init(isFiltering: Bool, matchCount: Int, totalCount: Int) {
    self.isFiltering = isFiltering
    self.matchCount = matchCount
    self.totalCount = totalCount
  }

  /// The distinct state a results list shows when a search finds nothing.
  public var isNoResults: Bool { isFiltering && matchCount == 0 }

  /// The line a footer or results header shows.
  public var text: String {
    switch (isFiltering, matchCount) {
    case (false, 0): "No items"
    case (false, 1): "1 item"
    case (false, let count): "\(count) items"
    case (true, 0): "No items match your query"
    case (true, 1): "1 item found"
    case (true, let count): "Items found: \(count)"
    }
  }

  /// CandySearch's footer: "Filtering 3 of 15" while filtering, the count otherwise.
  public var summary: String {
    isFiltering ? "Filtering \(matchCount) of \(totalCount)" : text
  }

  public var description: String { text }
}
