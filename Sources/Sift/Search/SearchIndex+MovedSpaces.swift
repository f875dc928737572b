/// Joined, split and dotted words: `spiderman` finds Spider-Man, `laguardia` La Guardia,
/// `sun flower` Sunflower, `et` E.T. A space typed where there is none, or left out where there
/// is one, is a slip of the keyboard like a wrong letter, so the query's ways of writing it
/// with the spaces moved (`MatchRequest.movedSpaces`) are searched exactly when near spellings
/// are — fewer exact word-start matches than the threshold — and their matches join the near
/// spellings, each item at its best rank. A moved space is one edit (`MatchPlan.spentEdits`):
/// ranked as a one-letter near spelling, so that match quality and popularity decide between
/// `jihu` as Ji Hu… and as Jishu (ranked before every near spelling, the splits cost the
/// cities' misspellings a point). That keeps one rule for when a search looks further
/// than the words as typed: a shard, an edit placed among shown rows and a facet count all
/// decide it the same way (`includesNearSpellings`).
extension SearchIndex {
  /// The live slots, in slot order, that `variant` (one of `MatchRequest.movedSpaces`) matches
  /// as written. Candidates come from the word dictionaries, as near spellings' do: the slots
  /// holding the moved term's first word whole and a word that starts with its last
  /// ("spider" and "man…" for `spider-man`), and the slots added since a dictionary was built.
  /// A way of writing that no item's words allow costs two lookups.
  func movedSpaceSlots(_ variant: MatchRequest, _ plan: MatchPlan) -> [Int32] {
    guard
      let probe = plan.rankProbes.first(where: \.startsWord),
      case let parts = probe.needle.split(whereSeparator: NearSpelling.isWordBoundary),
      let last = parts.last
    else { return [] }
    var hits = SlotSet(capacity: slotCount)
    var any = false
    for column in probe.columns {
      let dictionary = typoDictionary(column: column)
      let lastRun = dictionary.run(of: Array(last), asPrefix: true)
      if parts.count == 1 {
        dictionary.forEachSlot(inWords: lastRun) { hits.insert(Int($0)) }
        any = any || !lastRun.isEmpty
      } else {
        // A split in two: the first part is a whole word, the second starts one.
        let firstRun = dictionary.run(of: Array(parts[0]), asPrefix: false)
        if !firstRun.isEmpty, !lastRun.isEmpty {
          var first = SlotSet(capacity: slotCount)
          dictionary.forEachSlot(inWords: firstRun) { first.insert(Int($0)) }
          dictionary.forEachSlot(inWords: lastRun) { slot in
            if first.contains(Int(slot)) {
              hits.insert(Int(slot))
              any = true
            }
          }
        }
      }
      for slot in min(dictionary.slotCount, slotCount)..<slotCount {
        hits.insert(slot)
        any = true
      }
    }
    guard any else { return [] }
    return matchingSlots(plan, within: hits.sorted)
  }

  /// The near-spelling search of `request`: its near spellings (when none of its words may
  /// have typos, its matches as written) and the matches of its words with their spaces moved, each
  /// slot at its best rank.
  func searchNear(
    _ request: MatchRequest, exact: MatchPlan, exactSlots: [Int32], nearPlan: MatchPlan
  ) -> SearchOutcome {
    var best: [Int32: UInt16] = [:]
    var typedExact = Set<Int32>()
    // Placed as `place(_:request:nearSpellings:)` places an edit: by the near-spelling plan.
    let typedSlots =
      nearPlan.hasTypoTerms
      ? nearMatchingSlots(nearPlan)
      : request.splitsForNearSpellings ? matchingSlots(nearPlan, within: nil) : exactSlots
    let typed = rank(typedSlots, nearPlan, nearSpellings: true)
    for entry in typed {
      best[entry.slot] = entry.rank
      if MatchRank(packed: entry.rank).typos == 0 { typedExact.insert(entry.slot) }
    }
    for variant in request.movedSpaces where !SearchStop.shouldStop {
      let plan = plan(variant)
      let slots = movedSpaceSlots(variant, plan)
      for entry in rank(slots, plan, nearSpellings: false)
      where entry.rank < best[entry.slot] ?? .max {
        best[entry.slot] = entry.rank
        typedExact.remove(entry.slot)
      }
    }
    let ranked = order(best.map { RankedSlot(slot: $0.key, rank: $0.value) }, sort: exact.sort)
    return SearchOutcome(
      slots: best.keys.sorted(), ordered: ranked, isComplete: true, includesNearSpellings: true,
      exactCount: typedExact.count)
  }

  /// The best place of `slot` among the moved-space matches of `request`, with the plan and
  /// way of writing that place it; nil when no way of writing matches it.
  func bestMovedSpace(
    _ slot: Int, request: MatchRequest
  ) -> (plan: MatchPlan, rank: RankedSlot, request: MatchRequest)? {
    var best: (plan: MatchPlan, rank: RankedSlot, request: MatchRequest)?
    for variant in request.movedSpaces {
      let plan = plan(variant)
      guard matches(plan, slot: slot, nearSpellings: false),
        let ranked = rank([Int32(slot)], plan, nearSpellings: false).first
      else { continue }
      if best.map({ ranked.rank < $0.rank.rank }) ?? true { best = (plan, ranked, variant) }
    }
    return best
  }
}
