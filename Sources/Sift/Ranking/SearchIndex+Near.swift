/// Results near a place (`SearchNear`): the distance of each match from the place, in whole
/// metres, computed from the catalog's latitude and longitude columns when a search asks — a
/// radius keeps only the matches within it, and distance ranks what the near class leaves
/// tied (`MatchRank.nearClass`, `SortPlan.afterExactness`) or orders alone (`--sort distance`).
struct NearPlan: Hashable, Sendable {
  var point: GeoPoint { distances.point }
  /// Distances from the place, its cosine worked out once per search, not once per match.
  var distances: GeoPoint.Distances
  /// The number columns of the latitude and the longitude.
  var latitude: Int
  var longitude: Int
  /// Keep only slots at most this many metres away; nil keeps every one.
  var withinMeters: Int?
}

extension SearchIndex {
  /// `near` as this index reads it: nil without a place, or when the schema has no location
  /// among its number columns.
  func nearPlan(_ near: SearchNear?) -> NearPlan? {
    guard let near, let location = schema.location,
      let latitude = numberFields.firstIndex(where: { $0.name == location.latitude }),
      let longitude = numberFields.firstIndex(where: { $0.name == location.longitude })
    else { return nil }
    return NearPlan(
      distances: near.point.distances, latitude: latitude, longitude: longitude,
      withinMeters: near.withinMeters)
  }

  /// The slot's distance from the place in whole metres (`GeoPoint.meters`); nil when it has no
  /// location (or one outside the earth's ranges, which an import refuses).
  @inline(__always)
  func meters(_ slot: Int, _ near: NearPlan) -> Int? {
    let latitude = numbers[near.latitude][slot]
    let longitude = numbers[near.longitude][slot]
    guard abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
    return near.distances.meters(toLatitude: latitude, longitude: longitude)
  }

  /// The slot's distance as a sort key: metres, or the largest key without a location.
  @inline(__always)
  func distanceKey(_ slot: Int, _ near: NearPlan) -> UInt64 {
    meters(slot, near).map { UInt64($0) } ?? .max
  }

  /// Whether the slot is within the plan's radius (always, without one).
  @inline(__always)
  func isWithin(_ slot: Int, _ near: NearPlan) -> Bool {
    guard let radius = near.withinMeters else { return true }
    let latitude = numbers[near.latitude][slot]
    // A degree of latitude is 111 km everywhere: most slots are out before any trigonometry.
    guard abs(latitude - near.point.latitude) * Self.metersPerDegree <= Double(radius) + 1
    else { return false }
    return meters(slot, near).map { $0 <= radius } ?? false
  }

  /// The metres of a degree along a meridian, on the sphere distances are measured on.
  static var metersPerDegree: Double { GeoPoint.earthRadius * GeoPoint.radiansPerDegree }

  /// The slots of `slots` within the plan's radius, in their order; many are tested on every
  /// core.
  func keepingWithin(_ slots: [Int32], _ near: NearPlan) -> [Int32] {
    guard near.withinMeters != nil else { return slots }
    let ranges = Parallel.ranges(
      count: slots.count, parts: Parallel.parts(for: slots.count, minimumPerPart: 20_000))
    return Parallel.concatenated(
      Parallel.map(parts: ranges.count) { part in
        slots[ranges[part]].filter { isWithin(Int($0), near) }
      })
  }

  /// The first `rows` matches when distance ranks right after the near class (`--near` without a
  /// sort), and whether they are every match. Each match gets a bound on its exactness
  /// (`exactnessBound`, a few bit tests, on every core); level by level, best first, the matches
  /// of a level are ranked in full in the order of their distance until the page holds `rows`
  /// matches that none left can beat — and a level no better than the page's last row is not
  /// measured at all (a first letter's 190,000 matches: only the few thousand values starting
  /// with it).
  ///
  /// - Complexity: O(*m*) bounds; distances for the levels the page reaches; a full rank for
  ///   about as many matches as the page shows plus those whose bound was too hopeful, and
  ///   O(*rows*) to insert each.
  func nearRows(
    _ slots: [Int32], _ plan: MatchPlan, _ sort: SortPlan, near: NearPlan, rows: Int
  ) -> (entries: [RankedSlot], isComplete: Bool) {
    if plan.rankProbes.isEmpty {
      // Nothing to rank by: distance alone orders, as a sort by distance does.
      return rows < slots.count
        ? nearestRows(slots, plan, sort, near: near, rows: rows)
        : sortedRows(slots, plan, sort, rows: rows, nearSpellings: false)
    }
    if rows >= slots.count || slots.count <= 256 {
      return (order(rank(slots, plan, nearSpellings: false), sort: sort), true)
    }
    let readers = readingStarters(plan)
    let levels = exactnessLevels(slots, plan, readers: readers)
    // No key goes past 2^25 metres (33,554 km: farther than any two places on the earth).
    let farthest: UInt64 = 1 << 25 - 1
    return withRankingContext(plan, readers: readers) { context in
      let letter = Self.singleLetter(context)
      // The page so far, best first, each with its distance: measured once, when it was queued.
      var best: [(entry: RankedSlot, metres: UInt64)] = []
      best.reserveCapacity(rows + 1)
      func before(
        _ a: (entry: RankedSlot, metres: UInt64), _ b: (entry: RankedSlot, metres: UInt64)
      )
        -> Bool
      {
        let (x, y) = (MatchRank.nearClass(a.entry.rank), MatchRank.nearClass(b.entry.rank))
        if x != y { return x < y }
        if a.metres != b.metres { return a.metres < b.metres }
        return precedes(a.entry, b.entry)
      }
      for level in UInt8(0)..<4 {
        // The best class (`MatchRank.nearClass`) a match of this level can have: no typos, the
        // title holding the match, and every term starting a word unless the level says not.
        let classBound = UInt64(level == 3 ? 2 : 0)
        // Every match of this level is past the page's last row.
        if best.count == rows, let last = best.last,
          UInt64(MatchRank.nearClass(last.entry.rank)) < classBound
        {
          break
        }
        var queue = MinKeyQueue()
        for (position, slot) in slots.enumerated() where levels[position] == level {
          queue.append(min(distanceKey(Int(slot), near), farthest) << 32 | UInt64(position))
        }
        queue.heapify()
        while let key = queue.popMin() {
          // Nothing left of this level can come before the last row.
          if best.count == rows, let last = best.last,
            (classBound, key >> 32) > (UInt64(MatchRank.nearClass(last.entry.rank)), last.metres)
          {
            break
          }
          let slot = slots[Int(key & 0xFFFF_FFFF)]
          let rank =
            letter.map { rankOneLetter($0, Int(slot), context) }
            ?? analyse(Int(slot), plan, context, nearSpellings: false).rank.packed
          let candidate = (entry: RankedSlot(slot: slot, rank: rank), metres: key >> 32)
          var low = 0
          var high = best.count
          while low < high {
            let middle = (low + high) / 2
            if before(best[middle], candidate) { low = middle + 1 } else { high = middle }
          }
          guard low < rows else { continue }
          best.insert(candidate, at: low)
          if best.count > rows { best.removeLast() }
        }
      }
      return (best.map(\.entry), false)
    }
  }
}

extension SearchIndex {
  /// `sortedRows` by distance, nearest first, without measuring most matches: a degree of
  /// latitude is the same 111 km everywhere, so the latitude alone bounds a match's distance
  /// from below (a subtraction); matches are measured in the order of that bound until the
  /// bound passes the `rows`-th smallest distance found. The same rows as measuring every match:
  /// every match whose distance reaches the page's last is measured and kept.
  ///
  /// - Complexity: O(*m*) bounds; distances for the matches in the band of latitudes the page
  ///   reaches (the first letter typed near Illinois: a few thousand of 190,000).
  func nearestRows(
    _ slots: [Int32], _ plan: MatchPlan, _ sort: SortPlan, near: NearPlan, rows: Int
  ) -> (entries: [RankedSlot], isComplete: Bool) {
    let perMetre = 1 / Self.metersPerDegree
    var queue = MinKeyQueue()
    for (position, slot) in slots.enumerated() {
      let latitude = numbers[near.latitude][Int(slot)]
      // A bound in whole metres, rounded down and a metre less, so it is never above the
      // distance the formula gives; no location sorts last (2^31 metres).
      let gap = abs(latitude - near.point.latitude) / perMetre
      let bound = gap.isFinite ? UInt64(max(0, min(gap - 1, Double(1 << 31)))) : 1 << 31
      queue.append(bound << 32 | UInt64(position))
    }
    queue.heapify()
    var heap = KeyHeap(capacity: max(rows, 1))
    var measured: [(slot: Int32, key: UInt64)] = []
    while let next = queue.popMin() {
      if heap.isFull, next >> 32 > min(heap.largest, 1 << 31) { break }
      let slot = slots[Int(next & 0xFFFF_FFFF)]
      let key = sortKey(Int(slot), sort)
      heap.insert(key)
      measured.append((slot, key))
    }
    let last = heap.largest
    let kept = measured.filter { $0.key <= last }.sorted { $0.slot < $1.slot }
    let ranked = rank(kept.map(\.slot), plan, nearSpellings: false)
    let keys = kept.map(\.key)
    let order = ranked.indices.sorted { i, j in
      if keys[i] != keys[j] { return keys[i] < keys[j] }
      return precedes(ranked[i], ranked[j], sort: sort)
    }
    return (order.map { ranked[$0] }, kept.count == slots.count)
  }
}
