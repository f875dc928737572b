import Dispatch
import Foundation

extension SearchIndex {
  /// The matches with their ranks, in the order given. Many matches (a one-letter term) are
  /// ranked on every core.
  func rank(_ slots: [Int32], _ plan: MatchPlan, nearSpellings: Bool) -> [RankedSlot] {
    guard !plan.rankProbes.isEmpty else {
      return slots.map { RankedSlot(slot: $0, rank: MatchRank.unranked.packed) }
    }
    let ranges = Parallel.ranges(
      count: slots.count, parts: Parallel.parts(for: slots.count, minimumPerPart: 20_000))
    let parts = Parallel.map(parts: ranges.count) { part in
      withRankingContext(plan) { context in
        if !nearSpellings, let letter = Self.singleLetter(context) {
          return slots[ranges[part]].map { slot in
            RankedSlot(slot: slot, rank: rankOneLetter(letter, Int(slot), context))
          }
        }
        return slots[ranges[part]].map { slot in
          RankedSlot(
            slot: slot,
            rank: analyse(Int(slot), plan, context, nearSpellings: nearSpellings).rank.packed)
        }
      }
    }
    return Parallel.concatenated(parts)
  }

  /// The first `rows` matches in ranked order (rank, popularity, catalog order) and whether
  /// they are every match: exactly the start of what `order(rank(slots, …))` gives, without
  /// ranking most of the rest. Each match gets a bound on its exactness from the per-slot
  /// summaries (a few bit tests); only a match whose bound and popularity could still place
  /// it among the best `rows` found so far is ranked in full.
  ///
  /// - Complexity: O(*m*) cheap bounds, a full rank for about *rows* · log(*m* / *rows*)
  ///   matches, O(*rows* log *rows*) to sort them. Small sets are ranked and sorted whole; a
  ///   needle of one to three letters with a kept list reads its rows from it (`leadingRows`).
  /// - Parameters:
  ///   - wholeBelow: sets no larger — or no larger than two pages — are ranked and sorted
  ///     whole, where the bounds would not pay; 0 bounds every set (for tests).
  ///   - usingLists: whether a short needle's kept list (`LeadingMatches`) may answer.
  func firstRows(
    _ slots: [Int32], _ plan: MatchPlan, rows: Int, wholeBelow: Int = 256,
    usingLists: Bool = true
  ) -> (entries: [RankedSlot], isComplete: Bool) {
    if slots.isEmpty { return ([], true) }
    if rows <= 0 { return ([], false) }
    if let sort = plan.sort {
      if case .distance(let near) = sort.column {
        if sort.afterExactness { return nearRows(slots, plan, sort, near: near, rows: rows) }
        if !sort.isDescending, rows < slots.count {
          return nearestRows(slots, plan, sort, near: near, rows: rows)
        }
      }
      return sortedRows(slots, plan, sort, rows: rows, nearSpellings: false)
    }
    if rows >= slots.count || slots.count <= wholeBelow
      || (wholeBelow > 0 && slots.count <= rows * 2)
    {
      return (order(rank(slots, plan, nearSpellings: false)), true)
    }
    if usingLists, let listed = leadingRows(slots, plan, rows: rows) { return (listed, false) }
    if plan.rankProbes.isEmpty { return (firstByPopularity(slots, rows: rows), false) }
    let identity = popularityOrder.isEmpty
    let readers = readingStarters(plan)
    var levels = exactnessLevels(slots, plan, readers: readers)
    let heap = withRankingContext(plan, readers: readers) { context in
      let letter = Self.singleLetter(context)
      var heap = KeyHeap(capacity: rows)
      for level in UInt8(0)..<4 {
        // No typos on this path: a rank starts with its exactness (`MatchRank.packed`), and a
        // match inside a word has its bit above it.
        let levelBound =
          UInt64(level) << (UInt64(MatchRank.exactnessShift) + 32)
          | (level == 3 ? UInt64(MatchRank.insideWordBit) << 32 : 0)
        if heap.isFull, levelBound > heap.largest { break }
        // While the last word is typed, a start's attribute depends on its popularity: a
        // bound of its own (`attributeBound`), which only grows as popularity falls.
        let typedStarts = context.isTyping && level == 1
        if let letter {
          // A letter's rank costs a few bit tests: rank the level in slot order.
          for (position, slot) in slots.enumerated() where levels[position] == level {
            let popularity = UInt64(identity ? UInt32(slot) : popularityRanks[Int(slot)])
            let bound =
              typedStarts
              ? levelBound
                | Self.attributeBound(
                  magnitude: context.magnitude(Int(slot)),
                  points: typedPointsBound(Int(slot), context)) << (3 + 32)
              : levelBound
            if heap.isFull, bound | popularity >= heap.largest { continue }
            heap.insert(UInt64(rankOneLetter(letter, Int(slot), context)) << 32 | popularity)
          }
          continue
        }
        // A full rank reads the item's text: take the level most popular first, so that once
        // the page holds only ranks this level's bound allows, the rest of it is passed over.
        var queue = MinKeyQueue()
        for (position, slot) in slots.enumerated() where levels[position] == level {
          let popularity = UInt64(identity ? UInt32(slot) : popularityRanks[Int(slot)])
          if heap.isFull, levelBound | popularity >= heap.largest { continue }
          queue.append(popularity << 32 | UInt64(position))
        }
        queue.heapify()
        while let key = queue.popMin() {
          let popularity = key >> 32
          let position = Int(key & 0xFFFF_FFFF)
          let slot = Int(slots[position])
          if typedStarts, heap.isFull {
            // The loose bound (any value equal to the query) only grows as popularity falls:
            // it ends the walk. The tight one (what this item's values allow) passes over
            // the item alone: a less popular one still may weigh enough.
            let magnitude = context.magnitude(slot)
            let loose = Self.attributeBound(
              magnitude: magnitude, points: MatchRank.typedTitleEqualPoints)
            if levelBound | loose << (3 + 32) | popularity >= heap.largest { break }
            let tight = Self.attributeBound(
              magnitude: magnitude, points: typedPointsBound(slot, context))
            if levelBound | tight << (3 + 32) | popularity >= heap.largest { continue }
          } else if heap.isFull, levelBound | popularity >= heap.largest {
            break
          }
          if level < 2 {
            // The summaries only said a value may start with the query's first byte: check
            // the values. A later level's pass takes the match if the bound was too hopeful;
            // a value that equals or starts with the query is the whole rank (no typos here).
            guard let value = decidingValue(slot, context) else {
              levels[position] = wordStartBound(slot, context)
              continue
            }
            if value.rank.exactness.rawValue != level {
              levels[position] = value.rank.exactness.rawValue
              continue
            }
            heap.insert(UInt64(value.rank.packed) << 32 | popularity)
            continue
          }
          heap.insert(
            UInt64(analyse(slot, plan, context, nearSpellings: false).rank.packed) << 32
              | popularity)
        }
      }
      return heap
    }
    let entries = heap.sorted.map {
      let position = Int($0 & 0xFFFF_FFFF)
      return RankedSlot(
        slot: identity ? Int32(position) : popularityOrder[position], rank: UInt16($0 >> 32))
    }
    return (entries, false)
  }

  /// Each match's best possible exactness (`exactnessBound`), on every core: a few bit tests
  /// each — for a first keystroke three a column, and for a query of several terms the word
  /// starts alone of the slots that cannot hold the whole query (`queryHolders`).
  func exactnessLevels(
    _ slots: [Int32], _ plan: MatchPlan, readers: ReadingStarters? = nil
  ) -> [UInt8] {
    let holders = queryHolders(plan)
    var levels = [UInt8](repeating: 0, count: slots.count)
    levels.withUnsafeMutableBufferPointer { levels in
      let output = SharedWriteBuffer(buffer: levels)
      slots.withUnsafeBufferPointer { slots in
        let input = SharedReadBuffer(buffer: slots)
        let ranges = Parallel.ranges(
          count: slots.count, parts: Parallel.parts(for: slots.count, minimumPerPart: 50_000))
        _ = Parallel.map(parts: ranges.count) { part in
          withRankingContext(plan, readers: readers) { context in
            if let letter = Self.singleLetter(context) {
              // The first keystroke: three bit tests a column, without the general rule's
              // loops over terms (`exactnessBound` gives the same levels).
              let summaries = context.columns(of: context.probes[0]).map {
                context.columns[Int($0)]
              }
              let bit = RawColumn.wordStartBit(letter)
              for position in ranges[part] {
                output.buffer[position] = Self.oneLetterBound(
                  bit, Int(input.buffer[position]), summaries, mayEqual: !context.isTyping)
              }
              return
            }
            for position in ranges[part] {
              let slot = Int(input.buffer[position])
              if let holders, slot < holders.below, !holders.slots.contains(slot) {
                output.buffer[position] = wordStartBound(slot, context)
              } else {
                output.buffer[position] = exactnessBound(slot, context)
              }
            }
          }
        }
      }
    }
    return levels
  }

  /// For a query of several terms, the slots below `below` that may hold the whole query
  /// ("da n"), from the trigram index: only they can have a value that equals or starts with
  /// it, so the others are bounded from their word starts alone. The summaries know only a
  /// value's first byte: at four times the cities, 11,000 of the 48,000 matches of "da n" have
  /// a value starting with "d", and reading their values cost more than the rest of the search.
  private func queryHolders(_ plan: MatchPlan) -> (slots: SlotSet, below: Int)? {
    guard plan.rankProbes.count > 1, let query = plan.query, query.count >= 3,
      let trigrams = trigrams.current, let listed = trigrams.candidates(for: query)
    else { return nil }
    var slots = SlotSet(capacity: trigrams.slotCount)
    for slot in listed { slots.insert(Int(slot)) }
    return (slots, trigrams.slotCount)
  }

  /// The first `rows` of `slots` by popularity, then catalog order: the order of matches that
  /// have no text to rank by (every rank ties).
  private func firstByPopularity(_ slots: [Int32], rows: Int) -> [RankedSlot] {
    let unranked = MatchRank.unranked.packed
    guard !popularityOrder.isEmpty else {
      return slots.prefix(rows).map { RankedSlot(slot: $0, rank: unranked) }
    }
    var members = SlotSet(capacity: slotCount)
    for slot in slots { members.insert(Int(slot)) }
    var entries: [RankedSlot] = []
    entries.reserveCapacity(rows)
    for slot in popularityOrder where members.contains(Int(slot)) {
      entries.append(RankedSlot(slot: slot, rank: unranked))
      if entries.count == rows { break }
    }
    return entries
  }
}
