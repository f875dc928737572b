#if Server
import Hummingbird
import Sift

/// What a copy that follows a catalog reads — its snapshot's pages and its changes
/// (`ChangeFeedAnswers.swift`) — and `GET …/export`, the catalog as `sift export` writes it;
/// each only the rows a tenant token sees.
struct FeedRoutes: RouteGroup {
  let server: SiftServer
  /// How long a streamed export may wait for its reader (`StalledReaders`).
  let stallTimeout: Duration

  var routes: [Route] {
    Route.get("catalogs/:name/snapshot", .catalog, snapshot)
      + Route.get("catalogs/:name/changes", .catalog, changes)
      + Route.get("catalogs/:name/export", .catalog, export)
  }

  @Sendable func snapshot(
    _ request: Request, _ context: SiftRequestContext
  ) async throws -> Response {
    try await page(request, context, SiftServer.snapshotAnswer)
  }

  @Sendable func changes(
    _ request: Request, _ context: SiftRequestContext
  ) async throws -> Response {
    try await page(request, context, SiftServer.changesAnswer)
  }

  /// A feed's page as `answer` reads it from the query string, within the request's deadline.
  private func page(
    _ request: Request, _ context: SiftRequestContext,
    _ answer:
      @escaping @Sendable (any SearchCatalog, QueryString, ForcedFilters?) async throws(ServerError)
      -> Response
  ) async throws -> Response {
    let (catalog, forced) = (try context.catalog(), try context.searchFilters())
    let query = try QueryString(request.uri.query)
    return try await server.withinDeadline { try await answer(catalog, query, forced) }
  }

  @Sendable func export(
    _ request: Request, _ context: SiftRequestContext
  ) throws(ServerError) -> Response {
    let (catalog, forced) = (try context.catalog(), try context.searchFilters())
    return SiftServer.export(
      catalog, visible: SiftServer.visibility(forced), stallTimeout: stallTimeout)
  }
}
#endif
