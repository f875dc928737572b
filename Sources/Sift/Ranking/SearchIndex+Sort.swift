/// A `SearchSort` resolved against an index's columns.
struct SortPlan: Hashable {
  enum Column: Hashable {
    /// A number field, by its index among `numberFields`.
    case number(Int)
    /// The title, by its text column: compared as folded bytes (case and accents ignored).
    case title(Int)
    /// The distance from a place, in whole metres (`SearchNear`).
    case distance(NearPlan)
  }

  var column: Column
  var isDescending: Bool
  /// Whether the sort's value comes after the rank's typos and exactness rather than before
  /// every rule: distance from a place asked for without a sort (`SearchNear`).
  var afterExactness = false
}

extension SearchIndex {
  /// The order `request` asks for beyond relevance: its sort (a field, the title, distance),
  /// else distance as the rule after the near class (`MatchRank.nearClass`) near a place; nil for relevance.
  func sortPlan(_ request: MatchRequest) -> SortPlan? {
    let near = nearPlan(request.near)
    guard let sort = request.sort else {
      return near.map { SortPlan(column: .distance($0), isDescending: false, afterExactness: true) }
    }
    if let column = numberFields.firstIndex(where: { $0.name == sort.field }) {
      return SortPlan(column: .number(column), isDescending: sort.isDescending)
    }
    if sort.field == schema.titleField, let titleColumn {
      return SortPlan(column: .title(titleColumn), isDescending: sort.isDescending)
    }
    if sort.isDistance, let near {
      return SortPlan(column: .distance(near), isDescending: sort.isDescending)
    }
    return nil
  }

  /// A key that orders slots as the sort does, smaller first: a number exactly (no value:
  /// last, either way), a title by its first eight bytes — equal keys of titles are compared
  /// in full (`sortPrecedes`).
  func sortKey(_ slot: Int, _ sort: SortPlan) -> UInt64 {
    let key: UInt64
    switch sort.column {
    case .number(let column):
      let value = numbers[column][slot]
      if value.isNaN { return .max }
      // -0 and 0 are one value (as in SQL); flipping the sign bit, or every bit of a negative
      // number, orders the bit patterns as the numbers.
      let bits = (value == 0 ? 0.0 : value).bitPattern
      key = bits >> 63 == 1 ? ~bits : bits | 1 << 63
      return sort.isDescending ? ~key : key
    case .title(let column):
      var prefix: UInt64 = 0
      columns[column].withUnsafeBytes { bytes, starts in
        let value = FoldedColumn.firstValue(of: slot, bytes: bytes, starts: starts)
        for index in 0..<8 {
          prefix = prefix << 8 | UInt64(index < value.count ? value[index] : 0)
        }
      }
      return sort.isDescending ? ~prefix : prefix
    case .distance(let near):
      // No location: last, either way.
      guard let meters = meters(slot, near) else { return .max }
      return sort.isDescending ? ~UInt64(meters) - 1 : UInt64(meters)
    }
  }

  /// Whether slot `a`'s value comes before `b`'s under the sort; nil when they are equal.
  func sortPrecedes(_ a: Int, _ b: Int, _ sort: SortPlan) -> Bool? {
    let (keyA, keyB) = (sortKey(a, sort), sortKey(b, sort))
    if keyA != keyB { return keyA < keyB }
    guard case .title(let column) = sort.column else { return nil }
    // Titles that share their first eight bytes, compared in place.
    return columns[column].withUnsafeBytes { bytes, starts in
      let titleA = FoldedColumn.firstValue(of: a, bytes: bytes, starts: starts)
      let titleB = FoldedColumn.firstValue(of: b, bytes: bytes, starts: starts)
      if titleA.elementsEqual(titleB) { return nil }
      return sort.isDescending
        ? titleB.lexicographicallyPrecedes(titleA) : titleA.lexicographicallyPrecedes(titleB)
    }
  }

  /// Whether `a` comes before `b`: the sort's value, then rank, then popularity, then catalog
  /// order — near a place without a sort, what ranks before distance first (`MatchRank.nearClass`).
  func precedes(_ a: RankedSlot, _ b: RankedSlot, sort: SortPlan?) -> Bool {
    if let sort {
      if sort.afterExactness {
        let (x, y) = (MatchRank.nearClass(a.rank), MatchRank.nearClass(b.rank))
        if x != y { return x < y }
      }
      if let before = sortPrecedes(Int(a.slot), Int(b.slot), sort) { return before }
    }
    return precedes(a, b)
  }

  /// The first `rows` matches under `plan`'s sort, with their ranks, and whether they are every
  /// match: the matches whose keys reach the `rows`-th smallest key are ranked (ties on the
  /// value go by relevance); the others come after all of them.
  ///
  /// - Complexity: O(*m* log *rows*) keys, a rank for each match kept.
  func sortedRows(
    _ slots: [Int32], _ plan: MatchPlan, _ sort: SortPlan, rows: Int, nearSpellings: Bool
  ) -> (entries: [RankedSlot], isComplete: Bool) {
    // Each key read once: for the heap, the cut and the order of the matches kept.
    let keys = slots.map { sortKey(Int($0), sort) }
    var kept = slots
    var keptKeys = keys
    if rows < slots.count {
      var heap = KeyHeap(capacity: max(rows, 1))
      for key in keys { heap.insert(key) }
      let last = heap.largest
      kept = zip(slots, keys).compactMap { $1 <= last ? $0 : nil }
      keptKeys = keys.filter { $0 <= last }
    }
    // `rank` keeps the order of the slots it is given: entry i has key i.
    let ranked = rank(kept, plan, nearSpellings: nearSpellings)
    let order = ranked.indices.sorted { i, j in
      if keptKeys[i] != keptKeys[j] { return keptKeys[i] < keptKeys[j] }
      return precedes(ranked[i], ranked[j], sort: sort)
    }
    return (order.map { ranked[$0] }, kept.count == slots.count)
  }
}
