/// The catalog's popularity: a number field whose value orders items that the other relevance
/// rules leave tied — population for cities, sales for products (docs/ranking.md, rule 4).
public struct RankingField: Hashable, Sendable, Codable, CustomStringConvertible {
  /// The number field's name.
  public var field: String
  /// Larger values first (the default), or smaller first.
  public var isAscending: Bool

  public init(_ field: String, ascending: Bool = false) {
    self.field = field
    self.isAscending = ascending
  }

  /// Reads `FIELD`, `FIELD:desc` or `FIELD:asc` (the command line's `--rank-by`); nil when the
  /// order is neither or the field is empty.
  public init?(parsing text: String) {
    let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    let name = String(parts[0]).trimmingWhitespace()
    guard !name.isEmpty else { return nil }
    switch parts.count == 2 ? parts[1].lowercased() : "desc" {
    case "desc", "descending": self.init(name)
    case "asc", "ascending": self.init(name, ascending: true)
    default: return nil
    }
  }

  /// `population:desc`: how `--rank-by` writes it.
  public var description: String { "\(field):\(isAscending ? "asc" : "desc")" }

  private enum CodingKeys: String, CodingKey { case field, ascending }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      try container.decode(String.self, forKey: .field),
      ascending: try container.decodeIfPresent(Bool.self, forKey: .ascending) ?? false)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(field, forKey: .field)
    try container.encode(isAscending, forKey: .ascending)
  }
}

extension CatalogSchema {
  /// Whether an item's magnitude (`MatchRank.magnitude`) weighs in its rank while a word is
  /// typed: with a ranking field where larger is better. Where smaller is better, or with none,
  /// no magnitude says more popular, and every item's is 0.
  var weighsMagnitude: Bool { rankingField.map { !$0.isAscending } ?? false }

}
