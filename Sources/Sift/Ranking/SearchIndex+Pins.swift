/// Curated results (`Pins`): a query's pinned items at their rows, its hidden items gone,
/// applied to the rows in order as far as they are made.
/// Where a query's pins put their items among the rows in order (`Pins`): applied to each
/// prefix of the order as far as it is made, so a pinned query ranks only the rows read.
struct PinPlacement: Sendable {
  /// The slots left out of the order: the hidden items, and the pinned ones at the place
  /// their rank gives them.
  let removed: Set<Int32>
  /// Each pinned item's entry and its row, by row; each row past the one before it.
  let pinned: [(entry: RankedSlot, row: Int)]

  /// `prefix`, the first rows of the order, less the removed slots, with each pin whose row
  /// the prefix reaches in it — every pin, at the end if past it, once the order is whole.
  /// Every row of the answer is final.
  func apply(_ prefix: [RankedSlot], isComplete: Bool) -> [RankedSlot] {
    var rows = prefix.filter { !removed.contains($0.slot) }
    for pin in pinned {
      guard pin.row <= rows.count || isComplete else { break }
      rows.insert(pin.entry, at: min(pin.row, rows.count))
    }
    return rows
  }
}

extension SearchIndex {
  /// `matches` with `pins` applied: each hidden item left out, each pinned one — live, within
  /// the request's base filter — moved to its row (or the last, past the end; one pinned at a
  /// row another has, just below it).
  ///
  /// The slots, what facets count and a narrower search starts from, stay the matches'.
  ///
  /// - Complexity: a check a pin; the rows ranked as they are read, as without pins (under
  ///   `distinct`, every row at once).
  func pinned(
    _ matches: RankedMatches<ID>, _ pins: Pins.Rule, request: MatchRequest
  ) -> RankedMatches<ID> {
    var removed = Set<Int32>()
    for id in pins.hidden {
      if let own = id as? ID, let slot = slotByID[own] { removed.insert(Int32(slot)) }
    }
    var pinned: [(entry: RankedSlot, row: Int)] = []
    // By row; two pinned at one row keep the order given, the later one below.
    var next = 0
    for pin in pins.pinned {
      guard let own = pin.id as? ID, let slot = slotByID[own], !removed.contains(Int32(slot)),
        withinBase(slot, request)
      else { continue }
      removed.insert(Int32(slot))
      let rank =
        place(slot, request: request, nearSpellings: matches.includesNearSpellings)?.rank
        ?? MatchRank.unranked.packed
      pinned.append((RankedSlot(slot: Int32(slot), rank: rank), max(pin.row, next)))
      next = max(pin.row, next) + 1
    }
    let placement = PinPlacement(removed: removed, pinned: pinned)
    let count: Int
    let order: MatchOrder<ID>
    if request.distinct != nil {
      // Groups: the rows whole, then the pins (which rows are groups' is known only then).
      let rows = placement.apply(
        matches.order.entries(through: matches.count - 1), isComplete: true)
      count = rows.count
      order = MatchOrder(first: rows, isComplete: true, ranker: nil)
    } else {
      // The removed slots among the matches: the rows are the matches less those, plus pins.
      let among = removed.count { slot in
        let at = matches.slots.lowerBound(of: slot)
        return at < matches.slots.count && matches.slots[at] == slot
      }
      count = matches.count - among + pinned.count
      let (first, complete) = matches.order.snapshot
      order = MatchOrder(
        first: placement.apply(first, isComplete: complete), isComplete: complete,
        ranker: .init(index: self, request: request, slots: matches.slots, pins: placement),
        read: first.count)
    }
    return RankedMatches(
      slots: matches.slots, order: order, idsBySlot: ids,
      includesNearSpellings: matches.includesNearSpellings,
      // A pinned row counts as exact: it is where it was asked to be.
      exactCount: matches.includesNearSpellings
        ? min(matches.exactCount + pinned.count, count) : count,
      layout: layout, count: count)
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
