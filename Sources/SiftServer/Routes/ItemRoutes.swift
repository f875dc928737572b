#if Server
import Hummingbird
import Sift

/// One item: `GET /catalogs/NAME/items/ID` reads it as a tenant may see it; `POST …/items`,
/// `PUT …/items/ID` and `DELETE …/items/ID` edit it, for a caller that may edit the catalog.
/// An edit's answer carries the version it made (`Sift-Version`).
struct ItemRoutes: RouteGroup {
  let server: SiftServer

  var routes: [Route] {
    Route.post("catalogs/:name/items", .catalog, add)
      + Route.get("catalogs/:name/items/:id", .catalog, read)
      + Route.put("catalogs/:name/items/:id", .catalog, replace)
      + Route.delete("catalogs/:name/items/:id", .catalog, delete)
  }

  @Sendable func read(_ request: Request, _ context: SiftRequestContext) async throws -> Response {
    let catalog = try context.catalog()
    let forced = try context.searchFilters()
    let id = ItemID(SiftServer.pathParameter("id", context))
    return SiftServer.json(
      try await server.withinDeadline {
        try await SiftServer.itemAnswer(id, in: catalog, forced: forced)
      })
  }

  @Sendable func add(_ request: Request, _ context: SiftRequestContext) async throws -> Response {
    let catalog = try server.editable(context)
    let body = try ItemBody(
      try await SiftServer.body(request), schema: catalog.schema, requiresTitle: true)
    let saved = try await commit(.add(body.id, fields: body.fields), to: catalog)
    return SiftServer.json(
      try await SiftServer.itemAnswer(saved.id, in: catalog).adding("version", saved.version),
      status: .created, version: saved.version)
  }

  @Sendable func replace(
    _ request: Request, _ context: SiftRequestContext
  ) async throws -> Response {
    let catalog = try server.editable(context)
    let id = ItemID(SiftServer.pathParameter("id", context))
    let body = try ItemBody(
      try await SiftServer.body(request), schema: catalog.schema, requiresTitle: true)
    if let named = body.id, named != id {
      throw ServerError.badRequest(
        "id: the body names \"\(named.rawValue.prefix(100))\", the path \"\(id.rawValue.prefix(100))\""
      )
    }
    let saved = try await commit(.update(Item(id: id, fields: body.fields)), to: catalog)
    return SiftServer.json(
      try await SiftServer.itemAnswer(id, in: catalog).adding("version", saved.version),
      version: saved.version)
  }

  @Sendable func delete(_ request: Request, _ context: SiftRequestContext) async throws -> Response
  {
    let catalog = try server.editable(context)
    let id = ItemID(SiftServer.pathParameter("id", context))
    let saved = try await commit(.delete(id), to: catalog)
    // No body: the version is in the header.
    return Response(status: .noContent, headers: [.siftVersion: "\(saved.version)"])
  }

  /// Saves `edit` within the request's deadline, and counts it.
  private func commit(
    _ edit: CatalogEdit, to catalog: any SearchCatalog
  ) async throws -> CatalogCommit {
    let saved = try await server.withinDeadline(isEdit: true) {
      try await SiftServer.answering { () async throws(CatalogFailure) in
        try await catalog.commit(edit)
      }
    }
    server.metrics.recordEdit(catalog: catalog.name)
    return saved
  }
}

extension SiftServer {
  /// The item with `id` as `GET /catalogs/NAME/items/ID` gives it: every value, no highlights.
  /// An item a tenant token's filters leave out is not there, for that token.
  static func itemAnswer(
    _ id: ItemID, in catalog: any SearchCatalog, forced: ForcedFilters? = nil
  ) async throws(ServerError) -> JSONValue {
    let found = try await answering { () async throws(CatalogFailure) in try await catalog.item(id)
    }
    guard let found, forced?.admits(found) ?? true else {
      throw .notFound("no item \"\(id.rawValue.prefix(100))\" in catalog \(catalog.name)")
    }
    return ResultItem.json(PageResult(plain: found, schema: catalog.schema), schema: catalog.schema)
  }
}
#endif
