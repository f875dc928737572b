/// One search of the index: the matches of a request as written (`Matching/`), the first of
/// them put in order (`Ranking/`), and — when fewer exact matches than the typo threshold
/// count — near spellings instead (`Typos/`). What every caller asks the index for
/// (`RankedMatches`, facet counts, a line filter): the one place those three meet.

/// A match: the slot of a matching item and its `MatchRank`, packed.
struct RankedSlot: Hashable, Sendable {
  var slot: Int32
  var rank: UInt16
}

/// What one search found.
struct SearchOutcome: Sendable {
  /// Every match, in slot order.
  var slots: [Int32]
  /// The first matches, best first (every one when `isComplete`).
  var ordered: [RankedSlot]
  var isComplete: Bool
  /// Whether near spellings were looked for, because exact matches fell below the threshold.
  var includesNearSpellings: Bool
  /// How many of the matches have every term as written.
  var exactCount: Int

  /// The matches, best first: all of them.
  var ranked: [RankedSlot] {
    precondition(isComplete, "an outcome ordered in part")
    return ordered
  }
}

extension SearchIndex {
  /// The live items that match `request`, best first (docs/ranking.md: the rules, then popularity, then
  /// catalog order). When fewer match exactly than the request's typo threshold, near
  /// spellings are looked for too.
  ///
  /// - Parameters:
  ///   - candidates: when given, only these slots are considered for exact matches
  ///     (refinement: they must hold every exact match). Near spellings are always looked up
  ///     afresh, in the word dictionaries.
  ///   - rows: how many of the first matches to put in order; every one by default.
  /// - Complexity: one scan of the searched columns for the first text term, then a check per
  ///   remaining candidate for each other term; near spellings walk the sorted words. Ordering
  ///   ranks only the matches whose bound lets them reach the first `rows`.
  func searchSlots(
    _ request: MatchRequest, within candidates: [Int32]? = nil, rows: Int = .max
  ) -> SearchOutcome {
    if request.hasAlternatives {
      return searchAlternatives(request, within: candidates, rows: rows)
    }
    let plan = plan(request)
    let exact = matchingSlots(plan, within: candidates)
    let typos = request.typos
    let nearPlan = nearSpellingPlan(request, exact: plan)
    let mayLookFurther = typos.isEnabled && (nearPlan.hasTypoTerms || request.mayMoveSpaces)
    // The threshold's count reads the first rows by relevance: at least that many must be in
    // order. Under a sort they are ranked apart from the rows shown, and only when near
    // spellings may be looked for.
    var byRelevance = plan
    byRelevance.sort = nil
    let counted: (entries: [RankedSlot], isComplete: Bool)? =
      mayLookFurther
      ? firstRows(
        exact, byRelevance,
        rows: plan.sort == nil ? max(rows, typos.threshold) : typos.threshold) : nil
    if let counted,
      Self.countedExactMatches(
        counted.entries, total: exact.count, typos,
        strongStartsOnly: countsStrongStartsOnly(plan)) < typos.threshold
    {
      return searchNear(request, exact: plan, exactSlots: exact, nearPlan: nearPlan)
    }
    let first =
      plan.sort == nil
      ? counted ?? firstRows(exact, plan, rows: rows)
      : firstRows(exact, plan, rows: rows)
    return SearchOutcome(
      slots: exact, ordered: first.entries, isComplete: first.isComplete,
      includesNearSpellings: false, exactCount: exact.count)
  }

  /// The exact matches that count toward the typo threshold: those where every term starts a
  /// word (while a query is typed, only strong starts: `MatchRank.isStrongTypedStart`),
  /// unless infix matches count too — read from the first of them in order, which hold every
  /// such match or at least `threshold` of them (they rank before every other).
  static func countedExactMatches(
    _ first: [RankedSlot], total: Int, _ typos: TypoTolerance, strongStartsOnly: Bool
  ) -> Int {
    guard !typos.countsInfixMatches else { return total }
    return first.count { counts(MatchRank(packed: $0.rank), strongStartsOnly: strongStartsOnly) }
  }

  /// Whether only strong exact starts count toward the typo threshold: a query whose last word
  /// is typed and one of whose terms may have typos, in a catalog whose popularity weighs
  /// (`CatalogSchema.weighsMagnitude`; without it every start weighs its points alone, and every
  /// word start counts). An obscure item's word start is weak evidence with one word or
  /// several: `the doctr` finds The Monroe Doctrine (13 votes) and looks for The Doctor too.
  func countsStrongStartsOnly(_ plan: MatchPlan) -> Bool {
    plan.isTyping && plan.hasTypoTerms && schema.weighsMagnitude
  }

  /// Whether an exact match of this rank counts toward the typo threshold.
  @inline(__always)
  static func counts(_ rank: MatchRank, strongStartsOnly: Bool) -> Bool {
    strongStartsOnly ? rank.isStrongTypedStart : rank.exactness < .substring
  }

  /// One slot's place among the results of `request` searched with or without near spellings
  /// (an edit placed among rows already shown), nil when it does not match.
  func place(_ slot: Int, request: MatchRequest, nearSpellings: Bool) -> RankedSlot? {
    bestAlternative(slot, request: request, nearSpellings: nearSpellings)?.rank
  }
}
