/// Near a place: what ranks before distance, and what distance ranks before.
extension MatchRank {
  /// What ranks before distance near a place (`--near` without a sort), smaller first: via
  /// synonym, typos, whether every term starts a word, then whether the title holds the match
  /// — so that a title match nearby comes before one far away, and before a match only in
  /// another field, whatever else tells them apart.
  package static func nearClass(_ packed: UInt16) -> UInt16 {
    let rank = MatchRank(packed: packed)
    let titleMatch = rank.titleHoldsTerms ?? (rank.attribute == 0)
    return (packed >> MatchRank.typosShift) << 2 | (rank.exactness == .substring ? 2 : 0)
      | (titleMatch ? 0 : 1)
  }
}
