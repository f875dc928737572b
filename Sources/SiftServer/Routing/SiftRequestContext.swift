#if Server
import Hummingbird
import Sift

/// A request as the routes see it: who it comes from and, on a catalog's routes, the catalog its
/// path names and what a search of it by this caller must add — read once, by `AccessMiddleware`,
/// before the route runs.
public struct SiftRequestContext: RequestContext {
  public var coreContext: CoreRequestContextStorage
  /// Who the request comes from (`Authorization`); anonymous on the open routes.
  var access: Access = .anonymous
  /// The catalog of `catalogs/:name/…`; nil on the other routes.
  private(set) var served: (any SearchCatalog)?
  /// What a search of `served` by this caller adds (a tenant token's filters), or why it may
  /// not search it.
  private(set) var searching: Result<ForcedFilters?, ServerError> = .success(nil)

  public init(source: Source) {
    coreContext = .init(source: source)
  }

  /// The catalog the path names.
  func catalog() throws(ServerError) -> any SearchCatalog {
    guard let served else {
      throw ServerError(.internalServerError, "this route names no catalog")
    }
    return served
  }

  /// What a search by this caller adds; refused when it may not search the catalog.
  func searchFilters() throws(ServerError) -> ForcedFilters? {
    try searching.get()
  }

  /// Fills in the catalog `name` names for `access`.
  mutating func serve(_ catalog: any SearchCatalog, filters: Result<ForcedFilters?, ServerError>) {
    served = catalog
    searching = filters
  }
}

/// Reads who a request comes from (`SiftServer.access(_:)`: its key or token, counted against
/// its rate) and, on a catalog's routes, the catalog and the caller's filters for it, into the
/// context: each once, before the route. A route that is not for everyone (health, the page)
/// sits outside it.
struct AccessMiddleware: RouterMiddleware {
  let server: SiftServer
  /// Whether the routes behind it name a catalog (`:name`).
  let namesCatalog: Bool

  func handle(
    _ request: Request, context: SiftRequestContext,
    next: (Request, SiftRequestContext) async throws -> Response
  ) async throws -> Response {
    var context = context
    context.access = try server.access(request)
    if namesCatalog {
      let catalog = try server.catalog(named: SiftServer.pathParameter("name", context))
      let access = context.access
      context.serve(
        catalog,
        filters: Result { () throws(ServerError) in
          try server.searchFilters(access, catalog: catalog)
        })
    }
    return try await next(request, context)
  }
}
#endif
