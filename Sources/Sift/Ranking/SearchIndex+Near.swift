/// Results near a place (`SearchNear`): the distance of each match from the place, in whole
/// metres, computed from the catalog's latitude and longitude columns when a search asks — a
/// radius keeps only the matches within it, and distance ranks what exactness leaves tied
/// (`SortPlan.afterExactness`) or orders alone (`--sort distance`).
struct NearPlan: Hashable, Sendable {
  var point: GeoPoint
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
      point: near.point, latitude: latitude, longitude: longitude,
      withinMeters: near.withinMeters)
  }

  /// The slot's distance from the place in whole metres (`GeoPoint.meters`); nil when it has no
  /// location (or one outside the earth's ranges, which an import refuses).
  @inline(__always)
  func meters(_ slot: Int, _ near: NearPlan) -> Int? {
    let latitude = numbers[near.latitude][slot]
    let longitude = numbers[near.longitude][slot]
    guard abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
    return near.point.meters(toLatitude: latitude, longitude: longitude)
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

  /// The slots of `slots` within the plan's radius, in their order.
  func keepingWithin(_ slots: [Int32], _ near: NearPlan) -> [Int32] {
    guard near.withinMeters != nil else { return slots }
    return slots.filter { isWithin(Int($0), near) }
  }

  /// The first `rows` matches when distance ranks right after exactness (`--near` without a
  /// sort), and whether they are every match: each match gets a bound from its exactness bound
  /// (`exactnessBound`, a few bit tests) and its exact distance; they are ranked in full in the
  /// order of those bounds until the page holds `rows` matches that no bound left can beat.
  ///
  /// - Complexity: O(*m*) bounds and distances, a full rank for about as many matches as the
  ///   page shows plus those whose bound was too hopeful, O(*rows*) to insert each.
  func nearRows(
    _ slots: [Int32], _ plan: MatchPlan, _ sort: SortPlan, near: NearPlan, rows: Int
  ) -> (entries: [RankedSlot], isComplete: Bool) {
    if plan.rankProbes.isEmpty {
      // Nothing to rank by: distance alone orders, as a sort by distance does.
      return sortedRows(slots, plan, sort, rows: rows, nearSpellings: false)
    }
    if rows >= slots.count || slots.count <= 256 {
      return (order(rank(slots, plan, nearSpellings: false), sort: sort), true)
    }
    // No bound goes past 2^25 metres (33,554 km: farther than any two places on the earth).
    let farthest: UInt64 = 1 << 25 - 1
    return withRankingContext(plan) { context in
      var queue = MinKeyQueue()
      for (position, slot) in slots.enumerated() {
        let level = UInt64(exactnessBound(Int(slot), context))
        let meters = min(distanceKey(Int(slot), near), farthest)
        queue.append(level << 57 | meters << 32 | UInt64(position))
      }
      queue.heapify()
      let letter = Self.singleLetter(context)
      var best: [RankedSlot] = []
      best.reserveCapacity(rows + 1)
      while let key = queue.popMin() {
        if best.count == rows, let worst = best.last {
          // Nothing left can come before the last row: its level and distance are past it.
          let bound = (key >> 57, key >> 32 & farthest)
          let last = (
            UInt64(worst.rank >> 7), min(distanceKey(Int(worst.slot), near), farthest)
          )
          if bound > last { break }
        }
        let slot = slots[Int(key & 0xFFFF_FFFF)]
        let rank =
          letter.map { rankOneLetter($0, Int(slot), context) }
          ?? analyse(Int(slot), plan, context, nearSpellings: false).rank.packed
        let entry = RankedSlot(slot: slot, rank: rank)
        var low = 0
        var high = best.count
        while low < high {
          let middle = (low + high) / 2
          if precedes(best[middle], entry, sort: sort) { low = middle + 1 } else { high = middle }
        }
        guard low < rows else { continue }
        best.insert(entry, at: low)
        if best.count > rows { best.removeLast() }
      }
      return (best, false)
    }
  }
}
