/// Joined, split and dotted words: `spiderman` finds Spider-Man, `laguardia` La Guardia,
/// `sun flower` Sunflower, `et` E.T. A space typed where there is none, or left out where there
/// is one, is a slip of the keyboard like a wrong letter, so the query's ways of writing it
/// with the spaces moved (`MatchRequest.spaceMoves`) are searched exactly when near spellings
/// are — fewer exact word-start matches than the threshold — and their matches join the near
/// spellings, each item at its best rank. A moved space is one edit (`MatchPlan.spentEdits`):
/// ranked as a one-letter near spelling, so that match quality and popularity decide between
/// `jihu` as Ji Hu… and as Jishu (ranked before every near spelling, the splits cost the
/// cities' misspellings a point). That keeps one rule for when a search looks further
/// than the words as typed: a shard, an edit placed among shown rows and a facet count all
/// decide it the same way (`includesNearSpellings`).
extension SearchIndex {
  /// The slots that may hold `needle`, the moved term of one of `MatchRequest.spaceMoves`, in
  /// `columns`, in slot order; nil when no item's words allow it. They come from the word
  /// dictionaries, as near spellings' candidates do: the slots holding the needle's first word
  /// whole and a word that starts with its last ("spider" and "man…" for `spider-man`), and the
  /// slots added since a dictionary was built. A way of writing that no item's words allow —
  /// most of the 64 — costs a binary search or two.
  func movedSpaceCandidates(_ needle: [UInt8], columns: [Int]) -> [Int32]? {
    let parts = needle.split(whereSeparator: NearSpelling.isWordBoundary)
    guard let last = parts.last, parts.count <= 2 else { return nil }
    // Most ways hold a few hundred slots: gathered, then sorted (`SlotSet.distinctSorted`).
    var hits: [Int32] = []
    func insert(_ slot: Int32) { hits.append(slot) }
    for column in columns {
      let dictionary = typoDictionary(column: column)
      let lastRun = dictionary.run(of: Array(last), asPrefix: true)
      if parts.count == 1 {
        dictionary.forEachSlot(inWords: lastRun, insert)
      } else if !lastRun.isEmpty {
        // A split in two: the first part is a whole word, the second starts one. The slots of
        // the rarer part are the candidates (a second part of one letter starts words in most
        // items); the needle is checked in each.
        let firstRun = dictionary.run(of: Array(parts[0]), asPrefix: false)
        if !firstRun.isEmpty {
          let rarer =
            dictionary.postingCount(inWords: firstRun) <= dictionary.postingCount(inWords: lastRun)
            ? firstRun : lastRun
          dictionary.forEachSlot(inWords: rarer, insert)
        }
      }
      for slot in min(dictionary.slotCount, slotCount)..<slotCount { insert(Int32(slot)) }
    }
    return hits.isEmpty ? nil : SlotSet.distinctSorted(hits, capacity: slotCount)
  }

  /// The near-spelling search of `request`: its near spellings (when none of its words may
  /// have typos, its matches as written) and the matches of its words with their spaces moved, each
  /// slot at its best rank.
  func searchNear(
    _ request: MatchRequest, exact: MatchPlan, exactSlots: [Int32], nearPlan: MatchPlan
  ) -> SearchOutcome {
    // Placed as `place(_:request:nearSpellings:)` places an edit: by the near-spelling plan.
    let typedSlots =
      nearPlan.hasTypoTerms
      ? nearMatchingSlots(nearPlan)
      : request.splitsForNearSpellings ? matchingSlots(nearPlan, within: nil) : exactSlots
    let typed = rank(typedSlots, nearPlan, nearSpellings: true)
    // Each way of writing is planned only when the dictionaries allow it.
    var moved: [RankedSlot] = []
    var columns: [Int]?
    for move in request.spaceMoves where !SearchStop.shouldStop {
      if columns == nil { columns = movedTermColumns(request, move) }
      guard
        let candidates = movedSpaceCandidates(
          Array(move.condition.needle.utf8), columns: columns ?? [])
      else { continue }
      let plan = plan(request.request(moving: move))
      // Most ways match nothing: a ranking pass costs its setup even then.
      let slots = matchingSlots(plan, within: candidates)
      if !slots.isEmpty { moved += rank(slots, plan, nearSpellings: false) }
    }
    let exactCount = typed.count { MatchRank(packed: $0.rank).typos == 0 }
    guard !moved.isEmpty else {
      return SearchOutcome(
        slots: typedSlots, ordered: order(typed, sort: exact.sort), isComplete: true,
        includesNearSpellings: true, exactCount: exactCount)
    }
    // Each slot at its best rank; the words as typed keep a tie.
    var best: [Int32: UInt16] = [:]
    for entry in typed { best[entry.slot] = entry.rank }
    var typedExact = exactCount
    for entry in moved where entry.rank < best[entry.slot] ?? .max {
      if let typedRank = best[entry.slot], MatchRank(packed: typedRank).typos == 0 {
        typedExact -= 1
      }
      best[entry.slot] = entry.rank
    }
    let ranked = order(best.map { RankedSlot(slot: $0.key, rank: $0.value) }, sort: exact.sort)
    return SearchOutcome(
      slots: best.keys.sorted(), ordered: ranked, isComplete: true, includesNearSpellings: true,
      exactCount: typedExact)
  }

  /// The best place of `slot` among the moved-space matches of `request`, with the plan and
  /// way of writing that place it; nil when no way of writing matches it. Only the ways whose
  /// moved term the slot holds at a word's start are planned and ranked.
  func bestMovedSpace(
    _ slot: Int, request: MatchRequest
  ) -> (plan: MatchPlan, rank: RankedSlot, request: MatchRequest)? {
    var best: (plan: MatchPlan, rank: RankedSlot, request: MatchRequest)?
    var columns: [Int]?
    for move in request.spaceMoves {
      if columns == nil { columns = movedTermColumns(request, move) }
      let needle = Array(move.condition.needle.utf8)
      guard
        (columns ?? []).contains(where: {
          holdsWholeWords(needle, in: self.columns[$0], slot: slot, toWordEnd: false)
        })
      else { continue }
      let variant = request.request(moving: move)
      let plan = plan(variant)
      guard matches(plan, slot: slot, nearSpellings: false),
        let ranked = rank([Int32(slot)], plan, nearSpellings: false).first
      else { continue }
      if best.map({ ranked.rank < $0.rank.rank }) ?? true { best = (plan, ranked, variant) }
    }
    return best
  }

  /// The columns every moved term searches (those the plain words do), from the plan of one.
  private func movedTermColumns(_ request: MatchRequest, _ move: MatchRequest.SpaceMove) -> [Int] {
    plan(request.request(moving: move)).rankProbes.first(where: \.startsWord)?.columns ?? []
  }
}
