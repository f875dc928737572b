import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where one item's best match is, beside its rank: what `--explain` reports.
struct SlotAnalysis {
  var rank: MatchRank
  /// The attribute's field: a text column, or a number column after them.
  var field: Field?
  /// The byte offset of the best match in its text column.
  var offset: Int?
  /// The value that equals or starts with the query, when exactness says one does.
  var exactField: Field?
  var exactOffset: Int?
  /// While the last word is typed, the points of the value that makes the item a start
  /// (`MatchRank.typedPoints`), exact or near spelt; nil otherwise.
  var typedPoints: Int?

  enum Field: Hashable {
    case text(Int)
    case number(Int)
  }

  /// A value equal to the query or starting with it (`SearchIndex.decidingValue`): it decides
  /// the exactness, and its field is the rank's attribute, at position 0.
  struct DecidingValue {
    var isEqual: Bool
    var attribute: Int
    var field: Field
    /// Where the value starts in its text column (nil for a number, or when only the column's
    /// summary said so).
    var offset: Int?
    /// The item's magnitude (`MatchRank.magnitude`) when the query's last word is still being
    /// typed (`MatchRequest.isTyping`); nil when it is finished.
    var typingMagnitude: Int?

    /// While the last word is typed, the points this value gives its item
    /// (`MatchRank.typedPoints`): the better value has more.
    var typedPoints: Int {
      MatchRank.typedPoints(
        titleEquals: attribute == 0 && isEqual, titleStarts: attribute == 0, valueEquals: isEqual)
    }

    /// The whole rank of a match without near spellings. While the last word is typed, every
    /// value equal to the query or starting with it is a start, weighed by the item's
    /// magnitude and its points (`MatchRank.typedStart`): "war" finds Warsaw before War (775
    /// people) and the hamlets whose alternate names are "War".
    var rank: MatchRank {
      if let typingMagnitude {
        return MatchRank.typedStart(magnitude: typingMagnitude, points: typedPoints)
      }
      return MatchRank(
        typos: 0, exactness: isEqual ? .equalsQuery : .startsValue,
        attribute: min(attribute, MatchRank.maximumAttribute), position: 0)
    }
  }
}

/// A value that starts with a near spelling of a one-word query being typed
/// (`SearchIndex.nearStart`): a start among the exact ones, less its edits
/// (`MatchRank.typedStart(magnitude:points:edits:)`).
struct NearStart {
  /// `MatchRank.typedPoints` of the value.
  var points: Int
  var edits: Int
  var attribute: Int
  /// The text column and the byte offset of the value in it.
  var column: Int
  var offset: Int

  /// How two values of one item compare, smaller first: the most points less the edits'
  /// penalty, then the fewest edits, then the best attribute.
  var key: (Int, Int, Int) { (MatchRank.typedEditPenalty * edits - points, edits, attribute) }
}

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
    if rows >= slots.count || slots.count <= wholeBelow
      || (wholeBelow > 0 && slots.count <= rows * 2)
    {
      return (order(rank(slots, plan, nearSpellings: false)), true)
    }
    if usingLists, let listed = leadingRows(slots, plan, rows: rows) { return (listed, false) }
    if plan.rankProbes.isEmpty { return (firstByPopularity(slots, rows: rows), false) }
    let identity = popularityOrder.isEmpty
    let holders = queryHolders(plan)
    let heap = withRankingContext(plan) { context in
      // Each match's best possible exactness, on every core: a few bit tests each.
      var levels = [UInt8](repeating: 0, count: slots.count)
      levels.withUnsafeMutableBufferPointer { levels in
        let output = SharedWriteBuffer(buffer: levels)
        slots.withUnsafeBufferPointer { slots in
          let input = SharedReadBuffer(buffer: slots)
          let ranges = Parallel.ranges(
            count: slots.count, parts: Parallel.parts(for: slots.count, minimumPerPart: 50_000))
          _ = Parallel.map(parts: ranges.count) { part in
            withRankingContext(plan) { context in
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
      let letter = Self.singleLetter(context)
      var heap = KeyHeap(capacity: rows)
      for level in UInt8(0)..<4 {
        // No typos on this path: a rank starts with its exactness (`MatchRank.packed`).
        let bound = UInt64(level) << (7 + 32)
        if heap.isFull, bound > heap.largest { break }
        // While the last word is typed, a start's attribute depends on its popularity: a
        // bound of its own (`attributeBound`), which only grows as popularity falls.
        let typedStarts = context.isTyping && level == 1
        if let letter {
          // A letter's rank costs a few bit tests: rank the level in slot order.
          for (position, slot) in slots.enumerated() where levels[position] == level {
            let popularity = UInt64(identity ? UInt32(slot) : popularityRanks[Int(slot)])
            let bound =
              typedStarts
              ? bound | attributeBound(level: level, Int(slot), context) << (3 + 32) : bound
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
          if heap.isFull, bound | popularity >= heap.largest { continue }
          queue.append(popularity << 32 | UInt64(position))
        }
        queue.heapify()
        while let key = queue.popMin() {
          let popularity = key >> 32
          let position = Int(key & 0xFFFF_FFFF)
          let slot = Int(slots[position])
          let bound =
            typedStarts ? bound | attributeBound(level: level, slot, context) << (3 + 32) : bound
          if heap.isFull, bound | popularity >= heap.largest { break }
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

  /// The best exactness (`MatchRank.Exactness.rawValue`) a slot that matches the plan exactly
  /// can have, read from the per-slot summaries alone: never better than `analyse` finds.
  @inline(__always)
  func exactnessBound(_ slot: Int, _ context: RankingContext) -> UInt8 {
    let query = context.query
    if !query.isEmpty {
      var startsValue = false
      for column in context.queryColumns {
        let raw = context.columns[Int(column)]
        guard raw.mayStartValue(slot, with: query[0]) else { continue }
        // While the last word is typed, a value equal to the query is a start too
        // (`MatchRank.typedStart`): no level 0.
        if !context.isTyping, raw.mayHaveValue(slot, ofLength: query.count) { return 0 }
        startsValue = true
      }
      if let value = context.queryNumber,
        context.queryNumberColumns.contains(where: { context.numbers[Int($0)][slot] == value })
      {
        if !context.isTyping { return 0 }
        startsValue = true
      }
      if startsValue { return 1 }
    }
    return wordStartBound(slot, context)
  }

  /// The best exactness a slot with no value equal to or starting with the query can have:
  /// word starts (2) when every term's first byte may start one of its words, else substring.
  @inline(__always)
  func wordStartBound(_ slot: Int, _ context: RankingContext) -> UInt8 {
    for probe in context.probes {
      let first = context.needle(probe)[0]
      let startsWord =
        context.columns(of: probe).contains {
          context.columns[Int($0)].mayStartWord(slot, with: first)
        }
        || (!probe.number.isNaN
          && context.numberColumns(of: probe).contains {
            context.numbers[Int($0)][slot] == probe.number
          })
      if !startsWord { return 3 }
    }
    return 2
  }

  /// The value that decides a slot's exactness: the best (title first) value equal to the
  /// query, else the best starting with it — nil when none does. Read from the values
  /// themselves: the summaries only say a value may start with the query's first byte (for
  /// "da n", 2,763 of 12,091 matches, of which none starts with "da n").
  func decidingValue(_ slot: Int, _ context: RankingContext) -> SlotAnalysis.DecidingValue? {
    let query = context.query
    guard !query.isEmpty else { return nil }
    var best: SlotAnalysis.DecidingValue?
    @inline(__always)
    func consider(_ value: SlotAnalysis.DecidingValue) {
      guard let kept = best else { return best = value }
      if Self.decides(value, over: kept, isTyping: context.isTyping) { best = value }
    }
    for column in context.queryColumns {
      let raw = context.columns[Int(column)]
      guard raw.mayStartValue(slot, with: query[0]) else { continue }
      let attribute = attribute(ofText: Int(column))
      if query.count == 1, RawColumn.hasOwnBit(query[0]), raw.valueStarts != nil,
        !raw.mayHaveValue(slot, ofLength: 1)
      {
        // The mask says a value starts with the letter, and no value is one byte long.
        consider(.init(isEqual: false, attribute: attribute, field: .text(Int(column))))
        continue
      }
      guard let found = raw.valueStarting(with: query, inSlot: slot) else { continue }
      consider(
        .init(
          isEqual: found.isEqual, attribute: attribute, field: .text(Int(column)),
          offset: found.offset))
    }
    if let value = context.queryNumber {
      for column in context.queryNumberColumns where context.numbers[Int(column)][slot] == value {
        consider(
          .init(
            isEqual: true, attribute: attribute(ofNumber: Int(column)), field: .number(Int(column)))
        )
      }
    }
    if context.isTyping { best?.typingMagnitude = context.magnitude(slot) }
    return best
  }

  /// Whether `value` rather than `kept` decides a slot's exactness: one equal to the query
  /// before one starting with it, then the better attribute; while the last word is typed, the
  /// one with more points first (`DecidingValue.typedPoints`).
  @inline(__always)
  static func decides(
    _ value: SlotAnalysis.DecidingValue, over kept: SlotAnalysis.DecidingValue, isTyping: Bool
  ) -> Bool {
    if isTyping, value.typedPoints != kept.typedPoints {
      return value.typedPoints > kept.typedPoints
    }
    return (value.isEqual ? 0 : 1, value.attribute) < (kept.isEqual ? 0 : 1, kept.attribute)
  }

  /// The smallest attribute a match at exactness `level` can have, from its popularity alone:
  /// while the last word is typed, a start's attribute is 15 less its magnitude and at most
  /// the points of a title equal to the query (`MatchRank.typedStart`) — a bound that only
  /// grows as popularity falls; else 0. (A bound from the item's own summaries too — may its
  /// title equal or start the query — let fewer items be read, but read their value lengths:
  /// 2 MB more of a bench's peak, for no keystroke measurably faster.)
  @inline(__always)
  func attributeBound(level: UInt8, _ slot: Int, _ context: RankingContext) -> UInt64 {
    guard context.isTyping, level == 1 else { return 0 }
    let points = context.magnitude(slot) + MatchRank.typedTitleEqualPoints
    return UInt64(MatchRank.maximumAttribute - min(MatchRank.maximumAttribute, points))
  }

  /// `exactnessBound` for a one-letter query (`singleLetter`) whose letter has the bit `bit`,
  /// over the summaries of the columns it searches: equal when a value may start with the
  /// letter and be one byte long (and `mayEqual`: not while the letter is typed), starts a
  /// value, starts a word, or else a substring.
  @inline(__always)
  static func oneLetterBound(
    _ bit: UInt32, _ slot: Int, _ columns: [RawColumn], mayEqual: Bool
  ) -> UInt8 {
    var level: UInt8 = 3
    let lengthOne = RawColumn.lengthBit(1)
    for raw in columns {
      if raw.valueStarts![slot] & bit != 0 {
        if mayEqual, raw.lengths![slot] & lengthOne != 0 { return 0 }
        level = 1
      } else if level > 2, raw.wordStarts![slot] & bit != 0 {
        level = 2
      }
    }
    return level
  }

  /// The letter of a query that is one ASCII letter and nothing else (the first keystroke,
  /// matching most items), when the columns have their summaries: `rankOneLetter` applies.
  static func singleLetter(_ context: RankingContext) -> UInt8? {
    guard context.probes.count == 1, context.queryNumber == nil else { return nil }
    let probe = context.probes[0]
    let needle = context.needle(probe)
    guard needle.count == 1, RawColumn.hasOwnBit(needle[0]), !probe.initials,
      probe.number.isNaN, context.queryColumns.elementsEqual(context.columns(of: probe)),
      context.columns(of: probe).allSatisfy({ context.columns[Int($0)].valueStarts != nil })
    else { return nil }
    return needle[0]
  }

  /// `analyse` for a one-letter query, packed rank only: the summaries answer exactness and
  /// word starts, and one forward pass over the first column holding the letter gives its
  /// position. The same rules, in far fewer steps (it is most of a first keystroke's work).
  @inline(__always)
  func rankOneLetter(_ letter: UInt8, _ slot: Int, _ context: RankingContext) -> UInt16 {
    let bit = RawColumn.wordStartBit(letter)
    var equals = false
    var startsValue = false
    var equalAttribute = Int.max
    var startingAttribute = Int.max
    let columns = context.columns(of: context.probes[0])
    for column in columns {
      let raw = context.columns[Int(column)]
      guard raw.valueStarts![slot] & bit != 0 else { continue }
      let attribute = attribute(ofText: Int(column))
      if raw.lengths![slot] & RawColumn.lengthBit(1) == 0 {
        startsValue = true
        startingAttribute = min(startingAttribute, attribute)
      } else if let found = raw.valueStarting(with: context.query, inSlot: slot) {
        if found.isEqual {
          equals = true
          equalAttribute = min(equalAttribute, attribute)
        } else {
          startsValue = true
          startingAttribute = min(startingAttribute, attribute)
        }
      }
    }
    if equals || startsValue {
      // The value that decided the exactness gives the attribute, at position 0.
      if context.isTyping {
        let points = MatchRank.typedPoints(
          titleEquals: equalAttribute == 0, titleStarts: startingAttribute == 0,
          valueEquals: equals)
        return MatchRank.typedStart(magnitude: context.magnitude(slot), points: points).packed
      }
      return MatchRank(
        typos: 0, exactness: equals ? .equalsQuery : .startsValue,
        attribute: min(equals ? equalAttribute : startingAttribute, MatchRank.maximumAttribute),
        position: 0
      ).packed
    }
    var bestAttribute = Int.max
    var bestPosition = Int.max
    var found = false
    var wordStart = false
    for column in columns {
      let raw = context.columns[Int(column)]
      let attribute = attribute(ofText: Int(column))
      let mayStartWord = raw.wordStarts![slot] & bit != 0
      if found && attribute > bestAttribute {
        if mayStartWord { wordStart = true }
        continue
      }
      guard
        let first = Self.firstOccurrence(
          of: letter, from: Int(raw.starts[slot]), to: Int(raw.starts[slot + 1]), bytes: raw.bytes)
      else { continue }
      found = true
      if (attribute, first.position) < (bestAttribute, bestPosition) {
        (bestAttribute, bestPosition) = (attribute, first.position)
      }
      if mayStartWord { wordStart = true }
    }
    return MatchRank(
      typos: 0, exactness: wordStart ? .wordStarts : .substring,
      attribute: min(bestAttribute, MatchRank.maximumAttribute),
      position: min(bestPosition, MatchRank.maximumPosition)
    ).packed
  }

  /// Sorts ranked matches by rank, then popularity, then catalog order.
  ///
  /// - Complexity: few matches: O(*m* log *m*). Many: O(*n*), a counting sort by rank over
  ///   the slots kept in popularity order.
  func order(_ ranked: [RankedSlot]) -> [RankedSlot] {
    guard ranked.count > 1 else { return ranked }
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

  /// Whether slot `a` comes before slot `b` on popularity, then catalog order.
  func popularityPrecedes(_ a: Int, _ b: Int) -> Bool {
    if rankingColumn != nil {
      let (keyA, keyB) = (popularityKey(of: a), popularityKey(of: b))
      if keyA != keyB { return keyA < keyB }
    }
    return orderKeys[a] < orderKeys[b]
  }

  /// One slot against the plan's text terms: typos, exactness, and where its best match is.
  func analyse(_ slot: Int, _ plan: MatchPlan, nearSpellings: Bool) -> SlotAnalysis {
    withRankingContext(plan) { analyse(slot, plan, $0, nearSpellings: nearSpellings) }
  }

  func analyse(
    _ slot: Int, _ plan: MatchPlan, _ context: RankingContext, nearSpellings: Bool
  ) -> SlotAnalysis {
    var best = (
      attribute: Int.max, position: Int.max, field: SlotAnalysis.Field?.none, offset: Int?.none
    )
    @inline(__always)
    func consider(_ attribute: Int, _ position: Int, _ field: SlotAnalysis.Field, _ offset: Int?) {
      if (attribute, position) < (best.attribute, best.position) {
        best = (attribute, position, field, offset)
      }
    }
    // A value equal to the query or starting with it decides the exactness and the place: an
    // alternate equal to the query does not borrow the title's attribute from a word the title
    // merely holds.
    let decided = decidingValue(slot, context)
    var typos = 0
    var allWordStarts = true
    // Once a value decides the place, the terms can only add near spellings' edits.
    for (index, probe) in context.probes.enumerated() where decided == nil || nearSpellings {
      var found = false
      var wordStart = false
      let needle = context.needle(probe)
      for column in context.columns(of: probe) {
        let raw = context.columns[Int(column)]
        let attribute = attribute(ofText: Int(column))
        // A field after the best one so far can only tell whether the term starts a word.
        let worse = found && attribute > best.attribute
        if worse && wordStart { continue }
        // A word can start with the needle only where some word starts with its first byte;
        // for a one-letter needle whose letter has a bit of its own, that settles it.
        let mayStartWord = raw.mayStartWord(slot, with: needle[0])
        let settled = needle.count == 1 && raw.wordStarts != nil && RawColumn.hasOwnBit(needle[0])
        if worse && (settled || !mayStartWord) {
          if settled && mayStartWord { wordStart = true }
          continue
        }
        if let first = Self.occurrences(
          of: needle, inSlot: slot, bytes: raw.bytes, starts: raw.starts,
          lookForWordStart: mayStartWord && !settled && !wordStart,
          needsPosition: attribute <= best.attribute)
        {
          found = true
          if let position = first.position {
            consider(attribute, position, .text(Int(column)), first.offset)
          }
          if first.anyWordStart || (settled && mayStartWord) { wordStart = true }
        }
        if probe.initials, let initials = context.initials[Int(column)],
          ByteSearch.contains(
            needle, in: initials.bytes,
            range: Int(initials.starts[slot])..<Int(initials.starts[slot + 1]))
        {
          found = true
          consider(attribute, MatchRank.maximumPosition, .text(Int(column)), nil)
        }
      }
      if !probe.number.isNaN {
        for column in context.numberColumns(of: probe)
        where context.numbers[Int(column)][slot] == probe.number {
          found = true
          wordStart = true
          consider(attribute(ofNumber: Int(column)), 0, .number(Int(column)), nil)
        }
      }
      if !found, nearSpellings, let near = nearestWord(plan.rankProbes[index], slot: slot) {
        typos += near.cost
        wordStart = true
        let raw = context.columns[near.column]
        let position = Self.wordPosition(
          of: near.bytes.lowerBound, slotStart: Int(raw.starts[slot]), bytes: raw.bytes)
        consider(
          attribute(ofText: near.column), position, .text(near.column), near.bytes.lowerBound)
      }
      allWordStarts = allWordStarts && wordStart
    }
    var rank = MatchRank(
      typos: typos, exactness: allWordStarts ? .wordStarts : .substring,
      attribute: min(best.attribute, MatchRank.maximumAttribute),
      position: min(best.position, MatchRank.maximumPosition))
    var typedPoints: Int?
    if let decided {
      best = (decided.attribute, 0, decided.field, decided.offset)
      rank = decided.rank
      rank.typos = typos
    } else if typos > 0, context.isTyping, plan.rankProbes.count == 1,
      let start = nearStart(plan.rankProbes[0], slot: slot, context)
    {
      typedPoints = start.points
      // A one-word query being typed, misspelt: a value starting with a near spelling of it
      // ranks among the starts, its edits taken from its weight.
      best = (start.attribute, 0, .text(start.column), start.offset)
      rank = MatchRank.typedStart(
        magnitude: context.magnitude(slot), points: start.points, edits: start.edits)
    }
    return SlotAnalysis(
      rank: rank, field: best.field, offset: best.offset, exactField: decided?.field,
      exactOffset: decided?.offset,
      typedPoints: context.isTyping ? decided?.typedPoints ?? typedPoints : nil)
  }

  /// The slot's best value that starts with a near spelling of `probe`: whose first word, from
  /// the value's first byte, is within the term's budget, whole or its beginning. Its points
  /// while the term is typed (`MatchRank.typedPoints`; equal when the value is that one word,
  /// spelt to its end), its edits, attribute, column and byte offset. The best has the most
  /// points less `MatchRank.typedEditPenalty` per edit, then the fewest edits, then the best
  /// attribute; nil when no value starts so.
  func nearStart(_ probe: MatchPlan.TextProbe, slot: Int, _ context: RankingContext)
    -> NearStart?
  {
    guard let typo = probe.typo, let firstLetter = probe.needle.first else { return nil }
    // Within one edit the first letters agree (an edit of it costs two).
    let firstAgrees = typo.budget < 2
    var rows = NearSpelling.Rows(term: typo.letters, budget: typo.budget)
    var best: NearStart?
    for column in probe.columns {
      let raw = context.columns[column]
      if firstAgrees, !raw.mayStartValue(slot, with: firstLetter) { continue }
      let attribute = attribute(ofText: column)
      let bytes = raw.bytes
      guard let base = bytes.baseAddress else { continue }
      var valueStart = Int(raw.starts[slot])
      let end = Int(raw.starts[slot + 1])
      while valueStart < end {
        let valueEnd =
          memchr(base + valueStart, 0, end - valueStart).map {
            UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0))
          } ?? end
        defer { valueStart = valueEnd + 1 }
        if valueEnd == valueStart || (firstAgrees && bytes[valueStart] != firstLetter) {
          continue
        }
        var wordEnd = valueStart
        while wordEnd < valueEnd, !NearSpelling.isWordBoundary(bytes[wordEnd]) { wordEnd += 1 }
        guard wordEnd > valueStart,
          let found = NearSpelling.bestPrefix(
            of: UnsafeBufferPointer(rebasing: bytes[valueStart..<wordEnd]), rows: &rows)
        else { continue }
        let isEqual = wordEnd == valueEnd && found.length == wordEnd - valueStart
        let start = NearStart(
          points: MatchRank.typedPoints(
            titleEquals: attribute == 0 && isEqual, titleStarts: attribute == 0,
            valueEquals: isEqual),
          edits: found.cost, attribute: attribute, column: column, offset: valueStart)
        if best.map({ start.key < $0.key }) ?? true { best = start }
      }
    }
    return best
  }

  /// The attribute of a text column: the title first, then the other text fields in order.
  func attribute(ofText column: Int) -> Int {
    MatchRank.attribute(ofText: column, titleColumn: titleColumn)
  }

  /// The attribute of a number column: after every text field.
  func attribute(ofNumber column: Int) -> Int { textFields.count + column }

  /// Where `needle` first occurs in the slot's bytes (its offset, and the index of its word in
  /// its value), and whether any occurrence starts a word; nil when it does not occur.
  /// `lookForWordStart: false` stops at the first occurrence; `needsPosition: false` leaves its
  /// word uncounted (nil), for a field that cannot be the best one.
  @inline(__always)
  static func occurrences(
    of needle: UnsafeBufferPointer<UInt8>, inSlot slot: Int, bytes: UnsafeBufferPointer<UInt8>,
    starts: UnsafeBufferPointer<UInt32>, lookForWordStart: Bool = true, needsPosition: Bool = true
  ) -> (offset: Int, position: Int?, anyWordStart: Bool)? {
    let slotStart = Int(starts[slot])
    let end = Int(starts[slot + 1])
    if needle.count == 1 {
      // One byte (the first keystroke, matching most items): one forward pass that counts
      // words on the way, no search call.
      guard let first = firstOccurrence(of: needle[0], from: slotStart, to: end, bytes: bytes)
      else { return nil }
      guard lookForWordStart else {
        let atStart =
          first.offset == slotStart || NearSpelling.isWordBoundary(bytes[first.offset - 1])
        return (first.offset, first.position, atStart)
      }
      var offset = first.offset
      while offset < end {
        if bytes[offset] == needle[0],
          offset == slotStart || NearSpelling.isWordBoundary(bytes[offset - 1])
        {
          return (first.offset, first.position, true)
        }
        offset += 1
      }
      return (first.offset, first.position, false)
    }
    guard let found = ByteSearch.firstOffset(of: needle, in: bytes, range: slotStart..<end)
    else { return nil }
    let position = needsPosition ? wordPosition(of: found, slotStart: slotStart, bytes: bytes) : nil
    guard lookForWordStart else {
      return (found, position, found == slotStart || NearSpelling.isWordBoundary(bytes[found - 1]))
    }
    var next: Int? = found
    while let offset = next {
      if offset == slotStart || NearSpelling.isWordBoundary(bytes[offset - 1]) {
        return (found, position, true)
      }
      next = ByteSearch.firstOffset(of: needle, in: bytes, range: offset + 1..<end)
    }
    return (found, position, false)
  }

  /// The first `byte` in `bytes[start..<end]` and the index, in its value, of its word.
  @inline(__always)
  static func firstOccurrence(
    of byte: UInt8, from start: Int, to end: Int, bytes: UnsafeBufferPointer<UInt8>
  ) -> (offset: Int, position: Int)? {
    var words = 0
    var inWord = false
    var offset = start
    while offset < end {
      let current = bytes[offset]
      if current == 0 {
        words = 0
        inWord = false
      } else if NearSpelling.isWordBoundary(current) {
        inWord = false
      } else if !inWord {
        inWord = true
        words += 1
      }
      if current == byte { return (offset, min(max(0, words - 1), MatchRank.maximumPosition)) }
      offset += 1
    }
    return nil
  }

  /// The index, in its value, of the word that holds `offset` (at most
  /// `MatchRank.maximumPosition`).
  static func wordPosition(
    of offset: Int, slotStart: Int, bytes: UnsafeBufferPointer<UInt8>
  ) -> Int {
    // Count the word starts from the value's start (its 0 separator or the slot's start) up to
    // and including `offset`; the last one counted starts the word that holds it.
    var starts = 0
    var index = offset
    while index >= slotStart, bytes[index] != 0 {
      if !NearSpelling.isWordBoundary(bytes[index]),
        index == slotStart || NearSpelling.isWordBoundary(bytes[index - 1])
      {
        starts += 1
        if starts > MatchRank.maximumPosition { return MatchRank.maximumPosition }
      }
      index -= 1
    }
    return max(0, starts - 1)
  }
}

/// A text column as raw memory, with per-slot summaries that let ranking skip work: which
/// first bytes start a word, and which value lengths occur.
struct RawColumn {
  var bytes: UnsafeBufferPointer<UInt8>
  var starts: UnsafeBufferPointer<UInt32>
  /// Nil without summaries (a line index): every bit set.
  var wordStarts: UnsafeBufferPointer<UInt32>?
  var valueStarts: UnsafeBufferPointer<UInt32>?
  var lengths: UnsafeBufferPointer<UInt64>?

  /// Whether a value of the slot may start with `byte`.
  @inline(__always)
  func mayStartValue(_ slot: Int, with byte: UInt8) -> Bool {
    valueStarts.map { $0[slot] & Self.wordStartBit(byte) != 0 } ?? true
  }

  /// Whether a word of the slot may start with `byte`.
  @inline(__always)
  func mayStartWord(_ slot: Int, with byte: UInt8) -> Bool {
    wordStarts.map { $0[slot] & Self.wordStartBit(byte) != 0 } ?? true
  }

  /// Whether a value of the slot may be `count` bytes long.
  @inline(__always)
  func mayHaveValue(_ slot: Int, ofLength count: Int) -> Bool {
    lengths.map { $0[slot] & Self.lengthBit(count) != 0 } ?? true
  }

  /// The bit of `wordStarts` for words starting with `byte`: a letter or digit of its own, any
  /// other lead byte shares one of the remaining bits.
  @inline(__always)
  static func wordStartBit(_ byte: UInt8) -> UInt32 {
    switch byte {
    case 0x61...0x7A: 1 << UInt32(byte - 0x61)
    case 0x30...0x39: 1 << 26
    default: 1 << UInt32(27 + Int(byte) % 5)
    }
  }

  /// Whether words starting with `byte` have a `wordStarts` bit of their own.
  @inline(__always)
  static func hasOwnBit(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }

  /// The bit of `lengths` for values of `count` bytes (63: 63 or more).
  @inline(__always)
  static func lengthBit(_ count: Int) -> UInt64 { 1 << UInt64(min(count, 63)) }

  /// The first of the slot's values that starts with `query`, preferring one that equals it.
  func valueStarting(
    with query: UnsafeBufferPointer<UInt8>, inSlot slot: Int
  ) -> (offset: Int, isEqual: Bool)? {
    var start = Int(starts[slot])
    let end = Int(starts[slot + 1])
    let base = bytes.baseAddress!
    // Past the first value that starts with the query, only an equal one can do better.
    let mayEqual = mayHaveValue(slot, ofLength: query.count)
    var found: (offset: Int, isEqual: Bool)?
    while start < end {
      let valueEnd =
        memchr(base + start, 0, end - start).map {
          UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0))
        } ?? end
      if valueEnd - start >= query.count,
        memcmp(base + start, query.baseAddress!, query.count) == 0
      {
        if valueEnd - start == query.count { return (start, true) }
        if found == nil { found = (start, false) }
        if !mayEqual { return found }
      }
      start = valueEnd + 1
    }
    return found
  }
}

/// Per-slot summaries of one text column for `RawColumn`.
struct ColumnSummary: Sendable {
  var wordStarts: IndexBuffer<UInt32> = []
  /// The first bytes of the values, in the bits of `wordStarts`.
  var valueStarts: IndexBuffer<UInt32> = []
  var lengths: IndexBuffer<UInt64> = []

  /// Summaries of every slot of `column`, on every core.
  init(_ column: FoldedColumn) {
    let ranges = Parallel.ranges(
      count: column.slotCount, parts: Parallel.parts(for: column.slotCount, minimumPerPart: 50_000))
    let parts = Parallel.map(parts: ranges.count) { part in
      var summary = ColumnSummary()
      summary.wordStarts.reserveCapacity(ranges[part].count)
      summary.valueStarts.reserveCapacity(ranges[part].count)
      summary.lengths.reserveCapacity(ranges[part].count)
      column.withUnsafeBytes { bytes, starts in
        for slot in ranges[part] { summary.append(slot, bytes: bytes, starts: starts) }
      }
      return summary
    }
    wordStarts = IndexBuffer(Array(parts.map(\.wordStarts).joined()))
    valueStarts = IndexBuffer(Array(parts.map(\.valueStarts).joined()))
    lengths = IndexBuffer(Array(parts.map(\.lengths).joined()))
  }

  /// Adds the summary of `column`'s last slot.
  mutating func appendLast(of column: FoldedColumn) {
    column.withUnsafeBytes { bytes, starts in
      append(column.slotCount - 1, bytes: bytes, starts: starts)
    }
  }

  private mutating func append(
    _ slot: Int, bytes: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<UInt32>
  ) {
    var words: UInt32 = 0
    var values: UInt32 = 0
    var lengths: UInt64 = 0
    var valueStart = Int(starts[slot])
    let end = Int(starts[slot + 1])
    for offset in valueStart..<end {
      let byte = bytes[offset]
      if byte == 0 {
        lengths |= RawColumn.lengthBit(offset - valueStart)
        valueStart = offset + 1
        continue
      }
      if offset == valueStart { values |= RawColumn.wordStartBit(byte) }
      if !NearSpelling.isWordBoundary(byte),
        offset == Int(starts[slot]) || NearSpelling.isWordBoundary(bytes[offset - 1])
      {
        words |= RawColumn.wordStartBit(byte)
      }
    }
    wordStarts.append(words)
    valueStarts.append(values)
    self.lengths.append(lengths)
  }

  /// A copy keeping only the given slots, in the given order.
  func compacted(keeping slots: [Int]) -> ColumnSummary {
    var copy = ColumnSummary()
    copy.wordStarts = IndexBuffer(
      wordStarts.withUnsafeBufferPointer { old in slots.map { old[$0] } })
    copy.valueStarts = IndexBuffer(
      valueStarts.withUnsafeBufferPointer { old in slots.map { old[$0] } })
    copy.lengths = IndexBuffer(lengths.withUnsafeBufferPointer { old in slots.map { old[$0] } })
    return copy
  }

  /// No slots yet.
  init() {}
}

/// A plan's ranking terms and the index's columns as raw memory, for one ranking pass: no
/// reference counting in the per-item loop.
struct RankingContext {
  struct Probe {
    var needle: Range<Int>
    var columns: Range<Int>
    var numberColumns: Range<Int>
    var initials: Bool
    /// NaN: the term is not a number.
    var number: Double
  }

  var columns: UnsafeBufferPointer<RawColumn>
  var initials: UnsafeBufferPointer<RawColumn?>
  var numbers: UnsafeBufferPointer<UnsafeBufferPointer<Double>>
  var probes: UnsafeBufferPointer<Probe>
  /// Needles and the query, back to back.
  var arena: UnsafeBufferPointer<UInt8>
  /// Column lists of the probes, back to back.
  var columnLists: UnsafeBufferPointer<Int32>
  var query: UnsafeBufferPointer<UInt8>
  var queryColumns: UnsafeBufferPointer<Int32>
  var queryNumber: Double?
  var queryNumberColumns: UnsafeBufferPointer<Int32>
  /// The query's last word is still being typed (`MatchRequest.isTyping`).
  var isTyping: Bool
  /// While the last word is typed, with a ranking field where larger is better: each slot's
  /// place in popularity order, and per power of ten 10^m (m = 0…9) how many items reach it
  /// (`SearchIndex.magnitudeStarts`) — a slot's magnitude without reading its value, whose
  /// column the search would otherwise touch all over (2 MB of the cities).
  var popularityRanks: IndexBuffer<UInt32>?
  var magnitudeStarts: [UInt32]

  /// The slot's magnitude (`MatchRank.magnitude`): 0 without a larger-is-better ranking field.
  @inline(__always)
  func magnitude(_ slot: Int) -> Int {
    guard let popularityRanks else { return 0 }
    let place = popularityRanks[slot]
    var magnitude = 0
    for start in magnitudeStarts where place < start { magnitude += 1 }
    return magnitude
  }

  @inline(__always)
  func needle(_ probe: Probe) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: arena[probe.needle])
  }

  @inline(__always)
  func columns(of probe: Probe) -> UnsafeBufferPointer<Int32> {
    UnsafeBufferPointer(rebasing: columnLists[probe.columns])
  }

  @inline(__always)
  func numberColumns(of probe: Probe) -> UnsafeBufferPointer<Int32> {
    UnsafeBufferPointer(rebasing: columnLists[probe.numberColumns])
  }
}

extension SearchIndex {
  /// Calls `body` with the plan and the columns as raw memory.
  func withRankingContext<Result>(
    _ plan: MatchPlan, _ body: (RankingContext) -> Result
  ) -> Result {
    var arena: [UInt8] = []
    var lists: [Int32] = []
    var probes: [RankingContext.Probe] = []
    for probe in plan.rankProbes {
      let needleStart = arena.count
      arena += probe.needle
      let columnStart = lists.count
      lists += probe.columns.map(Int32.init)
      let numberStart = lists.count
      lists += probe.numberColumns.map(Int32.init)
      probes.append(
        RankingContext.Probe(
          needle: needleStart..<arena.count, columns: columnStart..<numberStart,
          numberColumns: numberStart..<lists.count, initials: probe.initials,
          number: probe.number ?? .nan))
    }
    let queryStart = arena.count
    arena += plan.query ?? []
    let queryRange = queryStart..<arena.count
    let queryColumnsStart = lists.count
    lists += plan.queryColumns.map(Int32.init)
    let queryColumnsRange = queryColumnsStart..<lists.count
    let queryNumberStart = lists.count
    lists += (plan.queryNumber?.columns ?? []).map(Int32.init)
    let queryNumberRange = queryNumberStart..<lists.count
    // Ten binary searches a context. Found once per plan instead, they were found for plans
    // that rank nothing (a kept list answers them) and cost a bench 2 MB more peak.
    let starts = plan.isTyping ? magnitudeStarts() : []

    return withRawColumns { columns, initials in
      withNumberBuffers { numbers in
        arena.withUnsafeBufferPointer { arena in
          lists.withUnsafeBufferPointer { lists in
            probes.withUnsafeBufferPointer { probes in
              body(
                RankingContext(
                  columns: columns, initials: initials, numbers: numbers, probes: probes,
                  arena: arena, columnLists: lists,
                  query: UnsafeBufferPointer(rebasing: arena[queryRange]),
                  queryColumns: UnsafeBufferPointer(rebasing: lists[queryColumnsRange]),
                  queryNumber: plan.queryNumber?.value,
                  queryNumberColumns: UnsafeBufferPointer(rebasing: lists[queryNumberRange]),
                  isTyping: plan.isTyping,
                  popularityRanks: starts.isEmpty ? nil : popularityRanks,
                  magnitudeStarts: starts))
            }
          }
        }
      }
    }
  }

  /// Per power of ten 10^m (m = 0…9), how many items of the popularity order reach it: those
  /// are its first ones, the order being by value, larger first, missing last. Empty without
  /// a ranking field where larger is better (every magnitude is then 0).
  ///
  /// - Complexity: ten binary searches over the order.
  func magnitudeStarts() -> [UInt32] {
    guard let rankingColumn, schema.weighsMagnitude, !popularityOrder.isEmpty else { return [] }
    let values = numbers[rankingColumn]
    var power = 1.0
    return (0..<10).map { _ in
      defer { power *= 10 }
      var (low, high) = (0, popularityOrder.count)
      while low < high {
        let mid = (low + high) / 2
        if values[Int(popularityOrder[mid])] >= power { low = mid + 1 } else { high = mid }
      }
      return UInt32(low)
    }
  }

  /// Calls `body` with every text column (and its initials) as raw memory.
  private func withRawColumns<Result>(
    _ body: (UnsafeBufferPointer<RawColumn>, UnsafeBufferPointer<RawColumn?>) -> Result
  ) -> Result {
    var raw: [RawColumn] = []
    var rawInitials: [RawColumn?] = []
    func next(_ index: Int) -> Result {
      if index == columns.count {
        return raw.withUnsafeBufferPointer { raw in
          rawInitials.withUnsafeBufferPointer { body(raw, $0) }
        }
      }
      return columns[index].withUnsafeBytes { bytes, starts in
        summaries[index].withUnsafeBuffers { wordStarts, valueStarts, lengths in
          raw.append(
            RawColumn(
              bytes: bytes, starts: starts, wordStarts: wordStarts, valueStarts: valueStarts,
              lengths: lengths))
          guard let initials = initialColumns[index] else {
            rawInitials.append(nil)
            return next(index + 1)
          }
          return initials.withUnsafeBytes { bytes, starts in
            rawInitials.append(
              RawColumn(
                bytes: bytes, starts: starts, wordStarts: nil, valueStarts: nil, lengths: nil))
            return next(index + 1)
          }
        }
      }
    }
    return next(0)
  }

  /// Calls `body` with every number column as raw memory.
  private func withNumberBuffers<Result>(
    _ body: (UnsafeBufferPointer<UnsafeBufferPointer<Double>>) -> Result
  ) -> Result {
    var raw: [UnsafeBufferPointer<Double>] = []
    func next(_ index: Int) -> Result {
      if index == numbers.count { return raw.withUnsafeBufferPointer(body) }
      return numbers[index].withUnsafeBufferPointer { column in
        raw.append(column)
        return next(index + 1)
      }
    }
    return next(0)
  }
}

extension ColumnSummary? {
  /// The summaries as raw memory; nil pointers when there are none.
  func withUnsafeBuffers<Result>(
    _ body: (
      UnsafeBufferPointer<UInt32>?, UnsafeBufferPointer<UInt32>?, UnsafeBufferPointer<UInt64>?
    ) -> Result
  ) -> Result {
    guard let summary = self else { return body(nil, nil, nil) }
    return summary.wordStarts.withUnsafeBufferPointer { words in
      summary.valueStarts.withUnsafeBufferPointer { values in
        summary.lengths.withUnsafeBufferPointer { body(words, values, $0) }
      }
    }
  }
}

/// The smallest keys seen, at most `capacity` of them: a max-heap whose top is the key a new
/// one must beat.
struct KeyHeap {
  private var keys: [UInt64] = []
  let capacity: Int

  init(capacity: Int) {
    self.capacity = capacity
    keys.reserveCapacity(capacity)
  }

  var isFull: Bool { keys.count >= capacity }
  /// The largest key kept (only meaningful once something is kept).
  var largest: UInt64 { keys.first ?? .max }

  /// Keeps `key` if there is room or it is smaller than the largest kept, which then goes.
  mutating func insert(_ key: UInt64) {
    if keys.count < capacity {
      keys.append(key)
      var child = keys.count - 1
      while child > 0 {
        let parent = (child - 1) / 2
        guard keys[parent] < keys[child] else { break }
        keys.swapAt(parent, child)
        child = parent
      }
      return
    }
    guard capacity > 0, key < keys[0] else { return }
    keys[0] = key
    var parent = 0
    while true {
      let left = 2 * parent + 1
      guard left < keys.count else { break }
      let right = left + 1
      let larger = right < keys.count && keys[right] > keys[left] ? right : left
      guard keys[larger] > keys[parent] else { break }
      keys.swapAt(parent, larger)
      parent = larger
    }
  }

  /// The keys kept, smallest first.
  var sorted: [UInt64] { keys.sorted() }
}

/// Keys taken smallest first: a binary min-heap made in one pass (`heapify`), so that taking
/// the first few of many costs O(*n*) + O(*k* log *n*), not a sort.
struct MinKeyQueue {
  private var keys: [UInt64] = []

  mutating func append(_ key: UInt64) { keys.append(key) }

  /// Orders the keys appended so far into a heap; call once, before `popMin`.
  mutating func heapify() {
    var parent = keys.count / 2 - 1
    while parent >= 0 {
      siftDown(parent)
      parent -= 1
    }
  }

  mutating func popMin() -> UInt64? {
    guard let first = keys.first else { return nil }
    let last = keys.removeLast()
    if !keys.isEmpty {
      keys[0] = last
      siftDown(0)
    }
    return first
  }

  private mutating func siftDown(_ start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < keys.count else { return }
      let right = left + 1
      let smaller = right < keys.count && keys[right] < keys[left] ? right : left
      guard keys[smaller] < keys[parent] else { return }
      keys.swapAt(parent, smaller)
      parent = smaller
    }
  }
}
