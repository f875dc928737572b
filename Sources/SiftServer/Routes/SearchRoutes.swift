#if Server
import Hummingbird
import Sift

/// The searches: `GET /catalogs` (what each catalog offers), `GET /catalogs/NAME/search`,
/// `GET /search?catalog=a&catalog=b` (several at once), a category's values
/// (`…/facets/FIELD`) and recorded searches to suggest (`…/suggestions`). The answers are
/// written in `SearchAnswers.swift`.
struct SearchRoutes: RouteGroup {
  let server: SiftServer

  var routes: [Route] {
    Route.get("catalogs", .caller, catalogs)
      + Route.get("catalogs/:name/search", .catalog, search)
      + Route.post("catalogs/:name/search", .catalog, searchWithBody)
      + Route.get("search", .caller, searchSeveral)
      + Route.get("catalogs/:name/facets/:field", .catalog, facets)
      + Route.get("catalogs/:name/suggestions", .catalog, suggestions)
  }

  /// Each catalog the caller may search, as it sees it (a tenant: its own rows).
  @Sendable func catalogs(_ request: Request, _ context: SiftRequestContext) async throws
    -> Response
  {
    var visible: [(any SearchCatalog, ForcedFilters?)] = []
    for catalog in server.catalogs.values.sorted(by: { $0.name < $1.name }) {
      switch Result(catching: { () throws(ServerError) in
        try server.searchFilters(context.access, catalog: catalog)
      }) {
      case .success(let forced): visible.append((catalog, forced))
      case .failure(let error) where error.status == .forbidden: continue
      case .failure(let error): throw error
      }
    }
    return SiftServer.json(try await SiftServer.catalogList(visible))
  }

  @Sendable func search(_ request: Request, _ context: SiftRequestContext) async throws -> Response
  {
    try await search(SearchParameters(QueryString(request.uri.query)), context)
  }

  /// `POST /catalogs/NAME/search`: the same search, its parameters (and a query vector) in a
  /// JSON body (`SearchBody`).
  @Sendable func searchWithBody(
    _ request: Request, _ context: SiftRequestContext
  ) async throws -> Response {
    let body = try SearchBody(
      try await SiftServer.body(request, upTo: SearchBody.maximumBytes))
    return try await search(body.parameters, context)
  }

  private func search(
    _ parameters: SearchParameters, _ context: SiftRequestContext
  ) async throws -> Response {
    let catalog = try context.catalog()
    let forced = try context.searchFilters()
    // Read before the search: the answer shows this version or a later one.
    let (answer, shown) = try await server.withinDeadline {
      try await SiftServer.reach(parameters.after, catalog)
      let shown = catalog.version
      return (try await SiftServer.searchAnswer(catalog, parameters, forced: forced), shown)
    }
    server.metrics.recordSearch(catalog: catalog.name)
    await server.recordIfFinished(
      parameters, found: answer.matched > 0, forced: forced, access: context.access, in: catalog)
    return SiftServer.json(answer.json, version: shown)
  }

  @Sendable func searchSeveral(
    _ request: Request, _ context: SiftRequestContext
  ) async throws -> Response {
    let query = try QueryString(request.uri.query)
    let chosen = try server.catalogs(named: query.all("catalog"))
    var forced: [ForcedFilters?] = []
    for catalog in chosen {
      do throws(ServerError) {
        forced.append(try server.searchFilters(context.access, catalog: catalog))
      } catch {
        throw ServerError(error.status, "catalog \(catalog.name): " + error.message)
      }
    }
    let parameters = try SearchParameters(query)
    let answers = try await server.withinDeadline { [forced] in
      for catalog in chosen { try await SiftServer.reach(parameters.after, catalog) }
      return try await SiftServer.searchAnswers(Array(zip(chosen, forced)), parameters)
    }
    for catalog in chosen { server.metrics.recordSearch(catalog: catalog.name) }
    return SiftServer.json(answers)
  }

  @Sendable func facets(_ request: Request, _ context: SiftRequestContext) async throws -> Response
  {
    let catalog = try context.catalog()
    let forced = try context.searchFilters()
    let field = SiftServer.pathParameter("field", context)
    let parameters = try FacetParameters(QueryString(request.uri.query))
    return SiftServer.json(
      try await server.withinDeadline {
        try await SiftServer.reach(parameters.search.after, catalog)
        return try await SiftServer.facetAnswer(catalog, field: field, parameters, forced: forced)
      })
  }

  @Sendable func suggestions(
    _ request: Request, _ context: SiftRequestContext
  ) async throws -> Response {
    let catalog = try context.catalog()
    let forced = try context.searchFilters()
    let query = try QueryString(request.uri.query)
    let prefix = String((query["q"] ?? "").prefix(SearchParameters.maximumQueryLength))
    let limit = try SearchParameters.number(query, "limit", default: 10, in: 1...100)
    // What found nothing is for who maintains the data.
    let maintains = (try? server.authorizeEdit(context.access, catalog: catalog.name)) != nil
    return SiftServer.json(
      try await server.withinDeadline {
        try await server.suggestionsAnswer(
          catalog, prefix: prefix, limit: limit, forced: forced, withFailed: maintains)
      })
  }
}
#endif
