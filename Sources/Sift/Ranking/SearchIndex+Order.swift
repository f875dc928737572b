extension SearchIndex {
  /// Sorts ranked matches by rank, then popularity, then catalog order (under a sort, by its
  /// value first).
  ///
  /// - Complexity: few matches: O(*m* log *m*). Many: O(*n*), a counting sort by rank over
  ///   the slots kept in popularity order.
  func order(_ ranked: [RankedSlot], sort: SortPlan? = nil) -> [RankedSlot] {
    guard ranked.count > 1 else { return ranked }
    if let sort {
      // Each match's key read once (a distance is a haversine), not twice a comparison; equal
      // keys go to the full comparison (titles past eight bytes, then relevance).
      let keys = ranked.map { sortKey(Int($0.slot), sort) }
      let order = ranked.indices.sorted { i, j in
        let (a, b) = (ranked[i], ranked[j])
        if sort.afterExactness {
          let (x, y) = (MatchRank.nearClass(a.rank), MatchRank.nearClass(b.rank))
          if x != y { return x < y }
        }
        if keys[i] != keys[j] { return keys[i] < keys[j] }
        return precedes(a, b, sort: sort)
      }
      return order.map { ranked[$0] }
    }
    if ranked.count < max(64, slotCount / 16) {
      // One integer per match: its rank, then its place in popularity order.
      let identity = popularityOrder.isEmpty
      var keys = ranked.map {
        UInt64($0.rank) << 32 | UInt64(identity ? UInt32($0.slot) : popularityRanks[Int($0.slot)])
      }
      keys.sort()
      return keys.map {
        let position = Int($0 & 0xFFFF_FFFF)
        return RankedSlot(
          slot: identity ? Int32(position) : popularityOrder[position], rank: UInt16($0 >> 32))
      }
    }
    return countingSort(ranked)
  }

  /// `order` for many matches: a counting sort by rank of the slots kept in popularity order,
  /// on every core — each part of that order counts its ranks, then writes its matches from
  /// where the same ranks of the parts before it end.
  private func countingSort(_ ranked: [RankedSlot]) -> [RankedSlot] {
    let unmatched = UInt16.max
    var rankOf = [UInt16](repeating: unmatched, count: slotCount)
    let order = popularityOrder.isEmpty ? IndexBuffer(Array(0..<Int32(slotCount))) : popularityOrder
    let rankCount = MatchRank.packedCount
    return rankOf.withUnsafeMutableBufferPointer { rankOf in
      // Each match is its own slot: the parts write disjoint elements.
      let rankOfShared = SharedWriteBuffer(buffer: rankOf)
      ranked.withUnsafeBufferPointer { ranked in
        let shared = SharedReadBuffer(buffer: ranked)
        let ranges = Parallel.ranges(
          count: ranked.count, parts: Parallel.parts(for: ranked.count, minimumPerPart: 100_000))
        _ = Parallel.map(parts: ranges.count) { part in
          for match in shared.buffer[ranges[part]] {
            rankOfShared.buffer[Int(match.slot)] = match.rank
          }
        }
      }
      return order.withUnsafeBufferPointer { order in
        let orderShared = SharedReadBuffer(buffer: order)
        let ranks = SharedReadBuffer(buffer: UnsafeBufferPointer(rankOf))
        let ranges = Parallel.ranges(
          count: order.count, parts: Parallel.parts(for: order.count, minimumPerPart: 100_000))
        let counts = Parallel.map(parts: ranges.count) { part in
          var counts = [Int](repeating: 0, count: rankCount)
          for slot in orderShared.buffer[ranges[part]] {
            let rank = ranks.buffer[Int(slot)]
            if rank != unmatched { counts[Int(rank)] += 1 }
          }
          return counts
        }
        // Where each part's matches of each rank go.
        var starts = counts
        var next = 0
        for rank in 0..<rankCount {
          for part in counts.indices {
            starts[part][rank] = next
            next += counts[part][rank]
          }
        }
        return [RankedSlot](unsafeUninitializedCapacity: ranked.count) { buffer, count in
          let output = SharedWriteBuffer(buffer: buffer)
          let partStarts = starts
          _ = Parallel.map(parts: ranges.count) { part in
            var positions = partStarts[part]
            for slot in orderShared.buffer[ranges[part]] {
              let rank = ranks.buffer[Int(slot)]
              guard rank != unmatched else { continue }
              output.buffer.initializeElement(
                at: positions[Int(rank)], to: RankedSlot(slot: slot, rank: rank))
              positions[Int(rank)] += 1
            }
          }
          count = ranked.count
        }
      }
    }
  }

  /// Whether `a` comes before `b`: rank, then popularity, then catalog order.
  func precedes(_ a: RankedSlot, _ b: RankedSlot) -> Bool {
    if a.rank != b.rank { return a.rank < b.rank }
    return popularityPrecedes(Int(a.slot), Int(b.slot))
  }
}
