/// Either of two (`rose | tulip`) and synonyms: a request whose terms offer alternatives is
/// searched as each of its `MatchRequest.alternatives`, plain requests the rest of the engine
/// knows, and their matches joined. An item matched by several alternatives takes the best rank
/// any of them gives it; an alternative that holds a synonym ranks its items after what was
/// typed (`MatchRank.viaSynonym`).
///
/// The joined matches are ranked and ordered whole, not a page at a time: alternatives are rare
/// and few, and the bounds that let a plain search rank only its first rows hold per request.
/// A request with alternatives is matched as written, without near spellings.
extension SearchIndex {
  /// `searchSlots` for a request with alternatives. They are matched as written: near
  /// spellings are not looked for (the alternatives are what the person means, and the
  /// threshold's rule is one for a plain request).
  func searchAlternatives(_ request: MatchRequest, within candidates: [Int32]?) -> SearchOutcome {
    let requests = request.alternatives
    let plans = requests.map { plan($0) }
    let exact = Self.union(plans.map { matchingSlots($0, within: candidates) })
    let ranked = rank(exact, plans, requests)
    return SearchOutcome(
      slots: exact, ordered: order(ranked, sort: sortPlan(request.sort)), isComplete: true,
      includesNearSpellings: false, exactCount: exact.count)
  }

  /// Each slot with the best rank of the alternatives that match it.
  private func rank(
    _ slots: [Int32], _ plans: [MatchPlan], _ requests: [MatchRequest]
  ) -> [RankedSlot] {
    var best = [UInt16](repeating: .max, count: slots.count)
    for (plan, request) in zip(plans, requests) {
      let matching = slots.indices.filter {
        matches(plan, slot: Int(slots[$0]), nearSpellings: false)
      }
      let ranked = rank(matching.map { slots[$0] }, plan, nearSpellings: false)
      let synonym = request.viaSynonym ? MatchRank.synonymBit : 0
      for (position, entry) in zip(matching, ranked) {
        best[position] = min(best[position], entry.rank | synonym)
      }
    }
    return zip(slots, best).map { RankedSlot(slot: $0, rank: $1) }
  }

  /// The alternative of `request` that places `slot` best, its plan and its rank; nil when
  /// none matches. A request without alternatives is its own.
  func bestAlternative(
    _ slot: Int, request: MatchRequest, nearSpellings: Bool
  ) -> (plan: MatchPlan, rank: RankedSlot, request: MatchRequest)? {
    var best: (plan: MatchPlan, rank: RankedSlot, request: MatchRequest)?
    for alternative in request.hasAlternatives ? request.alternatives : [request] {
      let plan = plan(alternative, nearSpellings: nearSpellings)
      guard matches(plan, slot: slot, nearSpellings: nearSpellings),
        var ranked = rank([Int32(slot)], plan, nearSpellings: nearSpellings).first
      else { continue }
      if alternative.viaSynonym { ranked.rank |= MatchRank.synonymBit }
      if ranked.rank < best?.rank.rank ?? .max { best = (plan, ranked, alternative) }
    }
    return best
  }

  /// The synonyms an alternative holds, as `--explain` names them: "flower → rose".
  static func synonymsUsed(in request: MatchRequest) -> String? {
    let used = request.terms.flatMap(\.flattened).compactMap { term in
      term.textCondition.flatMap { text in text.synonymOf.map { "\($0) → \(text.needle)" } }
    }
    return used.isEmpty ? nil : used.joined(separator: ", ")
  }

  /// The slots in any of `sets` (each ascending), ascending.
  static func union(_ sets: [[Int32]]) -> [Int32] {
    guard sets.count > 1 else { return sets.first ?? [] }
    return Array(Set(sets.joined())).sorted()
  }
}
