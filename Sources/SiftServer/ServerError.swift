#if Server
import Foundation
import Hummingbird
import Sift

/// What a request got wrong (or what went wrong answering it), sent as `{"error": "…"}` with
/// its status: the message names the part at fault — the parameter, the catalog, the field.
public struct ServerError: Error, HTTPResponseError, Equatable, CustomStringConvertible {
  public var status: HTTPResponse.Status
  public var message: String
  /// Seconds a client should wait before asking again (`Retry-After`), for a 429.
  public var retryAfter: Int?

  public init(_ status: HTTPResponse.Status, _ message: String, retryAfter: Int? = nil) {
    self.status = status
    self.message = message
    self.retryAfter = retryAfter
  }

  /// A key past its requests a minute: 429, and when to come back.
  static func tooManyRequests(key: String, limit: Int, retryAfter: Int) -> ServerError {
    ServerError(
      .tooManyRequests,
      "key \(key) made more than its \(limit) requests a minute: retry after \(retryAfter) s",
      retryAfter: retryAfter)
  }

  static func badRequest(_ message: String) -> ServerError { ServerError(.badRequest, message) }
  static func notFound(_ message: String) -> ServerError { ServerError(.notFound, message) }

  public var description: String { "\(status.code) \(message)" }

  /// A search's scope, token or sort that the catalog does not have: a 400 under the parameter's
  /// name (`place`: the one that asked for a place, `near` or `within_box`).
  /// `meaning`: the parameter that asked for a search by meaning, `vector` or `like`.
  static func refused(
    _ error: SearchRequestError, catalog: String, place: String = "near",
    meaning: String = "vector"
  ) -> ServerError {
    switch error {
    case .unknownScope(let scope, _, let scopes):
      let known =
        scopes.isEmpty
        ? "it has no scope bar" : "its scopes are \(scopes.joined(separator: ", "))"
      return .badRequest("scope: no scope \"\(scope)\" in catalog \(catalog); \(known)")
    case .unsortable, .distanceWithoutPlace:
      return .badRequest("sort: \(error)")
    case .noLocation:
      return .badRequest("\(place): \(error)")
    case .notDistinct:
      return .badRequest("distinct: \(error)")
    case .noVectors, .invalidVector:
      return .badRequest("\(meaning): \(error)")
    case .invalidSemanticRatio:
      return .badRequest("semantic_ratio: \(error)")
    case .invalidNeighbors:
      return .badRequest("neighbors: \(error)")
    case .sortByMeaning:
      return .badRequest("sort: \(error)")
    default:
      // An invalid token: the engine's message, under the parameter's name.
      return .badRequest("token: \(error)")
    }
  }

  public func response(from request: Request, context: some RequestContext) throws -> Response {
    jsonResponse
  }

  /// `{"error": message}` with the status, and `Retry-After` when there is one.
  var jsonResponse: Response {
    var response = Self.jsonResponse(status: status, message: message)
    if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
    return response
  }

  /// `{"error": message}` as a response with `status`.
  static func jsonResponse(status: HTTPResponse.Status, message: String) -> Response {
    SiftServer.json(.object([("error", .string(message))]), status: status)
  }
}

/// Turns every error a handler throws into `{"error": …}`: the server's own with their status,
/// the router's (an unknown path, a method not allowed) with theirs, anything else as a 500
/// that says no more than that — one bad request never takes the server down.
/// A path of the router (`catalogs/:name/items/:id`, a `:` part matching any one part) and the
/// methods it answers.
struct RouteMethods: Sendable {
  var pattern: String
  var methods: [HTTPRequest.Method]

  /// The pattern's parts, split once: every request is matched against every route.
  private let parts: [Substring]

  init(_ pattern: String, _ methods: [HTTPRequest.Method]) {
    self.pattern = pattern
    self.methods = methods
    parts = pattern.split(separator: "/")
  }

  /// Whether a path split at its slashes is one of this route's.
  func matches(_ have: [Substring]) -> Bool {
    parts.count == have.count && zip(parts, have).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
  }
}

extension [RouteMethods] {
  /// The route `path` belongs to; the path split once for all of them.
  func route(for path: String) -> RouteMethods? {
    let parts = path.split(separator: "/")
    return first { $0.matches(parts) }
  }
}

struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The router's paths and methods: a known path asked with another method is a 405.
  var routes: [RouteMethods] = []

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    do {
      return try await next(request, context)
    } catch let error as ServerError {
      return error.jsonResponse
    } catch let error as HTTPError {
      if error.status == .notFound,
        let route = routes.route(for: request.uri.path)
      {
        let allowed = route.methods.map(\.rawValue).joined(separator: ", ")
        var response = ServerError.jsonResponse(
          status: .methodNotAllowed,
          message:
            "method \(request.method.rawValue) is not allowed on \(request.uri.path): it takes \(allowed)"
        )
        response.headers[.allow] = allowed
        return response
      }
      let message =
        error.status == .notFound
        ? "no such path: \(request.uri.path)" : error.body ?? "\(error.status)"
      return ServerError.jsonResponse(status: error.status, message: message)
    } catch {
      context.logger.error("request failed: \(error)")
      return ServerError.jsonResponse(
        status: .internalServerError, message: "the server could not answer this request")
    }
  }
}
#endif
