/// How many items each category holds among the matches of a request with its category scope
/// lifted: what the "All" button and each category button or token would show.
struct CategoryTally: Hashable, Sendable {
  /// What the request shows with every category.
  var total = 0
  /// Per folded category value.
  var byCategory: [String: Int] = [:]
}

extension SearchIndex {
  /// The matches of `request` without its required category, counted by category — each count
  /// what a search kept to that category would show, near spellings included where that search
  /// would look for them.
  ///
  /// - Parameter matches: the current matches of `request`, when it has no required category:
  ///   then, without terms that may have typos, they are counted as they are.
  /// - Complexity: O(*k*) in the matches when they can be reused; otherwise one search.
  func categoryTally(_ request: MatchRequest, reusing matches: RankedMatches<ID>?) -> CategoryTally
  {
    var lifted = request
    lifted.requiredCategory = nil
    let plan = plan(lifted)
    let mayHaveTypos = request.typos.isEnabled && plan.hasTypoTerms
    let names = Dictionary(uniqueKeysWithValues: categoryIDs.map { ($1, $0) })
    var tally = CategoryTally()
    func count(_ slots: some Sequence<Int32>, into counts: inout [Int32: Int]) -> Int {
      var total = 0
      for slot in slots {
        counts[categories[Int(slot)], default: 0] += 1
        total += 1
      }
      return total
    }
    if !mayHaveTypos {
      var counts: [Int32: Int] = [:]
      if let matches, matches.layout == layout, request.requiredCategory == nil {
        tally.total = count(matches.entries.lazy.map(\.slot), into: &counts)
      } else {
        tally.total = count(searchSlots(lifted, within: nil).ranked.lazy.map(\.slot), into: &counts)
      }
      for (id, value) in counts { if let name = names[id] { tally.byCategory[name] = value } }
      return tally
    }
    // Terms that may have typos: per category, the exact matches unless too few of them count
    // toward the threshold, in which case that category's search would show near spellings.
    let exact = searchSlots(MatchRequest(lifted, typos: .off), within: nil).ranked
    var exactCounts: [Int32: Int] = [:]
    var countedCounts: [Int32: Int] = [:]
    let exactTotal = count(exact.lazy.map(\.slot), into: &exactCounts)
    let counted =
      request.typos.countsInfixMatches
      ? exact : exact.filter { MatchRank(packed: $0.rank).exactness < .substring }
    let countedTotal = count(counted.lazy.map(\.slot), into: &countedCounts)
    var nearCounts: [Int32: Int] = [:]
    let nearTotal = count(nearMatchingSlots(plan), into: &nearCounts)
    let threshold = request.typos.threshold
    tally.total = countedTotal < threshold ? nearTotal : exactTotal
    for (id, name) in names {
      let shown = countedCounts[id, default: 0] < threshold ? nearCounts[id] : exactCounts[id]
      if let shown, shown > 0 { tally.byCategory[name] = shown }
    }
    return tally
  }

  /// How many live items match `request` (a field scope's count).
  func matchCount(_ request: MatchRequest) -> Int { searchSlots(request, within: nil).ranked.count }
}

extension MatchRequest {
  /// The same request with other typo tolerance.
  init(_ request: MatchRequest, typos: TypoTolerance) {
    self = request
    self.typos = typos
  }
}
