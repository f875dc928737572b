#if Server
import Foundation
import Sift

/// A tenant token's catalog is the catalog as if it held only the token's rows: a search takes
/// its filters as the request's base (`SearchCriteria.base`); its count and scope buttons are
/// those of its rows.
extension SiftServer {
  /// How many items `catalog` holds for a caller: all of them, or a tenant's rows.
  static func itemCount(
    _ catalog: any SearchCatalog, forced: ForcedFilters?
  ) async throws(ServerError) -> Int {
    guard let forced else {
      return try await answering { () async throws(CatalogFailure) in try await catalog.count() }
    }
    return try await tenantRows(catalog, forced: forced).indicator.matchCount
  }

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

  /// The tenant's rows, counted (no page), with their facets when asked.
  private static func tenantRows(
    _ catalog: any SearchCatalog, forced: ForcedFilters, facets: Bool = false
  ) async throws(ServerError) -> SearchPage {
    let request: SearchRequest
    do throws(SearchRequestError) {
      request = try SearchRequest(
        SearchRequestInput(text: "", base: forced.identifiers), schema: catalog.schema)
    } catch {
      throw ServerError(.forbidden, "Authorization: tenant token: \(error)")
    }
    return try await answering { () async throws(CatalogFailure) in
      try await catalog.search(request, page: PageRequest(limit: 0, facets: facets))
    }
  }
}
#endif
