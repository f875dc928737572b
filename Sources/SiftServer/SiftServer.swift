#if Server
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Sift

/// `sift serve`: the catalogs named at start, searched over HTTP with the engine's semantics.
///
/// - `GET /catalogs`: each catalog's name, title, fields, scopes, token kinds, ranking field;
/// - `GET /catalogs/NAME/search?q=…&scope=…&token=…&limit=…&offset=…&facets=1&explain=1`: the
///   indicator, counts and a page of results, the same items in the same order as `sift search`;
/// - `GET /search?catalog=a&catalog=b&q=…`: the same search of several catalogs at once, each
///   answer under its catalog's name;
/// - `GET /catalogs/NAME/items/ID`, and `POST`, `PUT`, `DELETE` to edit (with the token);
/// - `GET /`: the search page, which uses nothing but the above.
///
/// Only the catalogs given here are reachable, by name: nothing in a URL is ever a path. Every
/// error is `{"error": "…"}` with its status, and none stops the server.
public struct SiftServer: Sendable {
  package let catalogs: [String: any SearchCatalog]
  /// What `Authorization: Bearer …` must carry for an edit; nil: the server is read-only.
  let writeToken: String?
  /// The one origin whose pages may call this server from a browser (`*`: any); nil: none but
  /// the server's own page.
  let corsOrigin: String?
  /// Requests, latencies, searches and edits, for `GET /metrics`.
  let metrics = ServerMetrics()
  /// A line per request on standard error in this format; nil: no access log.
  let accessLog: AccessLogFormat?
  /// Where access-log lines go (standard error; a test's own collector).
  let logLine: @Sendable (String) -> Void

  package init(
    catalogs: [any SearchCatalog], writeToken: String? = nil, corsOrigin: String? = nil,
    accessLog: AccessLogFormat? = nil,
    logLine: @escaping @Sendable (String) -> Void = { line in
      FileHandle.standardError.write(Data((line + "\n").utf8))
    }
  ) {
    self.catalogs = Dictionary(
      catalogs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    self.writeToken = writeToken
    self.corsOrigin = corsOrigin
    self.accessLog = accessLog
    self.logLine = logLine
  }

  /// The routes, for `Application` or for tests (`HummingbirdTesting`).
  public func router() -> Router<BasicRequestContext> {
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
    router.add(middleware: JSONErrorMiddleware(routes: routes))
    router.get("metrics") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
        body: ResponseBody(byteBuffer: ByteBuffer(string: self.metrics.exposition())))
    }
    // For a load balancer: the server answers, and how many catalogs it serves.
    router.get("health") { _, _ in
      Self.json(
        .object([("status", .string("ok")), ("catalogs", .number(Double(self.catalogs.count)))]))
    }
    for asset in WebPage.Asset.allCases {
      router.get(RouterPath(asset.path)) { _, _ in WebPage.response(asset) }
    }
    router.get("catalogs") { _, _ in
      Self.json(try await Self.catalogList(self.catalogs.values.sorted { $0.name < $1.name }))
    }
    router.get("catalogs/:name/search") { request, context in
      let catalog = try self.catalog(context)
      let parameters = try SearchParameters(QueryString(request.uri.query))
      let answer = try await Self.searchAnswer(catalog, parameters)
      self.metrics.recordSearch(catalog: catalog.name)
      return Self.json(answer)
    }
    router.get("search") { request, _ in
      let query = try QueryString(request.uri.query)
      let chosen = try self.catalogs(named: query.all("catalog"))
      let parameters = try SearchParameters(query)
      let answers = try await Self.searchAnswers(chosen, parameters)
      for catalog in chosen { self.metrics.recordSearch(catalog: catalog.name) }
      return Self.json(answers)
    }
    router.get("catalogs/:name/items/:id") { _, context in
      let catalog = try self.catalog(context)
      let id = ItemID(context.parameters.get("id") ?? "")
      return Self.json(try await Self.itemAnswer(id, in: catalog))
    }
    router.post("catalogs/:name/items") { request, context in
      try self.authorize(request)
      let catalog = try self.catalog(context)
      let body = try ItemBody(
        try await Self.body(request), schema: catalog.schema, requiresTitle: true)
      let id = try await Self.answering { () async throws(CatalogFailure) in
        try await catalog.commit(.add(body.id, fields: body.fields))
      }
      self.metrics.recordEdit(catalog: catalog.name)
      return Self.json(try await Self.itemAnswer(id, in: catalog), status: .created)
    }
    router.put("catalogs/:name/items/:id") { request, context in
      try self.authorize(request)
      let catalog = try self.catalog(context)
      let id = ItemID(context.parameters.get("id") ?? "")
      let body = try ItemBody(
        try await Self.body(request), schema: catalog.schema, requiresTitle: true)
      if let named = body.id, named != id {
        throw ServerError.badRequest(
          "id: the body names \"\(named.rawValue.prefix(100))\", the path \"\(id.rawValue.prefix(100))\""
        )
      }
      _ = try await Self.answering { () async throws(CatalogFailure) in
        try await catalog.commit(.update(Item(id: id, fields: body.fields)))
      }
      self.metrics.recordEdit(catalog: catalog.name)
      return Self.json(try await Self.itemAnswer(id, in: catalog))
    }
    router.delete("catalogs/:name/items/:id") { request, context in
      try self.authorize(request)
      let catalog = try self.catalog(context)
      let id = ItemID(context.parameters.get("id") ?? "")
      _ = try await Self.answering { () async throws(CatalogFailure) in
        try await catalog.commit(.delete(id))
      }
      self.metrics.recordEdit(catalog: catalog.name)
      return Response(status: .noContent)
    }
    router.get("catalogs/:name/synonyms") { _, context in
      Self.json(Self.synonymsAnswer(try self.catalog(context).schema.synonyms))
    }
    router.put("catalogs/:name/synonyms") { request, context in
      try self.authorize(request)
      let catalog = try self.catalog(context)
      let synonyms = try Self.synonyms(from: try await Self.body(request))
      try await Self.answering { () async throws(CatalogFailure) in
        try await catalog.replaceSynonyms(synonyms)
      }
      self.metrics.recordEdit(catalog: catalog.name)
      return Self.json(Self.synonymsAnswer(catalog.schema.synonyms))
    }
    return router
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

  /// Edits need the token the server was started with, as `Authorization: Bearer TOKEN`.
  private func authorize(_ request: Request) throws(ServerError) {
    guard let writeToken else {
      throw ServerError(
        .forbidden, "this server is read-only: start it with --token-file to allow edits")
    }
    guard let given = Self.bearerToken(request.headers[.authorization]),
      Self.constantTimeEqual(given, writeToken)
    else {
      throw ServerError(
        .unauthorized, "Authorization: a Bearer token that this server accepts is required")
    }
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
  /// sent in part and then nothing, a connection kept open between requests — and how many
  /// may be open at once (past that, new ones wait to be accepted).
  public struct Limits: Sendable {
    public var idleTimeout: Duration
    public var maximumConnections: Int

    public init(idleTimeout: Duration = .seconds(30), maximumConnections: Int = 1_000) {
      self.idleTimeout = idleTimeout
      self.maximumConnections = maximumConnections
    }
  }

  /// Serves until SIGTERM or SIGINT, then finishes the requests in flight and returns.
  public func run(
    host: String, port: Int, limits: Limits = Limits(),
    onListening: @escaping @Sendable (Int) -> Void = { _ in }
  ) async throws {
    // Warnings and errors only: the command says where it listens in its own words.
    var logger = Logger(label: "sift")
    logger.logLevel = .warning
    let (seconds, attoseconds) = limits.idleTimeout.components
    let idle = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    let app = Application(
      router: router(),
      server: .http1(configuration: .init(idleTimeout: idle)),
      configuration: .init(
        address: .hostname(host, port: port), serverName: "sift",
        availableConnectionsDelegate: MaximumAvailableConnections(limits.maximumConnections)),
      onServerRunning: { channel in onListening(channel.localAddress?.port ?? port) },
      logger: logger)
    try await app.runService()
  }

  private func catalog(
    _ context: BasicRequestContext
  ) throws(ServerError) -> any SearchCatalog {
    try catalog(named: context.parameters.get("name") ?? "")
  }

  private func catalog(named name: String) throws(ServerError) -> any SearchCatalog {
    guard let catalog = catalogs[name] else {
      let known = catalogs.keys.sorted().joined(separator: ", ")
      throw .notFound("no catalog named \"\(name.prefix(100))\"; this server has \(known)")
    }
    return catalog
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

  /// One catalog's answer to a search: its page, indicator, suggestions and (asked) facets.
  static func searchAnswer(
    _ catalog: any SearchCatalog, _ parameters: SearchParameters
  ) async throws(ServerError) -> JSONValue {
    let searched: SearchRequest
    do throws(SearchRequestError) {
      searched = try SearchRequest(parameters.input, schema: catalog.schema)
    } catch {
      throw ServerError.refused(error, catalog: catalog.name)
    }
    let page = try await answering { () async throws(CatalogFailure) in
      try await catalog.search(searched, page: parameters.page)
    }
    let unknown = try await answering { () async throws(CatalogFailure) in
      try await catalog.unknownCategory(in: searched, page: page)
    }
    if let unknown { throw ServerError.refused(unknown, catalog: catalog.name) }
    return SearchResponse.json(
      catalog: catalog.name, page: page, schema: catalog.schema, tokens: searched.tokens,
      sort: searched.sort)
  }

  /// `GET /search?catalog=a&catalog=b&q=…`: each catalog's answer under its name, searched at
  /// once; the first refusal (a scope or token one of them lacks) is the answer, its message
  /// naming that catalog.
  static func searchAnswers(
    _ chosen: [any SearchCatalog], _ parameters: SearchParameters
  ) async throws(ServerError) -> JSONValue {
    let answers = await withTaskGroup(of: (Int, Result<JSONValue, ServerError>).self) { group in
      for (position, catalog) in chosen.enumerated() {
        group.addTask {
          do throws(ServerError) {
            return (position, .success(try await searchAnswer(catalog, parameters)))
          } catch {
            return (position, .failure(error))
          }
        }
      }
      var answers: [(Int, Result<JSONValue, ServerError>)] = []
      for await answer in group { answers.append(answer) }
      return answers.sorted { $0.0 < $1.0 }.map(\.1)
    }
    var members: [(String, JSONValue)] = []
    for (catalog, answer) in zip(chosen, answers) {
      switch answer {
      case .success(let json): members.append((catalog.name, json))
      case .failure(let error):
        throw ServerError(error.status, "catalog \(catalog.name): " + error.message)
      }
    }
    return .object(sorting: [("catalogs", .object(sorting: members))])
  }

  /// The item with `id` as `GET /catalogs/NAME/items/ID` gives it: every value, no highlights.
  static func itemAnswer(_ id: ItemID, in catalog: any SearchCatalog) async throws(ServerError)
    -> JSONValue
  {
    let found = try await answering { () async throws(CatalogFailure) in try await catalog.item(id)
    }
    guard let found else {
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
  static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
    Response(
      status: status, headers: [.contentType: "application/json; charset=utf-8"],
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: value.bytes)))
  }

  /// `GET /catalogs`: each catalog's name, title, title field, fields, scopes, token kinds, the
  /// fields it sorts by, ranking field and item count.
  static func catalogList(_ served: [any SearchCatalog]) async throws(ServerError) -> JSONValue {
    var entries: [JSONValue] = []
    for catalog in served {
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
      var members: [(String, JSONValue)] = [
        ("name", .string(catalog.name)), ("title", .string(schema.title)),
        ("titleField", .string(schema.titleField)), ("fields", .array(fields)),
        ("scopes", .strings(schema.scopeTitles)), ("tokenKinds", .strings(tokenKinds.sorted())),
        // What `sort=` takes: a page's sort menu.
        ("sortable", .strings(schema.sortableFields.map(\.name))),
        (
          "items",
          .number(
            Double(
              try await answering { () async throws(CatalogFailure) in try await catalog.count() }
            ))
        ),
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
#endif
