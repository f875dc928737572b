/// Either of two (`rose | tulip`) and synonyms: a request whose terms offer alternatives is
/// searched as each of its `MatchRequest.alternatives`, plain requests the rest of the engine
/// knows, and their matches joined. An item matched by several alternatives takes the best rank
/// any of them gives it; an alternative that holds a synonym ranks its items after what was
/// typed (`MatchRank.viaSynonym`).
///
/// Only the first rows are put in order: an item's best rank comes from one alternative, so the
/// first *k* rows of the joined matches are among the first *k* of each alternative's own order
/// (everything ahead of an item in its best alternative is ahead of it in the join too). A
/// request with alternatives is matched as written, without near spellings.
extension SearchIndex {
  /// `searchSlots` for a request with alternatives. They are matched as written: near
  /// spellings are not looked for (the alternatives are what the person means, and the
  /// threshold's rule is one for a plain request).
  func searchAlternatives(
    _ request: MatchRequest, within candidates: [Int32]?, rows: Int
  ) -> SearchOutcome {
    let requests = request.alternatives
    let plans = requests.map { plan($0) }
    // Each alternative is a search of its own: a stopped search matches no more of them.
    let matched = plans.map { SearchStop.shouldStop ? [] : matchingSlots($0, within: candidates) }
    let slots = Self.union(matched)
    let first = firstRows(of: requests, plans, matched, union: slots, rows: rows)
    return SearchOutcome(
      slots: slots, ordered: first.entries, isComplete: first.isComplete,
      includesNearSpellings: false, exactCount: slots.count)
  }

  /// The first `rows` of the joined matches of `requests` (whose plans are `plans` and matches
  /// `matched`), and whether they are all of them: small joins are ranked whole; otherwise the
  /// first rows of each alternative, each item at its best rank, put in order and cut.
  func firstRows(
    of requests: [MatchRequest], _ plans: [MatchPlan], _ matched: [[Int32]], union: [Int32],
    rows: Int
  ) -> (entries: [RankedSlot], isComplete: Bool) {
    let sort = plans.first?.sort
    if rows >= union.count || union.count <= 256 {
      return (order(rank(union, plans, requests), sort: sort), true)
    }
    var best: [Int32: UInt16] = [:]
    var isComplete = true
    for (index, plan) in plans.enumerated() where !SearchStop.shouldStop {
      let first = firstRows(matched[index], plan, rows: rows)
      isComplete = isComplete && first.isComplete
      let synonym = requests[index].viaSynonym ? MatchRank.synonymBit : 0
      for entry in first.entries {
        best[entry.slot] = min(best[entry.slot] ?? .max, entry.rank | synonym)
      }
    }
    let merged = order(best.map { RankedSlot(slot: $0.key, rank: $0.value) }, sort: sort)
    return isComplete ? (merged, true) : (Array(merged.prefix(rows)), false)
  }

  /// The first `rows` of `slots`, the matches of `request`, in order: what a `MatchOrder` asks
  /// for when rows past those in order are read.
  func firstRows(
    of request: MatchRequest, _ slots: [Int32], rows: Int
  ) -> (entries: [RankedSlot], isComplete: Bool) {
    guard request.hasAlternatives else { return firstRows(slots, plan(request), rows: rows) }
    let requests = request.alternatives
    let plans = requests.map { plan($0) }
    let matched = plans.map { plan in
      SearchStop.shouldStop
        ? [] : slots.filter { matches(plan, slot: Int($0), nearSpellings: false) }
    }
    return firstRows(of: requests, plans, matched, union: slots, rows: rows)
  }

  /// Each slot with the best rank of the alternatives that match it.
  private func rank(
    _ slots: [Int32], _ plans: [MatchPlan], _ requests: [MatchRequest]
  ) -> [RankedSlot] {
    var best = [UInt16](repeating: .max, count: slots.count)
    for (plan, request) in zip(plans, requests) where !SearchStop.shouldStop {
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
  /// none matches. A request without alternatives is its own; searched with near spellings,
  /// its words with their spaces moved are its alternatives too (`searchNear`), and
  /// `nearSpellings` says whether the plan that placed the slot allows near spellings.
  func bestAlternative(
    _ slot: Int, request: MatchRequest, nearSpellings: Bool
  ) -> (plan: MatchPlan, rank: RankedSlot, request: MatchRequest, nearSpellings: Bool)? {
    var best: (plan: MatchPlan, rank: RankedSlot, request: MatchRequest, nearSpellings: Bool)?
    for alternative in request.hasAlternatives ? request.alternatives : [request] {
      let plan = plan(alternative, nearSpellings: nearSpellings)
      guard matches(plan, slot: slot, nearSpellings: nearSpellings),
        var ranked = rank([Int32(slot)], plan, nearSpellings: nearSpellings).first
      else { continue }
      if alternative.viaSynonym { ranked.rank |= MatchRank.synonymBit }
      if ranked.rank < best?.rank.rank ?? .max { best = (plan, ranked, alternative, nearSpellings) }
    }
    if nearSpellings, !request.hasAlternatives,
      let moved = bestMovedSpace(slot, request: request),
      moved.rank.rank < best?.rank.rank ?? .max
    {
      best = (moved.plan, moved.rank, moved.request, false)
    }
    return best
  }

  /// The synonyms an alternative holds, as `--explain` names them: "flower → rose", or
  /// "spiderman → spider-man (spaces moved)".
  static func synonymsUsed(in request: MatchRequest) -> String? {
    let used = request.terms.flatMap(\.flattened).compactMap { term in
      term.textCondition.flatMap { text in
        text.synonymOf.map {
          "\($0) → \(text.needle)" + (text.movesSpaces ? " \(MatchExplanation.spacesMoved)" : "")
        }
      }
    }
    return used.isEmpty ? nil : used.joined(separator: ", ")
  }

  /// The slots in any of `sets` (each ascending), ascending: merged pairwise, without hashing
  /// (one-letter alternatives hold most of a catalog).
  static func union(_ sets: [[Int32]]) -> [Int32] {
    guard var merged = sets.first else { return [] }
    for next in sets.dropFirst() {
      var result: [Int32] = []
      result.reserveCapacity(max(merged.count, next.count))
      var (i, j) = (0, 0)
      while i < merged.count, j < next.count {
        let (a, b) = (merged[i], next[j])
        result.append(min(a, b))
        if a <= b { i += 1 }
        if b <= a { j += 1 }
      }
      result += merged[i...]
      result += next[j...]
      merged = result
    }
    return merged
  }
}
