/// What the footer says about the results: counts, the no-results state and correct plurals.
///
/// Not filtering: "15 items", "1 item", "No items". Filtering: "Items found: 3", "1 item found",
/// "No items match your query" — with `summary` in CandySearch's words, "Filtering 3 of 15".
/// When typo tolerance stepped in: "No exact matches — showing 2 near spellings".
public struct ResultsIndicator: Hashable, Sendable, CustomStringConvertible {
  public var isFiltering: Bool
  public var matchCount: Int
  public var totalCount: Int
  /// How many of the matches are exact; the rest are near spellings (typo tolerance).
  public var exactMatchCount: Int

  public init(isFiltering: Bool, matchCount: Int, totalCount: Int, exactMatchCount: Int? = nil) {
    self.isFiltering = isFiltering
    self.matchCount = matchCount
    self.totalCount = totalCount
    self.exactMatchCount = exactMatchCount ?? matchCount
  }

  /// Whether some results are near spellings rather than what was typed.
  public var includesNearSpellings: Bool { isFiltering && exactMatchCount < matchCount }

  /// The distinct state a results list shows when a search finds nothing.
  public var isNoResults: Bool { isFiltering && matchCount == 0 }

  /// The line a footer or results header shows; counts from 10,000 on are grouped
  /// ("Items found: 189,947").
  public var text: String {
    let count = Self.grouped(matchCount)
    if includesNearSpellings {
      let near = matchCount - exactMatchCount
      let spellings = near == 1 ? "1 near spelling" : "\(Self.grouped(near)) near spellings"
      return exactMatchCount == 0
        ? "No exact matches — showing \(spellings)"
        : "Items found: \(count) (\(Self.grouped(exactMatchCount)) exact, \(spellings))"
    }
    return switch (isFiltering, matchCount) {
    case (false, 0): "No items"
    case (false, 1): "1 item"
    case (false, _): "\(count) items"
    case (true, 0): "No items match your query"
    case (true, 1): "1 item found"
    case (true, _): "Items found: \(count)"
    }
  }

  /// CandySearch's footer: "Filtering 3 of 15" while filtering, the count otherwise.
  public var summary: String {
    isFiltering ? "Filtering \(Self.grouped(matchCount)) of \(Self.grouped(totalCount))" : text
  }

  private static func grouped(_ count: Int) -> String { FieldValue.grouped(Double(count)) }

  public var description: String { text }
}
