import Foundation
import Hummingbird
import Sift
import SiftStore

/// `sift serve`: the catalogs named at start, searched over HTTP with the engine's semantics.
///
/// - `GET /catalogs`: each catalog's name, title, fields, scopes, token kinds, ranking field;
/// - `GET /catalogs/NAME/search?q=…&scope=…&token=…&limit=…&offset=…&facets=1`: the indicator,
///   counts and a page of results, the same items in the same order as `sift search`.
///
/// Only the catalogs given here are reachable, by name: nothing in a URL is ever a path. Every
/// error is `{"error": "…"}` with its status, and none stops the server.
public struct SiftServer: Sendable {
  public let catalogs: [String: ServedCatalog]

  public init(catalogs: [ServedCatalog]) {
    self.catalogs = Dictionary(
      catalogs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// The routes, for `Application` or for tests (`HummingbirdTesting`).
  public func router() -> Router<BasicRequestContext> {
    let router = Router()
    router.add(middleware: JSONErrorMiddleware())
    router.get("catalogs") { _, _ in
      try Self.json(CatalogList(self.catalogs.values.sorted { $0.name < $1.name }))
    }
    router.get("catalogs/:name/search") { request, context in
      let catalog = try self.catalog(context)
      let parameters = try SearchParameters(QueryString(request.uri.query))
      return try Self.json(try catalog.search(parameters))
    }
    return router
  }

  /// Serves until SIGTERM or SIGINT, then finishes the requests in flight and returns.
  public func run(
    host: String, port: Int, onListening: @escaping @Sendable (Int) -> Void = { _ in }
  ) async throws {
    let app = Application(
      router: router(),
      configuration: .init(address: .hostname(host, port: port), serverName: "sift"),
      onServerRunning: { channel in onListening(channel.localAddress?.port ?? port) })
    try await app.runService()
  }

  private func catalog(_ context: BasicRequestContext) throws(ServerError) -> ServedCatalog {
    let name = context.parameters.get("name") ?? ""
    guard let catalog = catalogs[name] else {
      let known = catalogs.keys.sorted().joined(separator: ", ")
      throw .notFound("no catalog named \"\(name.prefix(100))\"; this server has \(known)")
    }
    return catalog
  }

  static func json(_ value: some Encodable) throws -> Response {
    let body = try encoder.encode(value)
    return Response(
      status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
  }
}

extension SiftServer {
  /// Keys sorted, so that the same answer is the same bytes; slashes left alone.
  static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
    return encoder
  }()
}

/// `GET /catalogs`.
struct CatalogList: Encodable {
  struct Entry: Encodable {
    struct Field: Encodable {
      var name: String
      var label: String
      var kind: String
      var searchable: Bool
    }
    var name: String
    var title: String
    var titleField: String
    var fields: [Field]
    var scopes: [String]
    var tokenKinds: [String]
    var rankingField: String?
    var items: Int
  }
  var catalogs: [Entry]

  init(_ served: [ServedCatalog]) {
    catalogs = served.map { catalog in
      let collection = catalog.collection
      let schema = collection.schema
      return Entry(
        name: catalog.name, title: schema.title, titleField: schema.titleField,
        fields: schema.fields.map {
          Entry.Field(
            name: $0.name, label: $0.label, kind: "\($0.kind)", searchable: $0.isSearchable)
        },
        scopes: schema.scopeTitles,
        tokenKinds: Array(
          Set(
            schema.suggestedTokens.map {
              $0.identifier.split(separator: ":").first.map(String.init) ?? ""
            })
        ).sorted(),
        rankingField: schema.rankingField?.field, items: collection.totalCount)
    }
  }
}
