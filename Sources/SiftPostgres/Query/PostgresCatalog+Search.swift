#if Server
import Foundation
import Sift

/// One page of a search on PostgreSQL, with what the app's footer says about all of it.
public struct PostgresSearchResult: Sendable {
  /// The page's items, best first.
  public var ids: [ItemID]
  /// Their ranks (typos, exactness, attribute, position), as the engine's `--explain` gives.
  public var ranks: [MatchRank]
  /// Their places in catalog order (the last ranking rule's key).
  public var catalogOrders: [Int64]
  public var indicator: ResultsIndicator
  /// Whether near spellings were searched (too few exact matches): highlights and explanations
  /// of the page then look for them too.
  public var includesNearSpellings: Bool
  /// What the parser noticed in the text and tokens.
  public var diagnostics: [QueryDiagnostic]
}

extension PostgresCatalog {
  /// Searches the catalog with the embedded engine's rules — the same items in the same order —
  /// compiled to SQL: exact matches first; when fewer than the tolerance's threshold count,
  /// near spellings from the word dictionary too.
  public func search(
    _ input: SearchRequest, typos: TypoTolerance = .automatic, limit: Int? = nil,
    offset: Int = 0
  ) async throws(PostgresError) -> PostgresSearchResult {
    let total = try await count()
    let resolved = ResolvedCriteria(input.criteria, schema: schema)
    guard input.isFiltering else {
      // Every item, by popularity then catalog order (the engine's order with no search), or
      // by the sort's value first.
      let (popularity, order) = layout.popularity
      let sorted = layout.order(resolved.request(), rank: nil)
      let rows = try await link.rows(
        "SELECT id, ord FROM \(table) ORDER BY \(sorted)\(popularity) \(order), ord LIMIT $1 OFFSET $2",
        [.integer(limit ?? Int(Int32.max)), .integer(offset)], as: (String, Int).self)
      return PostgresSearchResult(
        ids: rows.map { ItemID($0.0) }, ranks: rows.map { _ in .unranked },
        catalogOrders: rows.map { Int64($0.1) },
        indicator: ResultsIndicator(isFiltering: false, matchCount: total, totalCount: total),
        includesNearSpellings: false, diagnostics: resolved.diagnostics)
    }
    let (page, near) = try await ranked(
      resolved.request(typos: typos), limit: limit, offset: offset)
    return PostgresSearchResult(
      ids: page.ids, ranks: page.ranks, catalogOrders: page.orders,
      indicator: ResultsIndicator(
        isFiltering: true, matchCount: page.matches, totalCount: total,
        exactMatchCount: page.exact),
      includesNearSpellings: near, diagnostics: resolved.diagnostics)
  }

  /// A page of `request`'s matches and their counts: exact matches first; when fewer than
  /// the tolerance's threshold count, near spellings from the word dictionary too.
  func ranked(
    _ request: MatchRequest, limit: Int?, offset: Int
  ) async throws(PostgresError) -> (page: Page, near: Bool) {
    if request.hasAlternatives {
      return (try await alternativesPage(request, limit: limit, offset: offset), false)
    }
    if request.sort == nil, request.near == nil, let (letter, category) = Self.soleLetter(request),
      let page = try await letterPage(letter, category: category, limit: limit, offset: offset)
    {
      return (page, false)
    }
    let typos = request.typos
    var sql = SearchSQL(request, layout: layout, schemaName: address.schemaName)
    let page = try await run(&sql, nearWords: nil, limit: limit, offset: offset)
    let counted = typos.countsInfixMatches ? page.matches : page.counted
    var nearSQL = nearSpellingSQL(request, exact: sql)
    guard typos.isEnabled, nearSQL.hasTypoTerms, counted < typos.threshold else {
      return (page, false)
    }
    let near = try await run(
      &nearSQL, nearWords: try await nearWords(nearSQL), limit: limit, offset: offset)
    return (near, true)
  }

  struct Page {
    var ids: [ItemID] = []
    var ranks: [MatchRank] = []
    var orders: [Int64] = []
    var matches = 0
    var counted = 0
    var exact = 0
  }

  /// A page of a request with alternatives (`rose | tulip`, synonyms), as the engine's
  /// `searchAlternatives` makes it: each alternative's matches from a statement of its own,
  /// matched as written; each item keeps the best rank an alternative gives it (one with a
  /// synonym ranking after what was typed); then one statement orders the page by the sort's
  /// value, that rank, popularity and catalog order.
  private func alternativesPage(
    _ request: MatchRequest, limit: Int?, offset: Int
  ) async throws(PostgresError) -> Page {
    var best: [String: Int] = [:]
    for var alternative in request.alternatives {
      alternative.sort = nil
      var sql = SearchSQL(alternative, layout: layout, schemaName: address.schemaName)
      let found = try await run(&sql, nearWords: nil, limit: nil, offset: 0)
      let synonym = alternative.viaSynonym ? Int(MatchRank.synonymBit) : 0
      for (id, rank) in zip(found.ids, found.ranks) {
        best[id.rawValue] = min(best[id.rawValue] ?? .max, Int(rank.packed) | synonym)
      }
    }
    var page = Page()
    page.matches = best.count
    page.counted = best.count
    page.exact = best.count
    guard !best.isEmpty, limit.map({ $0 > 0 }) ?? true else { return page }
    let (popularity, order) = layout.popularity
    let sorted = layout.order(request, rank: "matched_rank")
    let statement = """
      SELECT id, matched_rank, ord FROM \(table)
      JOIN unnest($1::text[], $2::integer[]) AS matched(matched_id, matched_rank) ON id = matched_id
      ORDER BY \(sorted)matched_rank, \(popularity) \(order), ord LIMIT $3 OFFSET $4
      """
    for (id, rank, ord) in try await link.rows(
      statement,
      [
        .texts(Array(best.keys)), .integers(Array(best.values)),
        .integer(limit ?? Int(Int32.max)), .integer(offset),
      ], as: (String, Int, Int).self)
    {
      page.ids.append(ItemID(id))
      page.ranks.append(MatchRank(packed: UInt16(clamping: rank)))
      page.orders.append(Int64(ord))
    }
    return page
  }

  private func run(
    _ sql: inout SearchSQL, nearWords: [[SearchSQL.NearWord]]?, limit: Int?, offset: Int
  ) async throws(PostgresError) -> Page {
    var page = Page()
    let statement = sql.statement(nearWords: nearWords, limit: limit, offset: offset)
    for (id, rank, order, matches, counted, exact) in try await link.rows(
      statement, sql.binds, as: (String?, Int?, Int?, Int, Int, Int).self)
    {
      (page.matches, page.counted, page.exact) = (matches, counted, exact)
      // Past the last match the one row carries the counts alone.
      guard let id, let rank, let order else { continue }
      page.ids.append(ItemID(id))
      page.ranks.append(MatchRank(packed: UInt16(clamping: rank)))
      page.orders.append(Int64(order))
    }
    return page
  }

  /// The statement near spellings of `request` are looked for with, given its exact one: that
  /// one unless a term splits into words (`MatchRequest.forNearSpellings`).
  func nearSpellingSQL(_ request: MatchRequest, exact sql: SearchSQL) -> SearchSQL {
    guard request.splitsForNearSpellings else { return sql }
    return SearchSQL(request.forNearSpellings, layout: layout, schemaName: address.schemaName)
  }

  /// The near spellings of each of the statement's rank probes.
  func nearWords(_ sql: SearchSQL) async throws(PostgresError) -> [[SearchSQL.NearWord]] {
    var nearWords: [[SearchSQL.NearWord]] = []
    for probe in sql.rankProbes {
      nearWords.append(try await nearSpellings(probe.typo))
    }
    return nearWords
  }

  /// The dictionary's words that some beginning of is within the probe's budget, with that
  /// cost (`NearSpelling.bestPrefix`, the engine's own rule). An edit of the first letter costs
  /// two, so within one edit the first letters agree; within two, either they agree or the
  /// first-letter edit (substitution, deletion, insertion, swap) is the only one — the five
  /// patterns asked for below.
  func nearSpellings(
    _ typo: (letters: [UInt32], budget: Int)?
  ) async throws(PostgresError) -> [SearchSQL.NearWord] {
    guard let typo else { return [] }
    let letters = typo.letters.compactMap(Unicode.Scalar.init).map(String.init)
    let like = { (parts: [String]) in parts.map(SearchSQL.likeEscaped).joined() + "%" }
    var patterns = [like([letters[0]])]
    if typo.budget >= 2 {
      let rest = Array(letters.dropFirst())
      patterns += [
        "_" + like(rest), like(rest), "_" + like(letters),
        like([letters[1], letters[0]] + letters.dropFirst(2)),
      ]
    }
    let words = try await link.rows(
      "SELECT word FROM \(self.words) WHERE word LIKE ANY($1)", [.texts(patterns)],
      as: String.self)
    var rows = NearSpelling.Rows(term: typo.letters, budget: typo.budget)
    var near: [SearchSQL.NearWord] = []
    for word in words {
      var bytes = Array(word.utf8)
      let found = bytes.withUnsafeMutableBufferPointer {
        NearSpelling.bestPrefix(of: UnsafeBufferPointer($0), rows: &rows)
      }
      if let found { near.append((word, found.cost, found.length == bytes.count)) }
    }
    return near
  }
}
#endif
