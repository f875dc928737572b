/// Curated results (`Pins`): a query's pinned items at their rows, its hidden items gone. The
/// rows are put in order whole, then the pins applied: a pinned query is one a person chose,
/// and its rows are read once.
extension SearchIndex {
  /// `matches` with `pins` applied: each hidden item left out, each pinned one — live, within
  /// the request's base filter — moved to its row (or the last, past the end; one pinned at a
  /// row another has, just below it).
  ///
  /// The slots, what facets count and a narrower search starts from, stay the matches'.
  ///
  /// - Complexity: every match ranked and sorted once.
  func pinned(
    _ matches: RankedMatches<ID>, _ pins: Pins.Rule, request: MatchRequest
  ) -> RankedMatches<ID> {
    let entries = matches.order.entries(through: matches.count - 1)
    var removed = Set<Int32>()
    for id in pins.hidden {
      if let own = id as? ID, let slot = slotByID[own] { removed.insert(Int32(slot)) }
    }
    var pinned: [(entry: RankedSlot, row: Int)] = []
    for pin in pins.pinned {
      guard let own = pin.id as? ID, let slot = slotByID[own], !removed.contains(Int32(slot)),
        withinBase(slot, request)
      else { continue }
      removed.insert(Int32(slot))
      let rank = entries.first { $0.slot == Int32(slot) }?.rank ?? MatchRank.unranked.packed
      pinned.append((RankedSlot(slot: Int32(slot), rank: rank), pin.row))
    }
    var rows = entries.filter { !removed.contains($0.slot) }
    // By row; two pinned at one row keep the order given, the later one below.
    var next = 0
    for pin in pinned {
      let row = max(pin.row, next)
      rows.insert(pin.entry, at: min(row, rows.count))
      next = row + 1
    }
    return RankedMatches(
      slots: matches.slots, order: MatchOrder(first: rows, isComplete: true, ranker: nil),
      idsBySlot: ids, includesNearSpellings: matches.includesNearSpellings,
      // A pinned row counts as exact: it is where it was asked to be.
      exactCount: matches.includesNearSpellings
        ? min(matches.exactCount + pinned.count, rows.count) : rows.count,
      layout: layout, count: rows.count)
  }

  /// Whether `slot` passes the request's base filter (a tenant's rows, an area).
  private func withinBase(_ slot: Int, _ request: MatchRequest) -> Bool {
    guard request.baseTermCount > 0 else { return true }
    let base = MatchRequest(terms: Array(request.terms.suffix(request.baseTermCount)), typos: .off)
    return matches(plan(base), slot: slot, nearSpellings: false)
  }

  /// The row `id` is pinned at in `request`'s results, 1 for the first; nil when it is not
  /// pinned there.
  package func pinnedRow(of id: ID, request: MatchRequest) -> Int? {
    request.pins?.pinned.first { ($0.id as? ID) == id }.map { $0.row + 1 }
  }
}
