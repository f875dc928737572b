/// How many elements each scope-bar button and category token would show for the criteria in
/// force, and the smallest and largest value of each number field among the matches: the ends
/// of a price slider.
public struct Facets: Hashable, Sendable {
  /// Per scope-bar button, in its order.
  public var scopes: [Int]
  /// Per category value (folded), for tokens; categories with no match are left out.
  public var categories: [String: Int]
  /// Per number field (by name), the smallest and largest value among the matches shown; a
  /// field no match has a value for is left out.
  public var ranges: [String: ClosedRange<Double>]
  /// Per folded category value of `categories`, as the items spell it, where the index knows:
  /// `namedCategories(schema:)` shows it when the schema does not list the value.
  public var spellings: [String: String] = [:]

  public init(
    scopes: [Int], categories: [String: Int], ranges: [String: ClosedRange<Double>] = [:]
  ) {
    self.scopes = scopes
    self.categories = categories
    self.ranges = ranges
  }

  /// The range of the number field `field` among the matches; nil when none has a value.
  public func range(of field: String) -> ClosedRange<Double>? { ranges[field] }

  /// What a token for this category would show.
  public func count(ofCategory value: String) -> Int {
    categories[TextFolding.fold(value)] ?? 0
  }

  /// What the token would show: its category's count; nil for a token that is not a category.
  public func count(of token: SearchToken) -> Int? {
    let prefix = "category:"
    guard token.identifier.hasPrefix(prefix) else { return nil }
    return count(ofCategory: String(token.identifier.dropFirst(prefix.count)))
  }

  /// `offered` tokens, those that keep the most results first: a category's count orders them,
  /// largest first; a token that is no category (`year:>=2010`) comes after those with results,
  /// and one that would find nothing last. Ties keep the order given (the catalog's).
  public func ordering(_ offered: [SearchToken]) -> [SearchToken] {
    // A category with results: its count; no category: just below any result; none: -1.
    let weights = offered.map { token in count(of: token).map { $0 > 0 ? $0 : -1 } ?? 0 }
    return offered.indices.sorted { (weights[$1], $0) < (weights[$0], $1) }.map { offered[$0] }
  }

  /// Each category with a match under its name as the catalog spells it, most items first
  /// (ties by name): what a list of categories shows.
  public func namedCategories(schema: CatalogSchema) -> [(value: String, count: Int)] {
    let names = Dictionary(
      (schema.categories + schema.scopeCategories).map { (TextFolding.fold($0), $0) },
      uniquingKeysWith: { first, _ in first })
    return categories.map { (names[$0.key] ?? spellings[$0.key] ?? $0.key, $0.value) }
      .sorted { ($1.1, $0.0) < ($0.1, $1.0) }
  }

  /// "All 15 · Chocolate 5 · Hard 4 · Other 6".
  public func summary(scopeTitles: [String]) -> String {
    zip(scopeTitles, scopes).map { "\($0) \(FieldValue.grouped(Double($1)))" }.joined(
      separator: " · ")
  }
}

extension SearchIndex {
  /// See `SearchCollection.facets`.
  func facets(
    of resolved: ResolvedCriteria, request: MatchRequest, matches: RankedMatches<ID>
  ) -> Facets {
    let plan = FacetPlan(resolved.criteria, request: request, schema: schema)
    let current = categoryTally(request, reusing: matches)
    let unscoped = plan.unscoped.map { categoryTally($0, reusing: nil) }
    var searched: [Int: Int] = [:]
    for (position, source) in plan.scopes.enumerated() {
      if case .search(let other) = source { searched[position] = matchCount(other) }
    }
    var facets = plan.facets(
      current: (current.total, current.byCategory),
      // Items, not the groups of a distinct search.
      unscoped: unscoped.map { ($0.total, $0.byCategory) }, shown: matches.slots.count,
      searched: searched)
    facets.ranges = numberRanges(matches.slots)
    let spellings = categorySpellings
    if !spellings.isEmpty {
      for key in facets.categories.keys { facets.spellings[key] = spellings[key] }
    }
    return facets
  }

  /// Per number field, the smallest and largest value among `slots`.
  ///
  /// - Complexity: O(*k*) per number field.
  func numberRanges(_ slots: [Int32]) -> [String: ClosedRange<Double>] {
    var ranges: [String: ClosedRange<Double>] = [:]
    for (column, field) in numberFields.enumerated() {
      var low = Double.infinity
      var high = -Double.infinity
      numbers[column].withUnsafeBufferPointer { values in
        for slot in slots {
          let value = values[Int(slot)]
          // NaN (no value) fails both tests.
          if value < low { low = value }
          if value > high { high = value }
        }
      }
      if low <= high { ranges[field.name] = low...high }
    }
    return ranges
  }
}
