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
    let (catalog, forced) = (try context.catalog(), try context.searchFilters())
    let query = try QueryString(request.uri.query)
    return try await server.withinDeadline {
      try await SiftServer.snapshotAnswer(catalog, query, forced: forced)
    }
  }

  @Sendable func changes(
    _ request: Request, _ context: SiftRequestContext
  ) async throws -> Response {
    let (catalog, forced) = (try context.catalog(), try context.searchFilters())
    let query = try QueryString(request.uri.query)
    return try await server.withinDeadline {
      try await SiftServer.changesAnswer(catalog, query, forced: forced)
    }
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
