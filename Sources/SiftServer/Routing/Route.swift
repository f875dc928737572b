#if Server
import HTTPTypes
import Hummingbird

/// One route of the server: a path, the methods it answers, who may reach it, and its handler.
/// The route groups (`SearchRoutes`, `ItemRoutes`, …) list theirs; `SiftServer.router()`
/// registers them, and the table that `/metrics` labels by and a 405 lists is made from the
/// same list, so the two cannot part.
struct Route: Sendable {
  /// What the access middleware reads before the handler runs.
  enum Reach: Sendable {
    /// Nothing: for everyone, whatever the request carries (health, the page).
    case open
    /// Who the request comes from (`SiftRequestContext.access`).
    case caller
    /// Who, and the catalog `:name` names with the caller's filters for it.
    case catalog
  }

  typealias Handler = @Sendable (Request, SiftRequestContext) async throws -> Response

  var path: String
  var method: HTTPRequest.Method
  var reach: Reach
  var handler: Handler

  /// A `GET` route that answers `HEAD` too (`HeadWithoutBodyMiddleware` drops that body).
  static func get(_ path: String, _ reach: Reach, _ handler: @escaping Handler) -> [Route] {
    [
      Route(path: path, method: .get, reach: reach, handler: handler),
      Route(path: path, method: .head, reach: reach, handler: handler),
    ]
  }

  static func put(_ path: String, _ reach: Reach, _ handler: @escaping Handler) -> [Route] {
    [Route(path: path, method: .put, reach: reach, handler: handler)]
  }

  static func post(_ path: String, _ reach: Reach, _ handler: @escaping Handler) -> [Route] {
    [Route(path: path, method: .post, reach: reach, handler: handler)]
  }

  static func delete(_ path: String, _ reach: Reach, _ handler: @escaping Handler) -> [Route] {
    [Route(path: path, method: .delete, reach: reach, handler: handler)]
  }
}

/// A group of routes with their handlers, named for what they serve.
protocol RouteGroup: Sendable {
  var routes: [Route] { get }
}

/// Every path the server answers and its methods, from its routes: a request for a known path
/// with another method is a 405 that lists them (`Allow`), not a 404. With a CORS origin every
/// path answers `OPTIONS` too (the preflight).
struct RouteTable: Sendable {
  private(set) var paths: [RouteMethods] = []

  /// The order an `Allow` header lists methods in.
  private static let order: [HTTPRequest.Method] = [.get, .head, .put, .post, .delete, .options]

  init(_ routes: [Route], answersPreflight: Bool) {
    var methods: [String: [HTTPRequest.Method]] = [:]
    var order: [String] = []
    for route in routes {
      if methods[route.path] == nil { order.append(route.path) }
      methods[route.path, default: answersPreflight ? [.options] : []].append(route.method)
    }
    paths = order.map { path in
      RouteMethods(path, Self.order.filter { methods[path]!.contains($0) })
    }
  }

  /// The route `path` belongs to.
  func route(for path: String) -> RouteMethods? { paths.route(for: path) }
}
#endif
