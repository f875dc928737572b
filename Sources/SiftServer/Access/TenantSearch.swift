#if Server
import Foundation
import Sift

/// A tenant token's catalog is the catalog as if it held only the token's rows: a search takes
/// its filters as the request's base (`SearchCriteria.base`); its count and scope buttons are
/// those of its rows, counted by the search itself (`SearchPage.heldScopes`).
extension SiftServer {
  /// How many items `catalog` holds.
  static func count(of catalog: any SearchCatalog) async throws(ServerError) -> Int {
    try await answering { () async throws(CatalogFailure) in try await catalog.count() }
  }

  /// A tenant's view of `catalog`, from one search of its rows (no page): how many they are
  /// and the scope buttons they hold — never the titles of other sellers' categories.
  static func tenantView(
    of catalog: any SearchCatalog, forced: ForcedFilters
  ) async throws(ServerError) -> (count: Int, scopes: [String]) {
    let request: SearchRequest
    do throws(SearchRequestError) {
      request = try SearchRequest(
        SearchRequestInput(text: "", base: forced.identifiers), schema: catalog.schema)
    } catch {
      throw ServerError(.forbidden, "Authorization: tenant token: \(error)")
    }
    let page = try await answering { () async throws(CatalogFailure) in
      try await catalog.search(request, page: PageRequest(limit: 0, facets: true))
    }
    return (page.indicator.matchCount, page.heldScopes ?? catalog.schema.scopeTitles)
  }
}
#endif
