#if Server
import Foundation
import Hummingbird
import Sift

/// A catalog's settings: its synonyms (`GET`, `PUT …/synonyms`) and its pins (`GET`, `PUT`,
/// `POST`, `DELETE …/pins`), in the JSON `sift synonyms --json` and `sift pins --json` write
/// (`WireFormat.swift`). Pins name items of every tenant: reading them is for who may edit.
struct SettingsRoutes: RouteGroup {
  let server: SiftServer

  var routes: [Route] {
    Route.get("catalogs/:name/synonyms", .catalog, synonyms)
      + Route.put("catalogs/:name/synonyms", .catalog, replaceSynonyms)
      + Route.get("catalogs/:name/pins", .catalog, pins)
      + Route.put("catalogs/:name/pins", .catalog, replacePins)
      + Route.post("catalogs/:name/pins", .catalog, addPin)
      + Route.delete("catalogs/:name/pins", .catalog, removePin)
  }

  @Sendable func synonyms(
    _ request: Request, _ context: SiftRequestContext
  ) throws(ServerError) -> Response {
    let catalog = try context.catalog()
    _ = try context.searchFilters()
    return SiftServer.json(catalog.schema.synonyms.json)
  }

  @Sendable func replaceSynonyms(
    _ request: Request, _ context: SiftRequestContext
  ) async throws -> Response {
    let catalog = try server.editable(context)
    let synonyms = try Self.synonyms(from: try await SiftServer.body(request))
    let version = try await save { () async throws(CatalogFailure) in
      try await catalog.replaceSynonyms(synonyms)
    }
    server.metrics.recordEdit(catalog: catalog.name)
    return SiftServer.json(
      catalog.schema.synonyms.json.adding("version", version), version: version)
  }

  @Sendable func pins(
    _ request: Request, _ context: SiftRequestContext
  ) throws(ServerError) -> Response {
    SiftServer.json(try server.editable(context).schema.pins.json)
  }

  @Sendable func replacePins(
    _ request: Request, _ context: SiftRequestContext
  ) async throws -> Response {
    let catalog = try server.editable(context)
    let entries = try Self.pins(from: try await SiftServer.body(request))
    // As POST does: a pin names an item the catalog has.
    for (index, entry) in entries.enumerated() {
      guard try await holds(catalog, entry.id) else {
        throw ServerError.badRequest(
          "pins[\(index)].id: no item \"\(entry.id.rawValue.prefix(100))\" in catalog \(catalog.name)"
        )
      }
    }
    return try await save(Pins(entries), to: catalog)
  }

  @Sendable func addPin(_ request: Request, _ context: SiftRequestContext) async throws -> Response
  {
    let catalog = try server.editable(context)
    let entry = try Self.pin(from: try await SiftServer.body(request))
    guard try await holds(catalog, entry.id) else {
      throw ServerError.badRequest("id: no item \"\(entry.id)\" in catalog \(catalog.name)")
    }
    var pins = catalog.schema.pins
    if let position = entry.position {
      pins.pin(entry.id, at: position, for: entry.query)
    } else {
      pins.hide(entry.id, for: entry.query)
    }
    return try await save(pins, to: catalog)
  }

  @Sendable func removePin(
    _ request: Request, _ context: SiftRequestContext
  ) async throws -> Response {
    let catalog = try server.editable(context)
    let query = try QueryString(request.uri.query)
    guard let text = query["query"], let id = query["id"] else {
      throw ServerError.badRequest("query, id: both name the pin to remove")
    }
    var pins = catalog.schema.pins
    guard pins.remove(ItemID(id), for: text) else {
      throw ServerError(
        .notFound, "no pin of \"\(id)\" for \"\(text)\" in catalog \(catalog.name)")
    }
    return try await save(pins, to: catalog)
  }

  /// Whether `catalog` has an item `id`, read within the request's deadline.
  private func holds(_ catalog: any SearchCatalog, _ id: ItemID) async throws -> Bool {
    try await server.withinDeadline {
      try await SiftServer.answering { () async throws(CatalogFailure) in
        try await catalog.item(id)
      }
    } != nil
  }

  /// Saves `pins` as `catalog`'s, answering them with the version after.
  private func save(_ pins: Pins, to catalog: any SearchCatalog) async throws -> Response {
    let version = try await save { () async throws(CatalogFailure) in
      try await catalog.replacePins(pins)
    }
    server.metrics.recordEdit(catalog: catalog.name)
    return SiftServer.json(catalog.schema.pins.json.adding("version", version), version: version)
  }

  /// Runs a settings edit within the request's deadline; the version it made.
  private func save(
    _ edit: @escaping @Sendable () async throws(CatalogFailure) -> Int64
  ) async throws -> Int64 {
    try await server.withinDeadline(isEdit: true) {
      try await SiftServer.answering { () async throws(CatalogFailure) in try await edit() }
    }
  }

  /// The body of `PUT …/pins`, the answer's shape; each entry checked, a fault named by its
  /// place (`pins[1]: …`).
  static func pins(from body: Data) throws(ServerError) -> [Pins.Entry] {
    struct Body: Decodable { var pins: [Pins.Entry] }
    let decoded = try decoded(
      Body.self, from: body,
      expected:
        #"{"pins": [{"query": "iphone", "id": "42", "at": 1}, {"query": "charger", "id": "7", "hidden": true}]}"#
    )
    for (index, entry) in decoded.pins.enumerated() {
      if let problem = Pins.problem(with: entry) { throw .badRequest("pins[\(index)]: \(problem)") }
    }
    return decoded.pins
  }

  /// The body of `POST …/pins`: one entry.
  static func pin(from body: Data) throws(ServerError) -> Pins.Entry {
    let entry = try decoded(
      Pins.Entry.self, from: body,
      expected:
        #"{"query": "iphone", "id": "42", "at": 1} or {"query": "charger", "id": "7", "hidden": true}"#
    )
    if let problem = Pins.problem(with: entry) { throw .badRequest(problem) }
    return entry
  }

  /// `body` read as `type`; a body that is not one is a 400 showing the shape `expected`.
  private static func decoded<Value: Decodable>(
    _ type: Value.Type, from body: Data, expected: String
  ) throws(ServerError) -> Value {
    do {
      return try JSONDecoder().decode(type, from: body)
    } catch {
      throw .badRequest("body: expected " + expected)
    }
  }

  /// The body of `PUT …/synonyms`, the answer's shape; each entry checked, a fault named by
  /// its place (`synonyms[1]: …`).
  static func synonyms(from body: Data) throws(ServerError) -> Synonyms {
    struct Body: Decodable { var synonyms: [Synonyms.Entry] }
    let decoded = try decoded(
      Body.self, from: body,
      expected:
        #"{"synonyms": [{"expressions": ["sofa", "couch"]}, {"expressions": ["phone"], "to": ["iphone"]}]}"#
    )
    for (index, entry) in decoded.synonyms.enumerated() {
      if let problem = Synonyms.problem(with: entry) {
        throw .badRequest("synonyms[\(index)]: \(problem)")
      }
    }
    return Synonyms(decoded.synonyms)
  }
}
#endif
