/// A base filter (`SearchCriteria.base`) frames what a searcher may see — a tenant's rows. It is
/// searched as tokens are, so the rows, counts and facets of a search are the searcher's by
/// construction; what is said of the catalog around them (its total, the tokens offered, "did
/// you mean", where an item stands in the whole catalog) is said of the base filter's rows.
extension SearchCollection {
  /// Whether a base filter is in force.
  public var hasBase: Bool { !resolved.baseTerms.isEmpty }

  /// The base filter alone, as the index takes it; nil without one.
  private var baseRequest: (ResolvedCriteria, MatchRequest)? {
    guard hasBase else { return nil }
    let base = ResolvedCriteria(SearchCriteria(base: criteria.base), schema: schema)
    return (base, base.request(typos: .off))
  }

  /// How many elements the base filter keeps; nil without one.
  func countedBase() -> Int? {
    baseRequest.map { index.matchCount($0.1) }
  }

  /// How many elements each scope and category would show of the base filter's rows alone:
  /// which categories the searcher's rows hold. Nil without a base filter.
  public var baseFacets: Facets? {
    guard let (base, request) = baseRequest else { return nil }
    return index.facets(of: base, request: request, matches: index.search(request))
  }

  /// The scope titles the base filter's rows hold — a tenant's scope buttons: every scope that
  /// is not a category's, and each category's that some row holds, never the titles of other
  /// sellers' categories. Nil without a base filter.
  public var scopesHeldByBase: [String]? {
    guard hasBase else { return nil }
    let scopes = schema.scopes
    let hasCategoryScope = scopes.contains {
      if case .category = $0.filter { return true }
      return false
    }
    guard hasCategoryScope, let facets = baseFacets else { return scopes.map(\.title) }
    return scopes.compactMap { scope in
      guard case .category(let value) = scope.filter else { return scope.title }
      return facets.count(ofCategory: value) > 0 ? scope.title : nil
    }
  }

  /// `offered` without the category tokens the base filter's rows do not hold (a token of
  /// another kind, `year:>=2010`, is the schema's and stays).
  func heldByBase(_ offered: [SearchToken]) -> [SearchToken] {
    guard hasBase, offered.contains(where: { $0.identifier.hasPrefix("category:") }),
      let facets = baseFacets
    else { return offered }
    return offered.filter { facets.count(of: $0).map { $0 > 0 } ?? true }
  }

  /// Whether some element the base filter keeps holds `word` (every word is held by some
  /// element without one): "did you mean" offers no word of rows the searcher cannot see.
  func baseHolds(word: String) -> Bool {
    guard hasBase else { return true }
    let check = ResolvedCriteria(
      SearchCriteria(text: "\"\(word)\"", base: criteria.base), schema: schema)
    return index.matchCount(check.request(typos: .off)) > 0
  }
}
