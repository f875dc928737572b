/// How many items each category holds among the matches of a request with its category scope
/// lifted: what the "All" button and each category button or token would show.
struct CategoryTally: Hashable, Sendable {
  /// What the request shows with every category.
  var total = 0
  /// Per folded category value.
  var byCategory: [String: Int] = [:]
}

extension SearchIndex {
  /// The matches of `request` without its required category, counted by category: what the
  /// "All" button shows, split by category — exact matches, or near spellings where the
  /// request as a whole falls back to them. The counts add up to what is shown, never to more
  /// (a category whose only match is a near spelling counts nothing while exact matches are
  /// shown elsewhere).
  ///
  /// - Parameter matches: the current matches of `request`, when it has no required category:
  ///   then they are counted as they are.
  /// - Complexity: O(*k*) in the matches when they can be reused; otherwise one search.
  func categoryTally(_ request: MatchRequest, reusing matches: RankedMatches<ID>?) -> CategoryTally
  {
    var lifted = request
    lifted.requiredCategory = nil
    // The matches shown answer the lifted request when no category was required.
    let current = matches.flatMap {
      $0.layout == layout && request.requiredCategory == nil ? $0 : nil
    }
    let slots = current?.slots ?? searchSlots(lifted, within: nil, rows: 0).slots
    // Per category id, how many of the slots it holds (an array: a dictionary per match cost
    // more than the search on a large catalog).
    var counts = [Int](repeating: 0, count: categoryIDs.count)
    for slot in slots {
      storage.forEachCategory(ofSlot: Int(slot)) { counts[Int($0)] += 1 }
    }
    var tally = CategoryTally(total: slots.count)
    for (name, id) in categoryIDs where counts[Int(id)] > 0 {
      tally.byCategory[name] = counts[Int(id)]
    }
    return tally
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

/// How a request's `Facets` are counted. The scope bar's All and category buttons search every
/// field (the request without its scope); a field scope's button is that scope's own search;
/// tokens add to whichever scope is in force.
struct FacetPlan: Sendable {
  /// Where one scope-bar button's count comes from.
  enum Source: Sendable {
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
  var unscoped: MatchRequest?
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
