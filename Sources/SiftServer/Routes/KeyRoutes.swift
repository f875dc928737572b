#if Server
import Foundation
import Hummingbird
import Sift

/// `POST /keys`, `GET /keys`, `DELETE /keys/ID`: keys with actions, catalogs and an expiry, for
/// the admin only (`KeyStore`).
struct KeyRoutes: RouteGroup {
  let server: SiftServer

  var routes: [Route] {
    Route.get("keys", .caller, list) + Route.post("keys", .caller, create)
      + Route.delete("keys/:id", .caller, revoke)
  }

  @Sendable func create(_ request: Request, _ context: SiftRequestContext) async throws -> Response
  {
    let keys = try adminKeys(context)
    let body = try await SiftServer.body(request)
    let asked: KeyRequest
    do throws(KeyRequestError) {
      asked = try KeyRequest(json: body)
    } catch {
      throw ServerError.badRequest(error.description)
    }
    if let unknown = asked.catalogs.first(where: { $0 != "*" && server.catalogs[$0] == nil }) {
      let known = server.catalogs.keys.sorted().joined(separator: ", ")
      throw ServerError.badRequest(
        "catalogs: no catalog named \"\(unknown.prefix(100))\"; this server has \(known) (or \"*\" for all)"
      )
    }
    let made = try Self.answering { () throws(KeyStoreError) in try keys.create(asked) }
    var members = made.key.jsonMembers
    members.append(("key", .string(made.secret)))
    return SiftServer.json(.object(sorting: members), status: .created)
  }

  @Sendable func list(
    _ request: Request, _ context: SiftRequestContext
  ) throws(ServerError) -> Response {
    let keys = try adminKeys(context)
    let listed = try Self.answering { () throws(KeyStoreError) in try keys.list() }
    return SiftServer.json(.object([("keys", .array(listed.map(\.json)))]))
  }

  @Sendable func revoke(
    _ request: Request, _ context: SiftRequestContext
  ) throws(ServerError) -> Response {
    let keys = try adminKeys(context)
    let id = SiftServer.pathParameter("id", context)
    let revoked = try Self.answering { () throws(KeyStoreError) in try keys.revoke(id: id) }
    guard revoked else { throw ServerError.notFound("no key with id \"\(id.prefix(100))\"") }
    return Response(status: .noContent)
  }

  /// The keys, once the caller is known to be the admin.
  private func adminKeys(_ context: SiftRequestContext) throws(ServerError) -> KeyStore {
    try server.authorizeAdmin(context.access)
    guard let keys = server.keys else {
      throw ServerError(.forbidden, "this server keeps no keys (sift serve --keys FILE)")
    }
    return keys
  }

  /// Runs `work` on the keys; a fault of the request as a 400, of the key file as a 503.
  static func answering<Result>(
    _ work: () throws(KeyStoreError) -> Result
  ) throws(ServerError) -> Result {
    do {
      return try work()
    } catch {
      switch error {
      case .invalid(let message): throw .badRequest(message)
      case .unreadable(let message), .unwritable(let message):
        throw ServerError(.serviceUnavailable, message)
      }
    }
  }
}
#endif
