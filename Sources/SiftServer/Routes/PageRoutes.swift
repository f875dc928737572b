#if Server
import HTTPTypes
import Hummingbird
import NIOCore
import Sift

/// What is not a catalog's: the search page and its assets, `/health` for a load balancer and
/// `/metrics` for Prometheus.
struct PageRoutes: RouteGroup {
  let server: SiftServer

  var routes: [Route] {
    WebPage.Asset.allCases.flatMap { asset in
      Route.get(asset.path, .open) { _, _ in WebPage.response(asset) }
    }
      + Route.get("health", .open, health) + Route.get("metrics", .caller, metrics)
  }

  /// The server answers, how many catalogs it serves, and which of them cannot answer now
  /// (their store out of reach): then 503, "degraded", and why.
  @Sendable func health(_ request: Request, _ context: SiftRequestContext) async -> Response {
    var degraded: [(String, JSONValue)] = []
    // Only a catalog kept in a database server can be out of reach; one in memory answers.
    for catalog in server.catalogs.values.sorted(by: { $0.name < $1.name })
    where catalog.answersFromRemoteStore {
      if let problem = await SiftServer.problem(reaching: catalog) {
        degraded.append((catalog.name, .string(problem)))
      }
    }
    var members: [(String, JSONValue)] = [
      ("status", .string(degraded.isEmpty ? "ok" : "degraded")),
      ("catalogs", .number(Double(server.catalogs.count))),
    ]
    if !degraded.isEmpty { members.append(("degraded", .object(degraded))) }
    return SiftServer.json(.object(members), status: degraded.isEmpty ? .ok : .serviceUnavailable)
  }

  /// The counters in Prometheus' text format; on a private server, for the admin only.
  @Sendable func metrics(
    _ request: Request, _ context: SiftRequestContext
  ) throws(ServerError) -> Response {
    if server.isPrivate { try server.authorizeAdmin(context.access) }
    return Response(
      status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
      body: ResponseBody(byteBuffer: ByteBuffer(string: server.metrics.exposition())))
  }
}
#endif
