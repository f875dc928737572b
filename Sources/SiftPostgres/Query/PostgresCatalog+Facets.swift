#if Server
import Sift

extension PostgresCatalog {
  /// How many items each scope-bar button and category token would show for `input`: the
  /// engine's `SearchCollection.facets`, counted in SQL with `GROUP BY category`.
  ///
  /// - Parameters:
  ///   - matchCount: what the search of `input` found (its own scope's count).
  ///   - includesNearSpellings: whether that search looked for near spellings: the number
  ///     ranges are those of the matches it showed.
  public func facets(
    _ input: SearchRequest, typos: TypoTolerance = .automatic, matchCount: Int,
    includesNearSpellings: Bool = false
  ) async throws(PostgresError) -> Facets {
    let request = ResolvedCriteria(input.criteria, schema: schema).request(typos: typos)
    let plan = FacetPlan(input.criteria, request: request, schema: schema)
    let current = try await categoryTally(request)
    var unscoped: (total: Int, byCategory: [String: Int])?
    if let lifted = plan.unscoped { unscoped = try await categoryTally(lifted) }
    var searched: [Int: Int] = [:]
    for (position, source) in plan.scopes.enumerated() {
      guard case .search(let other) = source else { continue }
      searched[position] = try await ranked(other, limit: 0, offset: 0).page.matches
    }
    var facets = plan.facets(
      current: current, unscoped: unscoped, shown: matchCount, searched: searched)
    facets.ranges = try await numberRanges(request, nearSpellings: includesNearSpellings)
    return facets
  }

  /// Per number field, the smallest and largest value among the matches of `request` — its
  /// exact matches, or with `nearSpellings` those the near-spelling search shows
  /// (`SearchIndex.numberRanges`).
  private func numberRanges(
    _ request: MatchRequest, nearSpellings: Bool
  ) async throws(PostgresError) -> [String: ClosedRange<Double>] {
    guard !layout.numberFields.isEmpty else { return [:] }
    var sql = SearchSQL(request, layout: layout, schemaName: address.schemaName)
    let statement: String
    if nearSpellings {
      sql = nearSpellingSQL(request, exact: sql)
      statement = sql.statement(nearWords: try await nearWords(sql), output: .ranges)
    } else {
      statement = sql.statement(nearWords: nil, output: .ranges)
    }
    var ranges: [String: ClosedRange<Double>] = [:]
    for (column, low, high) in try await link.rows(
      statement, sql.binds, as: (Int, Double, Double).self)
    where layout.numberFields.indices.contains(column) && low <= high {
      ranges[layout.numberFields[column].name] = low...high
    }
    return ranges
  }

  /// The matches of `request` without its required category, counted by category: the
  /// engine's `categoryTally` rule — what the request shows, exact matches or, where the request
  /// as a whole falls below the typo threshold, near spellings, split by category.
  private func categoryTally(
    _ request: MatchRequest
  ) async throws(PostgresError) -> (total: Int, byCategory: [String: Int]) {
    var lifted = request
    lifted.requiredCategory = nil
    // Counts do not depend on the order: a finished letter reads the letter counts too.
    var counting = lifted
    counting.isTyping = true
    if let (letter, category) = Self.soleLetter(counting) {
      return try await letterTally(letter, category: category)
    }
    var sql = SearchSQL(lifted, layout: layout, schemaName: address.schemaName)
    let exact = try await tally(&sql, nearWords: nil)
    let typos = request.typos
    var nearSQL = nearSpellingSQL(lifted, exact: sql)
    // A request with alternatives is matched as written (`SearchIndex.searchAlternatives`).
    guard typos.isEnabled, !request.hasAlternatives, nearSQL.hasTypoTerms,
      (typos.countsInfixMatches ? exact.total : exact.countedTotal) < typos.threshold
    else { return exact.shown }
    return try await tally(&nearSQL, nearWords: try await nearWords(nearSQL)).shown
  }

  /// Per category (the empty key: none), how many rows of the statement match and how many
  /// count toward the typo threshold.
  private func tally(
    _ sql: inout SearchSQL, nearWords: [[SearchSQL.NearWord]]?
  ) async throws(PostgresError) -> Tally {
    let statement = sql.statement(nearWords: nearWords, output: .tally)
    var tally = Tally()
    for (category, all, counted) in try await link.rows(
      statement, sql.binds, as: (String?, Int, Int).self)
    {
      tally.total += all
      tally.countedTotal += counted
      guard let category else { continue }
      tally.all[category] = all
      tally.counted[category] = counted
    }
    return tally
  }

  private struct Tally {
    var total = 0
    var countedTotal = 0
    var all: [String: Int] = [:]
    var counted: [String: Int] = [:]
    /// The exact counts, categories with none left out.
    var shown: (total: Int, byCategory: [String: Int]) { (total, all.filter { $0.value > 0 }) }
  }
}
#endif
