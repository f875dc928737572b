#if Server
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import HummingbirdTLS
import NIOCore
import NIOSSL
import Sift

/// `sift serve`: the catalogs named at start, searched over HTTP with the engine's semantics.
///
/// - `GET /catalogs`: each catalog's name, title, fields, scopes, token kinds, ranking field;
/// - `GET /catalogs/NAME/search?q=…&scope=…&token=…&limit=…&offset=…&facets=1&explain=1`: the
///   indicator, counts and a page of results, the same items in the same order as `sift search`;
/// - `GET /search?catalog=a&catalog=b&q=…`: the same search of several catalogs at once, each
///   answer under its catalog's name;
/// - `GET /catalogs/NAME/items/ID`, and `POST`, `PUT`, `DELETE` to edit (with the token);
/// - `POST /keys`, `GET /keys`, `DELETE /keys/ID`: keys with actions, catalogs and an expiry
///   (admin only), and tenant tokens made from them (`TenantToken`);
/// - `GET /catalogs/NAME/snapshot?after=…` and `GET /catalogs/NAME/changes?since=…`: what a
///   copy that follows the catalog reads (`ChangeFeedAnswers.swift`);
/// - `GET /catalogs/NAME/export`: every item and the settings, as `sift export` writes them;
/// - `GET /health`, `GET /metrics`;
/// - `GET /`: the search page, which uses nothing but the above.
///
/// Each group of routes is a type of its own with named handlers (`Routes/`); the access
/// middleware reads who a request comes from, and the catalog its path names, once
/// (`SiftRequestContext`).
///
/// Only the catalogs given here are reachable, by name: nothing in a URL is ever a path. Every
/// error is `{"error": "…"}` with its status, and none stops the server.
public struct SiftServer: Sendable {
  package let catalogs: [String: any SearchCatalog]
  /// The admin key (`--token-file`): what `Authorization: Bearer …` carries to edit anything
  /// and manage keys; nil: only keys of `keys` open anything.
  let writeToken: String?
  /// The keys besides the admin key, and what tenant tokens are checked against; nil: none.
  let keys: KeyStore?
  /// Searching needs a key or a tenant token (`--private`).
  let isPrivate: Bool
  /// Requests a minute for a key that does not set its own; nil: no limit.
  let rateLimit: Int?
  let rates = RateLimiter()
  let verifiedTokens = VerifiedTokens()
  /// The time keys, tokens and rates are checked at (a test's own clock).
  let clock: @Sendable () -> Date
  /// How long a search or read may take before the answer is a 503; nil: no deadline.
  let requestTimeout: Duration?
  /// The one origin whose pages may call this server from a browser (`*`: any); nil: none but
  /// the server's own page.
  let corsOrigin: String?
  /// Requests, latencies, searches and edits, for `GET /metrics`.
  let metrics = ServerMetrics()
  /// A line per request on standard error in this format; nil: no access log.
  let accessLog: AccessLogFormat?
  /// Where access-log lines go (standard error; a test's own collector).
  let logLine: @Sendable (String) -> Void
  /// Whether a search asked with `record=1` is counted (`--record-searches`): off unless asked
  /// for, as what people search for is theirs.
  let recordsSearches: Bool
  /// The searches counted, and those the catalogs kept from before.
  let recorder = SearchRecorder()

  package init(
    catalogs: [any SearchCatalog], writeToken: String? = nil, keys: KeyStore? = nil,
    isPrivate: Bool = false, rateLimit: Int? = nil, requestTimeout: Duration? = nil,
    corsOrigin: String? = nil, accessLog: AccessLogFormat? = nil, recordsSearches: Bool = false,
    clock: @escaping @Sendable () -> Date = { Date() },
    logLine: @escaping @Sendable (String) -> Void = { line in
      FileHandle.standardError.write(Data((line + "\n").utf8))
    }
  ) {
    self.catalogs = Dictionary(
      catalogs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    self.writeToken = writeToken
    self.keys = keys
    self.isPrivate = isPrivate
    self.rateLimit = rateLimit
    self.requestTimeout = requestTimeout
    self.corsOrigin = corsOrigin
    self.clock = clock
    self.accessLog = accessLog
    self.logLine = logLine
    self.recordsSearches = recordsSearches
  }

  /// Writes the searches counted since the last time to their catalogs.
  public func saveRecordedSearches() async {
    await recorder.save(Array(catalogs.values))
  }

  /// The routes, for `Application` or for tests (`HummingbirdTesting`).
  ///
  /// `stallTimeout`: how long a streamed answer (an export) may wait for its reader to take
  /// more before the connection is cut: a reader that stops reading would hold it for ever.
  public func router(stallTimeout: Duration = .seconds(30)) -> Router<SiftRequestContext> {
    let routes = routes(stallTimeout: stallTimeout)
    let table = RouteTable(routes, answersPreflight: corsOrigin != nil)
    let router = Router(context: SiftRequestContext.self)
    // Outermost: it times the whole answer and sees the status every error was given.
    router.add(
      middleware: MetricsMiddleware(
        metrics: metrics, routes: table.paths, log: accessLog, write: logLine))
    if let corsOrigin {
      // Outside the error middleware, so that errors carry the headers too and a page on the
      // other origin can read what went wrong.
      router.add(
        middleware: CORSMiddleware(
          allowOrigin: corsOrigin == "*" ? .all : .custom(corsOrigin),
          allowHeaders: [.accept, .authorization, .contentType],
          allowMethods: [.get, .head, .post, .put, .delete, .options], maxAge: .seconds(600)))
    }
    router.add(middleware: HeadWithoutBodyMiddleware())
    router.add(middleware: JSONErrorMiddleware(routes: table.paths))
    let reached: [Route.Reach: RouterGroup<SiftRequestContext>] = [
      .open: router.group(),
      .caller: router.group().add(middleware: AccessMiddleware(server: self, namesCatalog: false)),
      .catalog: router.group().add(middleware: AccessMiddleware(server: self, namesCatalog: true)),
    ]
    for route in routes {
      reached[route.reach]!.on(RouterPath(route.path), method: route.method, use: route.handler)
    }
    return router
  }

  /// Every route of every group, in the order `router()` registers them.
  private func routes(stallTimeout: Duration) -> [Route] {
    let groups: [any RouteGroup] = [
      PageRoutes(server: self), SearchRoutes(server: self), ItemRoutes(server: self),
      SettingsRoutes(server: self), FeedRoutes(server: self, stallTimeout: stallTimeout),
      KeyRoutes(server: self),
    ]
    return groups.flatMap(\.routes)
  }

  /// Each path the server answers (`catalogs/:name/search`, `/page.js`) with its methods
  /// (`GET`, `HEAD`…), as registered: the API document (`GET /openapi.json`) must list the
  /// same, and a test holds the two together.
  package var routeMethods: [String: Set<String>] {
    var table: [String: Set<String>] = [:]
    for route in routes(stallTimeout: .seconds(30)) {
      table[route.path, default: []].insert(route.method.rawValue)
    }
    return table
  }

  /// What a connection may hold of the server: how long it may stay silent — a request header
  /// sent in part and then nothing, a connection kept open between requests — how long a
  /// request header may take to arrive whole, even sent a byte at a time, and how many
  /// connections may be open at once (past that, new ones wait to be accepted).
  public struct Limits: Sendable {
    public var idleTimeout: Duration
    public var headerTimeout: Duration
    public var maximumConnections: Int

    public init(
      idleTimeout: Duration = .seconds(30), headerTimeout: Duration = .seconds(30),
      maximumConnections: Int = 1_000
    ) {
      self.idleTimeout = idleTimeout
      self.headerTimeout = headerTimeout
      self.maximumConnections = maximumConnections
    }
  }

  /// Serves until SIGTERM or SIGINT, then finishes the requests in flight, stops the search
  /// threads and returns.
  /// `tls`: HTTPS with that certificate and key (`TLSFiles.configuration()`); nil: plain HTTP.
  public func run(
    host: String, port: Int, limits: Limits = Limits(), tls: TLSConfiguration? = nil,
    onListening: @escaping @Sendable (Int) -> Void = { _ in }
  ) async throws {
    // Warnings and errors only: the command says where it listens in its own words.
    var logger = Logger(label: "sift")
    logger.logLevel = .warning
    let idle = TimeAmount(limits.idleTimeout)
    let header = TimeAmount(limits.headerTimeout)
    let http = HTTPServerBuilder.http1(
      configuration: .init(
        additionalChannelHandlers: [
          MalformedRequest(report: unreadable), HeaderDeadline(timeout: header),
          CloseUnlessKeptAlive(),
        ],
        idleTimeout: idle))
    let app = Application(
      router: router(stallTimeout: limits.idleTimeout),
      server: try tls.map { try HTTPServerBuilder.tls(http, tlsConfiguration: $0) } ?? http,
      configuration: .init(
        address: .hostname(host, port: port), serverName: "sift",
        availableConnectionsDelegate: MaximumAvailableConnections(limits.maximumConnections)),
      onServerRunning: { channel in onListening(channel.localAddress?.port ?? port) },
      logger: logger)
    try await app.runService()
    // The requests are answered: the search threads finish what they were given and stop.
    SearchWorkers.shared.shutdown()
  }

  /// A request the HTTP parser could not read, answered 400 before the router: counted under
  /// the route `unreadable`, and logged without its bytes.
  func unreadable(_ message: String) {
    metrics.recordRequest(route: "unreadable", method: "-", status: 400, seconds: 0)
    guard let accessLog else { return }
    logLine(
      accessLog.line(method: "-", path: "", query: "", status: 400, milliseconds: 0, error: message)
    )
  }
}
#endif
