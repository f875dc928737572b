#if Server
import Foundation
import Sift

/// A search under a tenant token sees the catalog as if it held only the token's rows: the
/// total, the token suggestions and "did you mean" are those of its rows, not of the catalog.
extension SiftServer {
  /// `page`, the answer to `asked` with `forced` added, told as the tenant's catalog: its total
  /// its rows, whether it filters by what was asked, the tokens offered only categories its
  /// rows hold, and "did you mean" only a word its rows hold.
  static func confined(
    _ page: SearchPage, asked: SearchRequest, forced: ForcedFilters, in catalog: any SearchCatalog
  ) async throws(ServerError) -> SearchPage {
    var page = page
    // The count of the tenant's rows alone is one search that the catalog remembers; the
    // categories they hold (a tally over all of them) only when tokens are offered.
    let rows = try await tenantRows(catalog, forced: forced)
    page.indicator = ResultsIndicator(
      isFiltering: asked.isFiltering, matchCount: page.indicator.matchCount,
      totalCount: rows.indicator.matchCount, exactMatchCount: page.indicator.exactMatchCount)
    if page.suggestions.contains(where: { $0.identifier.hasPrefix("category:") }) {
      // A category's token is offered when the tenant's rows hold it (`Facets.count(of:)`);
      // others (`year:>=2010`) are the schema's, not the rows'.
      if let facets = try await tenantRows(catalog, forced: forced, facets: true).facets {
        page.suggestions = page.suggestions.filter { facets.count(of: $0).map { $0 > 0 } ?? true }
      }
    }
    page.results = unmarked(page.results, forced: forced, asked: asked, schema: catalog.schema)
    // Its place in the whole catalog would tell the tenant how many rows others have.
    for index in page.results.indices { page.results[index].explanation?.hidesCatalogOrder = true }
    if let word = page.didYouMean {
      let check = try await tenantRows(catalog, forced: forced, text: "\"\(word)\"")
      if check.indicator.matchCount == 0 { page.didYouMean = nil }
    }
    return page
  }

  /// `results` without the marks of the tenant's own categories: the filters frame what it
  /// sees, they are not what it searched for (a category it asked for itself stays marked).
  private static func unmarked(
    _ results: [PageResult], forced: ForcedFilters, asked: SearchRequest, schema: CatalogSchema
  ) -> [PageResult] {
    let askedFor = Set(
      asked.tokens.compactMap { Self.category(of: $0.identifier, schema: schema) })
    var framing: [String: Set<String>] = [:]
    for term in forced.terms where !term.isNegated {
      if case .category(let field, let value) = term.condition, !askedFor.contains(value) {
        framing[field, default: []].insert(value)
      }
    }
    guard !framing.isEmpty else { return results }
    return results.map { result in
      var result = result
      for index in result.fields.indices {
        guard let values = framing[result.fields[index].name] else { continue }
        result.fields[index].highlights.removeAll { values.contains(TextFolding.fold($0.text)) }
      }
      return result
    }
  }

  /// The folded category a token identifier requires, read as the engine reads it
  /// (`category:Roses`, `kind:roses`); nil for a negated one or another kind.
  private static func category(of identifier: String, schema: CatalogSchema) -> String? {
    guard case .success(let term) = Query.term(forToken: identifier, schema: schema),
      !term.isNegated, case .category(_, let value) = term.condition
    else { return nil }
    return value
  }

  /// How many items `catalog` holds for a caller: all of them, or a tenant's rows.
  static func itemCount(
    _ catalog: any SearchCatalog, forced: ForcedFilters?
  ) async throws(ServerError) -> Int {
    guard let forced else {
      return try await answering { () async throws(CatalogFailure) in try await catalog.count() }
    }
    return try await tenantRows(catalog, forced: forced).indicator.matchCount
  }

  /// The tenant's rows that hold `text`, counted (no page).
  /// The scope buttons a tenant sees: every one that is not a category's, and the categories
  /// its rows hold — never the titles of other sellers' categories.
  static func tenantScopes(
    of catalog: any SearchCatalog, forced: ForcedFilters
  ) async throws(ServerError) -> Set<String> {
    let scopes = catalog.schema.scopes
    guard
      scopes.contains(where: {
        if case .category = $0.filter { return true }
        return false
      })
    else { return Set(scopes.map(\.title)) }
    let facets = try await tenantRows(catalog, forced: forced, facets: true).facets
    return Set(
      scopes.compactMap { scope in
        guard case .category(let value) = scope.filter else { return scope.title }
        return (facets?.count(ofCategory: value) ?? 0) > 0 ? scope.title : nil
      })
  }

  private static func tenantRows(
    _ catalog: any SearchCatalog, forced: ForcedFilters, text: String = "", facets: Bool = false
  ) async throws(ServerError) -> SearchPage {
    let request: SearchRequest
    do throws(SearchRequestError) {
      request = try SearchRequest(
        SearchRequestInput(text: text, tokens: forced.identifiers), schema: catalog.schema)
    } catch {
      throw ServerError(.forbidden, "Authorization: tenant token: \(error)")
    }
    return try await answering { () async throws(CatalogFailure) in
      try await catalog.search(request, page: PageRequest(limit: 0, facets: facets))
    }
  }
}
#endif
