#if Server
import Sift

/// A catalog kept in PostgreSQL, served: every search is compiled to SQL and every edit is
/// written in its own transaction, so each server in front of the database answers with the
/// edits any of them made, on the next search. Nothing is cached between requests.
///
/// While the database is out of reach (a restart) requests get 503 with the reason; the next
/// request after it is back connects again.
public final class PostgresSearchCatalog: SearchCatalog {
  public let name: String
  let catalog: PostgresCatalog
  /// When near spellings are looked for, in every search.
  let typoTolerance: TypoTolerance

  public init(name: String, catalog: PostgresCatalog, typoTolerance: TypoTolerance = .automatic) {
    self.name = name
    self.catalog = catalog
    self.typoTolerance = typoTolerance
  }

  public var schema: CatalogSchema { catalog.schema }

  public func count() async throws(CatalogFailure) -> Int {
    try await answering { () async throws(PostgresError) in try await catalog.count() }
  }

  public func search(
    _ request: SearchRequest, page: PageRequest
  ) async throws(CatalogFailure) -> SearchPage {
    let (catalog, typos) = (self.catalog, typoTolerance)
    let (result, items, facets, didYouMean) = try await answering {
      () async throws(PostgresError) in
      let result = try await catalog.search(
        request, typos: typos, limit: page.limit, offset: page.offset)
      let items = try await catalog.items(result.ids)
      // Facets order the tokens offered too (`Facets.ordering(_:)`), when there are several.
      let facets =
        page.facets || request.suggestions.count > 1
        ? try await catalog.facets(
          request, typos: typos, matchCount: result.indicator.matchCount,
          includesNearSpellings: result.includesNearSpellings) : nil
      let didYouMean = try await catalog.spellingSuggestion(
        for: request, indicator: result.indicator)
      return (result, items, facets, didYouMean)
    }
    return SearchPage(
      indicator: result.indicator, offset: page.offset,
      results: results(items, of: result, criteria: request.criteria, page: page),
      suggestions: facets.map { $0.ordering(request.suggestions) } ?? request.suggestions,
      diagnostics: result.diagnostics, facets: page.facets ? facets : nil,
      didYouMean: didYouMean)
  }

  /// The page's results, with highlights and explanations from the page searched alone.
  private func results(
    _ items: [Item], of result: PostgresSearchResult, criteria: SearchCriteria,
    page request: PageRequest
  ) -> [PageResult] {
    // The page searched alone, only for what needs it: highlights and explanations.
    let searched =
      request.showsFields || request.explain
      ? result.page(items, criteria: criteria, schema: schema) : nil
    let near = schema.location == nil ? nil : criteria.near
    return items.map { item in
      let explanation =
        request.explain ? searched.flatMap { result.explanation(of: item.id, in: $0) } : nil
      var shown =
        request.showsFields
        ? (searched?.pageResult(
          item, explanation: explanation, listValues: PageResult.listValuesOnAPage)
          ?? PageResult(plain: item, schema: schema))
          .cropped(toWords: request.crop, titleField: schema.titleField)
        : PageResult(item: item, fields: [], explanation: explanation)
      shown.distanceKilometers = schema.kilometers(of: item, from: near)
      return shown
    }
  }

  public func item(_ id: ItemID) async throws(CatalogFailure) -> Item? {
    let catalog = self.catalog
    return try await answering { () async throws(PostgresError) in
      try await catalog.items([id]).first
    }
  }

  /// Every answer is asked of PostgreSQL, which may be down or stop answering.
  public var answersFromRemoteStore: Bool { true }

  public func commit(_ edit: CatalogEdit) async throws(CatalogFailure) -> ItemID {
    let catalog = self.catalog
    let saved = try await answering(unsaved: true) { () async throws(PostgresError) -> ItemID? in
      try await catalog.commit(edit)
    }
    if let saved { return saved }
    if case .add(let id?, _) = edit {
      throw .conflict("id: catalog \(name) has an item \"\(id.rawValue.prefix(100))\" already")
    }
    throw .notFound("no item \"\(edit.id?.rawValue.prefix(100) ?? "")\" in catalog \(name)")
  }

  public func replaceSynonyms(_ synonyms: Synonyms) async throws(CatalogFailure) {
    let catalog = self.catalog
    try await answering(unsaved: true) { () async throws(PostgresError) in
      try await catalog.saveSynonyms(synonyms)
    }
  }

  /// Runs `work` against the database: out of reach is `unavailable` (the request may be
  /// retried), a value it cannot hold `invalid`, anything else it refused `failed`.
  private func answering<Result: Sendable>(
    unsaved: Bool = false, _ work: () async throws(PostgresError) -> Result
  ) async throws(CatalogFailure) -> Result {
    do {
      return try await work()
    } catch {
      let message = (unsaved ? "the edit was not saved: " : "") + "\(error)"
      switch error {
      case .outcomeUnknown:
        throw .unavailable("the edit may have been saved: \(error); read the item to know")
      case .unavailable: throw .unavailable(message)
      // What the database cannot hold (a NUL in a value): the request's fault.
      case .unsupported: throw .invalid(message)
      default: throw .failed(message)
      }
    }
  }
}
#endif
