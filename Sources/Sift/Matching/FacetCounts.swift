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
    let nearPlan = nearSpellingPlan(lifted, exact: plan)
    // A request with alternatives is matched as written (`searchAlternatives`).
    let mayHaveTypos =
      request.typos.isEnabled && !request.hasAlternatives && nearPlan.hasTypoTerms
    // The matches shown answer the lifted request when no category was required.
    let current = matches.flatMap {
      $0.layout == layout && request.requiredCategory == nil ? $0 : nil
    }
    let categoryCount = categoryIDs.count
    /// Per category id, how many of `slots` it holds (an array: a dictionary per match cost
    /// more than the search on a large catalog).
    func count(_ slots: some Sequence<Int32>) -> (total: Int, byID: [Int]) {
      var counts = [Int](repeating: 0, count: categoryCount)
      var total = 0
      for slot in slots {
        let id = categories[Int(slot)]
        if id >= 0 { counts[Int(id)] += 1 }
        total += 1
      }
      return (total, counts)
    }
    func tally(_ total: Int, _ shown: (Int) -> Int) -> CategoryTally {
      var tally = CategoryTally(total: total)
      for (name, id) in categoryIDs {
        let count = shown(Int(id))
        if count > 0 { tally.byCategory[name] = count }
      }
      return tally
    }
    // Every category shows what a search of all of them shows, cut to it: without typo terms,
    // and when even all categories together fell below the threshold (near spellings
    // everywhere, which is what the current matches are).
    if let current, !mayHaveTypos || current.includesNearSpellings {
      let counts = count(current.slots)
      return tally(counts.total) { counts.byID[$0] }
    }
    if !mayHaveTypos {
      let counts = count(searchSlots(lifted, within: nil, rows: 0).slots)
      return tally(counts.total) { counts.byID[$0] }
    }
    // Terms that may have typos: per category, the exact matches unless too few of them count
    // toward the threshold, in which case that category's search would show near spellings.
    let exact = current?.slots ?? searchSlots(MatchRequest(lifted, typos: .off), rows: 0).slots
    let exactCounts = count(exact)
    let threshold = request.typos.threshold
    let counted =
      request.typos.countsInfixMatches
      ? exactCounts : countedExactMatches(exact, plan, categories: categoryCount, upTo: threshold)
    guard counted.total < threshold || counted.byID.contains(where: { $0 < threshold }) else {
      return tally(exactCounts.total) { exactCounts.byID[$0] }
    }
    // Near matches count only for the total or the categories that fell short: the others'
    // candidates are not checked.
    let near = count(
      nearMatchingSlots(nearPlan) { slot in
        let id = Int(categories[Int(slot)])
        return counted.total < threshold || (id >= 0 && counted.byID[id] < threshold)
      })
    return tally(counted.total < threshold ? near.total : exactCounts.total) { id in
      counted.byID[id] < threshold ? near.byID[id] : exactCounts.byID[id]
    }
  }

  /// How many of `slots` (exact matches) count toward the typo threshold
  /// (`SearchIndex.counts(_:strongStartsOnly:)`), in all and per category id, each count
  /// stopped at `threshold`: all the counts are compared with. A match is ranked only while its category (or the total) is short, and
  /// only when its summaries allow word starts.
  private func countedExactMatches(
    _ slots: [Int32], _ plan: MatchPlan, categories categoryCount: Int, upTo threshold: Int
  ) -> (total: Int, byID: [Int]) {
    var byID = [Int](repeating: 0, count: categoryCount)
    var total = 0
    withRankingContext(plan) { context in
      for slot in slots {
        let id = Int(categories[Int(slot)])
        guard total < threshold || (id >= 0 && byID[id] < threshold) else { continue }
        guard exactnessBound(Int(slot), context) < MatchRank.Exactness.substring.rawValue,
          Self.counts(
            analyse(Int(slot), plan, context, nearSpellings: false).rank,
            strongStartsOnly: countsStrongStartsOnly(plan))
        else { continue }
        total += 1
        if id >= 0 { byID[id] += 1 }
      }
    }
    return (total, byID)
  }

  /// How many live items match `request` (a field scope's count).
  func matchCount(_ request: MatchRequest) -> Int {
    searchSlots(request, within: nil, rows: 0).slots.count
  }
}

extension MatchRequest {
  /// The same request with other typo tolerance.
  init(_ request: MatchRequest, typos: TypoTolerance) {
    self = request
    self.typos = typos
  }
}

/// How a request's `Facets` are counted — one recipe for the in-memory index and the PostgreSQL
/// store, which only count differently. The scope bar's All and category buttons search every
/// field (the request without its scope); a field scope's button is that scope's own search;
/// tokens add to whichever scope is in force.
package struct FacetPlan: Sendable {
  /// Where one scope-bar button's count comes from.
  package enum Source: Sendable {
    /// Every match of the unscoped request.
    case unscopedTotal
    /// The unscoped request's matches in this folded category.
    case unscopedCategory(String)
    /// What the request shows now (its own field scope).
    case shown
    /// How many items this request (another field scope) matches.
    case search(MatchRequest)
  }

  /// The request without its scope, when it searches other fields than the request (else the
  /// request's own category tally serves both).
  package var unscoped: MatchRequest?
  /// Per scope-bar button, in its order.
  package var scopes: [Source]
  let requiredCategory: String?

  package init(_ criteria: SearchCriteria, request: MatchRequest, schema: CatalogSchema) {
    var lifted = criteria
    lifted.scopeIndex = -1
    let unscopedRequest = ResolvedCriteria(lifted, schema: schema).request(typos: request.typos)
    unscoped = unscopedRequest.searchedFields == request.searchedFields ? nil : unscopedRequest
    scopes = schema.scopes.enumerated().map { position, scope in
      switch scope.filter {
      case .all: return .unscopedTotal
      case .category(let value): return .unscopedCategory(TextFolding.fold(value))
      case .fields:
        guard position != criteria.scopeIndex else { return .shown }
        var other = criteria
        other.scopeIndex = position
        return .search(ResolvedCriteria(other, schema: schema).request(typos: request.typos))
      }
    }
    requiredCategory = request.requiredCategory
  }

  /// The facets from the counts: `current`, the request's matches by category with its
  /// required category lifted; `unscoped`, the same for `unscoped` (nil: it is `current`);
  /// `shown`, what the request matches; `searched`, each `.search` scope's count by position.
  package func facets(
    current: (total: Int, byCategory: [String: Int]),
    unscoped: (total: Int, byCategory: [String: Int])?, shown: Int, searched: [Int: Int]
  ) -> Facets {
    let scopeTally = unscoped ?? current
    let counts = scopes.enumerated().map { position, source in
      switch source {
      case .unscopedTotal: scopeTally.total
      case .unscopedCategory(let value): scopeTally.byCategory[value] ?? 0
      case .shown: shown
      case .search: searched[position] ?? 0
      }
    }
    var categories = current.byCategory
    if let requiredCategory { categories = categories.filter { $0.key == requiredCategory } }
    return Facets(scopes: counts, categories: categories)
  }
}
