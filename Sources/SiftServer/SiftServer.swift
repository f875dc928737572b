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
  public func router(stallTimeout: Duration = .seconds(30)) -> Router<BasicRequestContext> {
    let router = Router()
    let routes = Self.routes(corsOrigin: corsOrigin)
    // Outermost: it times the whole answer and sees the status every error was given.
    router.add(
      middleware: MetricsMiddleware(
        metrics: metrics, routes: routes, log: accessLog, write: logLine))
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
    router.add(middleware: JSONErrorMiddleware(routes: routes))
    router.getOrHead("metrics") { request, _ in
      if self.isPrivate { try self.authorizeAdmin(try self.access(request)) }
      return Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
        body: ResponseBody(byteBuffer: ByteBuffer(string: self.metrics.exposition())))
    }
    // For a load balancer: the server answers, how many catalogs it serves, and which of them
    // cannot answer now (their store out of reach): then 503, "degraded", and why.
    router.getOrHead("health") { _, _ in
      var degraded: [(String, JSONValue)] = []
      // Only a catalog kept in a database server can be out of reach; one in memory answers.
      for catalog in self.catalogs.values.sorted(by: { $0.name < $1.name })
      where catalog.answersFromRemoteStore {
        if let problem = await Self.problem(reaching: catalog) {
          degraded.append((catalog.name, .string(problem)))
        }
      }
      var members: [(String, JSONValue)] = [
        ("status", .string(degraded.isEmpty ? "ok" : "degraded")),
        ("catalogs", .number(Double(self.catalogs.count))),
      ]
      if !degraded.isEmpty { members.append(("degraded", .object(degraded))) }
      return Self.json(.object(members), status: degraded.isEmpty ? .ok : .serviceUnavailable)
    }
    for asset in WebPage.Asset.allCases {
      router.getOrHead(RouterPath(asset.path)) { _, _ in WebPage.response(asset) }
    }
    router.getOrHead("catalogs") { request, _ in
      let access = try self.access(request)
      // What this caller may search, each as it sees it (a tenant: its own rows).
      var visible: [(any SearchCatalog, ForcedFilters?)] = []
      for catalog in self.catalogs.values.sorted(by: { $0.name < $1.name }) {
        switch Result(catching: { () throws(ServerError) in
          try self.searchFilters(access, catalog: catalog)
        }) {
        case .success(let forced): visible.append((catalog, forced))
        case .failure(let error) where error.status == .forbidden: continue
        case .failure(let error): throw error
        }
      }
      return Self.json(try await Self.catalogList(visible))
    }
    router.getOrHead("catalogs/:name/search") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      let forced = try self.searchFilters(access, catalog: catalog)
      let parameters = try SearchParameters(QueryString(request.uri.query))
      // Read before the search: the answer shows this version or a later one.
      let (answer, shown) = try await self.withinDeadline {
        try await Self.reach(parameters.after, catalog)
        let shown = catalog.version
        return (try await Self.searchAnswer(catalog, parameters, forced: forced), shown)
      }
      self.metrics.recordSearch(catalog: catalog.name)
      var anonymous = false
      if case .anonymous = access { anonymous = true }
      await self.recordIfFinished(
        parameters, found: answer.matched > 0, forced: forced, anonymous: anonymous, in: catalog)
      return Self.json(answer.json, version: shown)
    }
    router.getOrHead("search") { request, _ in
      let access = try self.access(request)
      let query = try QueryString(request.uri.query)
      let chosen = try self.catalogs(named: query.all("catalog"))
      var forced: [ForcedFilters?] = []
      for catalog in chosen {
        do throws(ServerError) {
          forced.append(try self.searchFilters(access, catalog: catalog))
        } catch {
          throw ServerError(error.status, "catalog \(catalog.name): " + error.message)
        }
      }
      let parameters = try SearchParameters(query)
      let answers = try await self.withinDeadline { [forced] in
        for catalog in chosen { try await Self.reach(parameters.after, catalog) }
        return try await Self.searchAnswers(Array(zip(chosen, forced)), parameters)
      }
      for catalog in chosen { self.metrics.recordSearch(catalog: catalog.name) }
      return Self.json(answers)
    }
    router.getOrHead("catalogs/:name/facets/:field") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      let forced = try self.searchFilters(access, catalog: catalog)
      let field = Self.pathParameter("field", context)
      let parameters = try FacetParameters(QueryString(request.uri.query))
      return Self.json(
        try await self.withinDeadline {
          try await Self.reach(parameters.search.after, catalog)
          return try await Self.facetAnswer(catalog, field: field, parameters, forced: forced)
        })
    }
    router.getOrHead("catalogs/:name/suggestions") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      let forced = try self.searchFilters(access, catalog: catalog)
      let query = try QueryString(request.uri.query)
      let prefix = String((query["q"] ?? "").prefix(SearchParameters.maximumQueryLength))
      let limit = try SearchParameters.number(query, "limit", default: 10, in: 1...100)
      // What found nothing is for who maintains the data.
      let maintains = (try? self.authorizeEdit(access, catalog: catalog.name)) != nil
      return Self.json(
        try await self.withinDeadline {
          try await self.suggestionsAnswer(
            catalog, prefix: prefix, limit: limit, forced: forced, withFailed: maintains)
        })
    }
    router.getOrHead("catalogs/:name/items/:id") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      let forced = try self.searchFilters(access, catalog: catalog)
      let id = ItemID(Self.pathParameter("id", context))
      return Self.json(
        try await self.withinDeadline { try await Self.itemAnswer(id, in: catalog, forced: forced) }
      )
    }
    router.getOrHead("catalogs/:name/snapshot") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      let forced = try self.searchFilters(access, catalog: catalog)
      let query = try QueryString(request.uri.query)
      return try await self.withinDeadline {
        try await Self.snapshotAnswer(catalog, query, forced: forced)
      }
    }
    router.getOrHead("catalogs/:name/export") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      let visible = Self.visibility(try self.searchFilters(access, catalog: catalog))
      return Self.export(catalog, visible: visible, stallTimeout: stallTimeout)
    }
    router.getOrHead("catalogs/:name/changes") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      let forced = try self.searchFilters(access, catalog: catalog)
      let query = try QueryString(request.uri.query)
      return try await self.withinDeadline {
        try await Self.changesAnswer(catalog, query, forced: forced)
      }
    }
    router.post("keys") { request, _ in
      try self.authorizeAdmin(try self.access(request))
      let keys = try self.keyStore()
      let body = try await Self.body(request)
      let asked: KeyRequest
      do throws(KeyRequestError) {
        asked = try KeyRequest(json: body)
      } catch {
        throw ServerError.badRequest(error.description)
      }
      if let unknown = asked.catalogs.first(where: { $0 != "*" && self.catalogs[$0] == nil }) {
        let known = self.catalogs.keys.sorted().joined(separator: ", ")
        throw ServerError.badRequest(
          "catalogs: no catalog named \"\(unknown.prefix(100))\"; this server has \(known) (or \"*\" for all)"
        )
      }
      let made = try Self.keyAnswering { () throws(KeyStoreError) in try keys.create(asked) }
      var members = made.key.jsonMembers
      members.append(("key", .string(made.secret)))
      return Self.json(.object(sorting: members), status: .created)
    }
    router.getOrHead("keys") { request, _ in
      try self.authorizeAdmin(try self.access(request))
      let keys = try self.keyStore()
      let listed = try Self.keyAnswering { () throws(KeyStoreError) in try keys.list() }
      return Self.json(.object([("keys", .array(listed.map(\.json)))]))
    }
    router.delete("keys/:id") { request, context in
      try self.authorizeAdmin(try self.access(request))
      let keys = try self.keyStore()
      let id = Self.pathParameter("id", context)
      let revoked = try Self.keyAnswering { () throws(KeyStoreError) in try keys.revoke(id: id) }
      guard revoked else { throw ServerError.notFound("no key with id \"\(id.prefix(100))\"") }
      return Response(status: .noContent)
    }
    router.post("catalogs/:name/items") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      try self.authorizeEdit(access, catalog: catalog.name)
      let body = try ItemBody(
        try await Self.body(request), schema: catalog.schema, requiresTitle: true)
      let saved = try await self.withinDeadline(isEdit: true) {
        try await Self.answering { () async throws(CatalogFailure) in
          try await catalog.commit(.add(body.id, fields: body.fields))
        }
      }
      self.metrics.recordEdit(catalog: catalog.name)
      return Self.json(
        try await Self.itemAnswer(saved.id, in: catalog).adding("version", saved.version),
        status: .created, version: saved.version)
    }
    router.put("catalogs/:name/items/:id") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      try self.authorizeEdit(access, catalog: catalog.name)
      let id = ItemID(Self.pathParameter("id", context))
      let body = try ItemBody(
        try await Self.body(request), schema: catalog.schema, requiresTitle: true)
      if let named = body.id, named != id {
        throw ServerError.badRequest(
          "id: the body names \"\(named.rawValue.prefix(100))\", the path \"\(id.rawValue.prefix(100))\""
        )
      }
      let saved = try await self.withinDeadline(isEdit: true) {
        try await Self.answering { () async throws(CatalogFailure) in
          try await catalog.commit(.update(Item(id: id, fields: body.fields)))
        }
      }
      self.metrics.recordEdit(catalog: catalog.name)
      return Self.json(
        try await Self.itemAnswer(id, in: catalog).adding("version", saved.version),
        version: saved.version)
    }
    router.delete("catalogs/:name/items/:id") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      try self.authorizeEdit(access, catalog: catalog.name)
      let id = ItemID(Self.pathParameter("id", context))
      let saved = try await self.withinDeadline(isEdit: true) {
        try await Self.answering { () async throws(CatalogFailure) in
          try await catalog.commit(.delete(id))
        }
      }
      self.metrics.recordEdit(catalog: catalog.name)
      // No body: the version is in the header.
      return Response(status: .noContent, headers: [.siftVersion: "\(saved.version)"])
    }
    router.getOrHead("catalogs/:name/synonyms") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      _ = try self.searchFilters(access, catalog: catalog)
      return Self.json(Self.synonymsAnswer(catalog.schema.synonyms))
    }
    router.put("catalogs/:name/synonyms") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      try self.authorizeEdit(access, catalog: catalog.name)
      let synonyms = try Self.synonyms(from: try await Self.body(request))
      let version = try await self.withinDeadline(isEdit: true) {
        try await Self.answering { () async throws(CatalogFailure) in
          try await catalog.replaceSynonyms(synonyms)
        }
      }
      self.metrics.recordEdit(catalog: catalog.name)
      return Self.json(
        Self.synonymsAnswer(catalog.schema.synonyms).adding("version", version), version: version)
    }
    router.getOrHead("catalogs/:name/pins") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      // They name items of every tenant: for who may edit.
      try self.authorizeEdit(access, catalog: catalog.name)
      return Self.json(Self.pinsAnswer(catalog.schema.pins))
    }
    router.put("catalogs/:name/pins") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      try self.authorizeEdit(access, catalog: catalog.name)
      let entries = try Self.pins(from: try await Self.body(request))
      // As POST does: a pin names an item the catalog has.
      for (index, entry) in entries.enumerated() {
        let found = try await self.withinDeadline {
          try await Self.answering { () async throws(CatalogFailure) in
            try await catalog.item(entry.id)
          }
        }
        guard found != nil else {
          throw ServerError.badRequest(
            "pins[\(index)].id: no item \"\(entry.id.rawValue.prefix(100))\" in catalog \(catalog.name)"
          )
        }
      }
      return try await self.replacePins(catalog, Pins(entries))
    }
    router.post("catalogs/:name/pins") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      try self.authorizeEdit(access, catalog: catalog.name)
      let entry = try Self.pin(from: try await Self.body(request))
      let found = try await self.withinDeadline {
        try await Self.answering { () async throws(CatalogFailure) in
          try await catalog.item(entry.id)
        }
      }
      guard found != nil else {
        throw ServerError.badRequest("id: no item \"\(entry.id)\" in catalog \(catalog.name)")
      }
      var pins = catalog.schema.pins
      if let position = entry.position {
        pins.pin(entry.id, at: position, for: entry.query)
      } else {
        pins.hide(entry.id, for: entry.query)
      }
      return try await self.replacePins(catalog, pins)
    }
    router.delete("catalogs/:name/pins") { request, context in
      let access = try self.access(request)
      let catalog = try self.catalog(context)
      try self.authorizeEdit(access, catalog: catalog.name)
      let query = try QueryString(request.uri.query)
      guard let text = query["query"], let id = query["id"] else {
        throw ServerError.badRequest("query, id: both name the pin to remove")
      }
      var pins = catalog.schema.pins
      guard pins.remove(ItemID(id), for: text) else {
        throw ServerError(
          .notFound, "no pin of \"\(id)\" for \"\(text)\" in catalog \(catalog.name)")
      }
      return try await self.replacePins(catalog, pins)
    }
    return router
  }

  /// Saves `pins` as `catalog`'s, answering them with the version after.
  private func replacePins(_ catalog: any SearchCatalog, _ pins: Pins) async throws -> Response {
    let version = try await withinDeadline(isEdit: true) {
      try await Self.answering { () async throws(CatalogFailure) in
        try await catalog.replacePins(pins)
      }
    }
    metrics.recordEdit(catalog: catalog.name)
    return Self.json(
      Self.pinsAnswer(catalog.schema.pins).adding("version", version), version: version)
  }

  /// `{"pins": [{"query", "id", "at"} or {"query", "id", "hidden": true}]}`.
  static func pinsAnswer(_ pins: Pins) -> JSONValue {
    .object([
      (
        "pins",
        .array(
          pins.entries.map { entry in
            .object(
              [("query", .string(entry.query)), ("id", .string(entry.id.rawValue))]
                + (entry.position.map { [("at", JSONValue.number(Double($0)))] }
                  ?? [("hidden", .bool(true))]))
          })
      )
    ])
  }

  /// The body of `PUT …/pins`, the answer's shape; each entry checked, a fault named by its
  /// place (`pins[1]: …`).
  static func pins(from body: Data) throws(ServerError) -> [Pins.Entry] {
    struct Body: Decodable { var pins: [Pins.Entry] }
    let decoded: Body
    do {
      decoded = try JSONDecoder().decode(Body.self, from: body)
    } catch {
      throw .badRequest(
        "body: expected {\"pins\": [{\"query\": \"iphone\", \"id\": \"42\", \"at\": 1}, {\"query\": \"charger\", \"id\": \"7\", \"hidden\": true}]}"
      )
    }
    for (index, entry) in decoded.pins.enumerated() {
      if let problem = Pins.problem(with: entry) { throw .badRequest("pins[\(index)]: \(problem)") }
    }
    return decoded.pins
  }

  /// The body of `POST …/pins`: one entry.
  static func pin(from body: Data) throws(ServerError) -> Pins.Entry {
    let entry: Pins.Entry
    do {
      entry = try JSONDecoder().decode(Pins.Entry.self, from: body)
    } catch {
      throw .badRequest(
        "body: expected {\"query\": \"iphone\", \"id\": \"42\", \"at\": 1} or {\"query\": \"charger\", \"id\": \"7\", \"hidden\": true}"
      )
    }
    if let problem = Pins.problem(with: entry) { throw .badRequest(problem) }
    return entry
  }

  /// Every path the router answers and its methods: a request for a known path with another
  /// method is a 405 that lists them (`Allow`), not a 404.
  static func routes(corsOrigin: String?) -> [RouteMethods] {
    let options: [HTTPRequest.Method] = corsOrigin == nil ? [] : [.options]
    return [
      RouteMethods("health", [.get, .head]), RouteMethods("metrics", [.get, .head]),
      RouteMethods("catalogs", [.get, .head]),
      RouteMethods("catalogs/:name/search", [.get, .head]), RouteMethods("search", [.get, .head]),
      RouteMethods("catalogs/:name/items", [.post]),
      RouteMethods("catalogs/:name/items/:id", [.get, .head, .put, .delete]),
      RouteMethods("catalogs/:name/synonyms", [.get, .head, .put]),
      RouteMethods("catalogs/:name/pins", [.get, .head, .put, .post, .delete]),
      RouteMethods("catalogs/:name/snapshot", [.get, .head]),
      RouteMethods("catalogs/:name/changes", [.get, .head]),
      RouteMethods("catalogs/:name/export", [.get, .head]),
      RouteMethods("catalogs/:name/facets/:field", [.get, .head]),
      RouteMethods("catalogs/:name/suggestions", [.get, .head]),
      RouteMethods("keys", [.get, .head, .post]), RouteMethods("keys/:id", [.delete]),
    ].map { RouteMethods($0.pattern, $0.methods + options) }
      + WebPage.Asset.allCases.map { RouteMethods($0.path, [.get, .head] + options) }
  }

  /// `{"synonyms": [{"expressions": [...]}, {"expressions": [...], "to": [...]}]}`.
  static func synonymsAnswer(_ synonyms: Synonyms) -> JSONValue {
    .object([
      (
        "synonyms",
        .array(
          synonyms.entries.map { entry in
            var members: [(String, JSONValue)] = [("expressions", .strings(entry.expressions))]
            if let to = entry.to { members.append(("to", .strings(to))) }
            return .object(members)
          })
      )
    ])
  }

  /// The body of `PUT …/synonyms`, the answer's shape; each entry checked, a fault named by
  /// its place (`synonyms[1]: …`).
  static func synonyms(from body: Data) throws(ServerError) -> Synonyms {
    struct Body: Decodable { var synonyms: [Synonyms.Entry] }
    let decoded: Body
    do {
      decoded = try JSONDecoder().decode(Body.self, from: body)
    } catch {
      throw .badRequest(
        "body: expected {\"synonyms\": [{\"expressions\": [\"sofa\", \"couch\"]}, {\"expressions\": [\"phone\"], \"to\": [\"iphone\"]}]}"
      )
    }
    for (index, entry) in decoded.synonyms.enumerated() {
      if let problem = Synonyms.problem(with: entry) {
        throw .badRequest("synonyms[\(index)]: \(problem)")
      }
    }
    return Synonyms(decoded.synonyms)
  }

  /// The token of `Authorization: Bearer TOKEN`; the scheme's case does not matter (RFC 9110:
  /// `bearer`, `BEARER`), nor the spaces around the token. Nil for another scheme or none.
  static func bearerToken(_ header: String?) -> String? {
    guard let header else { return nil }
    let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    let token = parts[1].trimmingCharacters(in: .whitespaces)
    return token.isEmpty ? nil : token
  }

  /// Compares without stopping at the first difference, so timing tells nothing of the token.
  static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let (x, y) = (Array(a.utf8), Array(b.utf8))
    var difference = x.count ^ y.count
    for index in 0..<max(x.count, y.count) {
      difference |= Int((index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0))
    }
    return difference == 0
  }

  /// The request's body, refused with 413 past `ItemBody.maximumBytes`.
  static func body(_ request: Request) async throws(ServerError) -> Data {
    do {
      let buffer = try await request.body.collect(upTo: ItemBody.maximumBytes)
      return Data(buffer.readableBytesView)
    } catch {
      throw ServerError(.contentTooLarge, "body: more than \(ItemBody.maximumBytes) bytes")
    }
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

  /// Serves until SIGTERM or SIGINT, then finishes the requests in flight and returns.
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

  /// The keys, for `/keys`.
  private func keyStore() throws(ServerError) -> KeyStore {
    guard let keys else {
      throw ServerError(.forbidden, "this server keeps no keys (sift serve --keys FILE)")
    }
    return keys
  }

  /// Runs `work` on the keys; a fault of the request as a 400, of the key file as a 503.
  static func keyAnswering<Result>(
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

  private func catalog(
    _ context: BasicRequestContext
  ) throws(ServerError) -> any SearchCatalog {
    try catalog(named: Self.pathParameter("name", context))
  }

  private func catalog(named name: String) throws(ServerError) -> any SearchCatalog {
    guard let catalog = catalogs[name] else {
      let known = catalogs.keys.sorted().joined(separator: ", ")
      throw .notFound("no catalog named \"\(name.prefix(100))\"; this server has \(known)")
    }
    return catalog
  }

  /// The path segment `name` stands for, percent-decoded once: an item made with the id `a b`
  /// or `x/y` is read back at `…/items/a%20b` and `…/items/x%2Fy`. A segment that is not valid
  /// percent-encoding is taken as written.
  static func pathParameter(_ name: String, _ context: BasicRequestContext) -> String {
    let raw = context.parameters.get(name) ?? ""
    return raw.removingPercentEncoding ?? raw
  }

  /// `GET /search`'s `catalog=` values, each a catalog this server has, none twice.
  private func catalogs(named names: [String]) throws(ServerError) -> [any SearchCatalog] {
    guard !names.isEmpty else {
      throw .badRequest("catalog: name the catalogs to search (catalog=NAME, repeatable)")
    }
    var chosen: [any SearchCatalog] = []
    for name in names {
      guard !chosen.contains(where: { $0.name == name }) else {
        throw .badRequest("catalog: \"\(name.prefix(100))\" is named twice")
      }
      do throws(ServerError) {
        chosen.append(try catalog(named: name))
      } catch {
        throw ServerError(error.status, "catalog: " + error.message)
      }
    }
    return chosen
  }

  /// One catalog's answer to a search: its page, indicator, suggestions and (asked) facets as
  /// JSON, and how many items matched (what a recorded search's "found" reads). `forced`: a
  /// tenant token's filters, searched as the request's base filter — the catalog answers as if
  /// it held only the tenant's rows (`SearchCriteria.base`).
  static func searchAnswer(
    _ catalog: any SearchCatalog, _ parameters: SearchParameters, forced: ForcedFilters? = nil
  ) async throws(ServerError) -> (json: JSONValue, matched: Int) {
    let request = try Self.request(parameters.input, catalog: catalog, forced: forced)
    let page = try await answering { () async throws(CatalogFailure) in
      try await catalog.search(request, page: parameters.page)
    }
    if let unknown = page.unknownCategory, forced == nil {
      throw ServerError.refused(unknown, catalog: catalog.name)
    }
    var scopeTitles: Set<String>?
    if let forced, page.facets != nil {
      scopeTitles = try await tenantScopes(of: catalog, forced: forced)
    }
    let json = SearchResponse.json(
      catalog: catalog.name, page: page, schema: catalog.schema, tokens: request.tokens,
      sort: request.sort, distinct: request.distinct, scopeTitles: scopeTitles)
    return (json, page.indicator.matchCount)
  }

  /// `input` read against `catalog`, a tenant's filters as its base; a refusal names the
  /// parameter at fault.
  static func request(
    _ input: SearchRequestInput, catalog: any SearchCatalog, forced: ForcedFilters?
  ) throws(ServerError) -> SearchRequest {
    // Each alternative is a search of its own: a query of hundreds is hundreds of searches.
    let alternatives = Query(parsing: input.text, schema: catalog.schema).terms.reduce(0) {
      if case .either(let groups) = $1.condition { return $0 + groups.count }
      return $0
    }
    guard alternatives <= SearchParameters.maximumAlternatives else {
      throw ServerError.badRequest(
        "q: \(alternatives) alternatives (| or OR), more than the \(SearchParameters.maximumAlternatives) a search may have"
      )
    }
    do throws(SearchRequestError) {
      var input = input
      input.base = forced?.identifiers ?? []
      return try SearchRequest(input, schema: catalog.schema)
    } catch {
      throw ServerError.refused(
        error, catalog: catalog.name, place: input.near == nil ? "within_box" : "near")
    }
  }

  /// Counts a finished search (`record=1`: the page says so once the typing stops), whether
  /// it found anything, in the searcher's frame — when the server records searches.
  private func recordIfFinished(
    _ parameters: SearchParameters, found: Bool, forced: ForcedFilters?, anonymous: Bool,
    in catalog: any SearchCatalog
  ) async {
    guard recordsSearches, parameters.record, !parameters.input.text.isEmpty else { return }
    try? await recorder.record(
      parameters.input.text, found: found, tenant: Self.frame(forced), anonymous: anonymous,
      in: catalog)
  }

  /// The frame a search is recorded in: a tenant's filters, or empty for everyone else (as
  /// `SearchCatalog.suggestions(from:startingWith:base:limit:)` reads it).
  static func frame(_ forced: ForcedFilters?) -> String {
    forced?.identifiers.joined(separator: " & ") ?? ""
  }

  /// `GET /catalogs/NAME/suggestions?q=PREFIX`: the searches of the caller's frame that start
  /// with `prefix` (`SearchHistory.suggestions`) and still find something now, most made
  /// first; with `withFailed`, those that found nothing too.
  func suggestionsAnswer(
    _ catalog: any SearchCatalog, prefix: String, limit: Int, forced: ForcedFilters?,
    withFailed: Bool
  ) async throws(ServerError) -> JSONValue {
    let history = try await Self.answering { () async throws(CatalogFailure) in
      try await recorder.history(of: catalog)
    }
    let frame = Self.frame(forced)
    let suggested = try await Self.answering { () async throws(CatalogFailure) in
      try await catalog.suggestions(
        from: history, startingWith: prefix, base: forced?.identifiers ?? [], limit: limit)
    }
    func json(_ entries: [SearchHistory.Entry]) -> JSONValue {
      .array(
        entries.map {
          .object(sorting: [("text", .string($0.text)), ("count", .number(Double($0.count)))])
        })
    }
    var members: [(String, JSONValue)] = [
      ("catalog", .string(catalog.name)), ("suggestions", json(suggested)),
    ]
    if withFailed { members.append(("found_nothing", json(history.failed(tenant: frame)))) }
    return .object(sorting: members)
  }

  /// `GET /catalogs/NAME/facets/FIELD?q=…`: the values of the category `field` that match
  /// `q`, with how many results of the search the parameters describe hold each
  /// (`Facets.categories(matching:schema:limit:)`). A tenant counts only its rows.
  static func facetAnswer(
    _ catalog: any SearchCatalog, field: String, _ parameters: FacetParameters,
    forced: ForcedFilters? = nil
  ) async throws(ServerError) -> JSONValue {
    let schema = catalog.schema
    if let problem = schema.categoryProblem(named: field) {
      throw .badRequest("facets/\(field.prefix(40)): \(problem)")
    }
    let request = try Self.request(parameters.search.input, catalog: catalog, forced: forced)
    let (values, matched) = try await answering { () async throws(CatalogFailure) in
      try await catalog.categoryValues(
        matching: parameters.text, in: request, limit: parameters.limit)
    }
    return .object(sorting: [
      ("catalog", .string(catalog.name)), ("field", .string(schema.categoryField ?? field)),
      ("matched", .number(Double(matched))),
      (
        "values",
        .array(
          values.map {
            .object(sorting: [("value", .string($0.value)), ("count", .number(Double($0.count)))])
          })
      ),
    ])
  }

  /// `GET /search?catalog=a&catalog=b&q=…`: each catalog's answer under its name, searched at
  /// once; the first refusal (a scope or token one of them lacks) is the answer, its message
  /// naming that catalog.
  static func searchAnswers(
    _ chosen: [(any SearchCatalog, ForcedFilters?)], _ parameters: SearchParameters
  ) async throws(ServerError) -> JSONValue {
    // Each task answers with the name of the catalog it searched, and answers are filed under
    // that name: never under a position that only the order of the tasks ties to a catalog
    // (a release build once filed products' answer under candies and back, one time in three).
    let answers = await withTaskGroup(of: (String, Result<JSONValue, ServerError>).self) {
      group in
      for index in chosen.indices {
        let catalog = chosen[index].0
        let forced = chosen[index].1
        group.addTask {
          do throws(ServerError) {
            return (
              catalog.name,
              .success(try await searchAnswer(catalog, parameters, forced: forced).json)
            )
          } catch {
            return (catalog.name, .failure(error))
          }
        }
      }
      var answers: [String: Result<JSONValue, ServerError>] = [:]
      for await (name, answer) in group { answers[name] = answer }
      return answers
    }
    var members: [(String, JSONValue)] = []
    for (catalog, _) in chosen {
      switch answers[catalog.name] {
      case .success(let json)?: members.append((catalog.name, json))
      case .failure(let error)?:
        throw ServerError(error.status, "catalog \(catalog.name): " + error.message)
      case nil:
        throw ServerError(.internalServerError, "catalog \(catalog.name): no answer")
      }
    }
    return .object(sorting: [("catalogs", .object(sorting: members))])
  }

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

  /// Runs `work` on a catalog; what it could not do as the HTTP status that says whose fault
  /// it was.
  static func answering<Result: Sendable>(
    _ work: () async throws(CatalogFailure) -> Result
  ) async throws(ServerError) -> Result {
    do {
      return try await work()
    } catch {
      let status: HTTPResponse.Status =
        switch error {
        case .notFound: .notFound
        case .conflict: .conflict
        case .invalid: .badRequest
        case .unavailable: .serviceUnavailable
        case .failed: .internalServerError
        }
      throw ServerError(status, error.description)
    }
  }

  /// `value` as a JSON response: every answer of the server, errors included, goes through it.
  static func json(
    _ value: JSONValue, status: HTTPResponse.Status = .ok, version: Int64? = nil
  ) -> Response {
    json(bytes: value.bytes, status: status, version: version)
  }

  /// `GET /catalogs/NAME/export`: the catalog as `sift export` writes it (JSON Lines, its
  /// settings first), the items a tenant token sees; streamed a page of items at a time, so
  /// that a large catalog is never whole in memory. A failure once lines are sent ends the
  /// body early: the last line is then not an item's whole.
  /// A reader that takes nothing for `stallTimeout` is cut off (`StalledReaders`).
  static func export(
    _ catalog: any SearchCatalog, visible: FeedVisibility?, stallTimeout: Duration
  ) -> Response {
    let headers: HTTPFields = [
      .contentType: "application/x-ndjson; charset=utf-8",
      .contentDisposition: "attachment; filename=\"\(catalog.name).jsonl\"",
    ]
    return Response(
      status: .ok, headers: headers,
      body: ResponseBody { writer in
        try await StalledReaders.writing(to: writer, cutAfter: stallTimeout) { write in
          var buffer = ByteBuffer()
          try await CatalogExport.write(catalog, visible: visible) { line in
            buffer.writeString(line)
            buffer.writeInteger(UInt8(ascii: "\n"))
            if buffer.readableBytes >= 1 << 16 {
              try await write(buffer)
              buffer.clear()
            }
          }
          if buffer.readableBytes > 0 { try await write(buffer) }
        }
        try await writer.finish(nil)
      })
  }

  /// JSON already written, with the catalog's version and (a feed's page) the next page's
  /// cursor in headers.
  static func json(
    bytes: [UInt8], status: HTTPResponse.Status = .ok, version: Int64? = nil, next: Int64? = nil
  ) -> Response {
    var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
    if let version { headers[.siftVersion] = "\(version)" }
    if let next { headers[.siftNext] = "\(next)" }
    return Response(
      status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
  }

  /// Waits until `catalog` shows `version` (a search's `after`); 503 naming where it is when it
  /// does not within `SearchParameters.afterPatience`.
  static func reach(_ version: Int64?, _ catalog: any SearchCatalog) async throws(ServerError) {
    guard let version else { return }
    try await answering { () async throws(CatalogFailure) in
      try await catalog.reach(version, within: SearchParameters.afterPatience)
    }
  }

  /// `GET /catalogs`: each catalog's name, title, title field, fields, scopes, token kinds, the
  /// fields it sorts by, ranking field and item count (a tenant's: its rows).
  static func catalogList(
    _ served: [(any SearchCatalog, ForcedFilters?)]
  ) async throws(ServerError) -> JSONValue {
    var entries: [JSONValue] = []
    for (catalog, forced) in served {
      let schema = catalog.schema
      // The searched fields, then the stored ones (`"stored": true`: shown, not searched).
      let stored = Set(schema.storedFields.map(\.name))
      let fields = schema.allFields.map { field -> JSONValue in
        .object(
          sorting: [
            ("name", .string(field.name)), ("label", .string(field.label)),
            ("kind", .string("\(field.kind)")), ("searchable", .bool(field.isSearchable)),
          ] + (stored.contains(field.name) ? [("stored", .bool(true))] : [])
            + (field.decimals.map { [("decimals", .number(Double($0)))] } ?? []))
      }
      let tokenKinds = Set(
        schema.suggestedTokens.map {
          $0.identifier.split(separator: ":").first.map(String.init) ?? ""
        })
      // A tenant sees the scope buttons of its own categories only.
      var scopes = schema.scopeTitles
      if let forced {
        let seen = try await tenantScopes(of: catalog, forced: forced)
        scopes = scopes.filter(seen.contains)
      }
      var members: [(String, JSONValue)] = [
        ("name", .string(catalog.name)), ("title", .string(schema.title)),
        ("titleField", .string(schema.titleField)), ("fields", .array(fields)),
        ("scopes", .strings(scopes)),
        ("tokenKinds", .strings(tokenKinds.sorted())),
        // What `sort=` takes: a page's sort menu.
        ("sortable", .strings(schema.sortableFields.map(\.name))),
        ("items", .number(Double(try await itemCount(catalog, forced: forced)))),
        // The catalog's version this server shows: what `after=` waits for.
        ("version", .number(Double(catalog.version))),
      ]
      if let ranking = schema.rankingField {
        members.append(("rankingField", .string(ranking.field)))
      }
      // What `near=` measures from: the catalog's latitude and longitude fields.
      if let location = schema.location {
        members.append(
          (
            "location",
            .object([
              ("latitude", .string(location.latitude)), ("longitude", .string(location.longitude)),
            ])
          ))
      }
      entries.append(.object(sorting: members))
    }
    return .object([("catalogs", .array(entries))])
  }
}

extension HTTPField.Name {
  /// The catalog's version an answer shows (an edit's: the version it made).
  static let siftVersion = HTTPField.Name("Sift-Version")!
  /// The cursor of a feed's next page (`ChangeFeedAnswers.swift`).
  static let siftNext = HTTPField.Name("Sift-Next")!
}

extension JSONValue {
  /// An object with `key` set to `version` (a member added last; other values unchanged).
  func adding(_ key: String, _ version: Int64) -> JSONValue {
    guard case .object(var members) = self else { return self }
    members.append((key, .number(Double(version))))
    return .object(members)
  }
}
#endif
