#if Server
import ArgumentParser
import Foundation
import Sift
import SiftPostgres
import SiftServer
import NIOSSL
import SiftStore

/// `sift serve`: the catalogs over HTTP, searched with the same semantics as the app.
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Serve catalogs over HTTP: JSON search with the app's semantics.",
    discussion: """
      Each --catalog is served under its name: a built-in name as it is, a file by its name \
      without .sqlite, a catalog in PostgreSQL by its ?catalog= name. Only those catalogs are \
      reachable. A PostgreSQL catalog is searched in memory from a local copy that follows the \
      database's change log, so several servers on one database see each other's edits; while \
      the database is out of reach they go on searching and answer edits 503. Binds 127.0.0.1 \
      unless --host says \
      otherwise; SIGTERM or SIGINT finishes the requests in flight, then exits.

        GET /                                the search page
        GET /health                          200 {"status": "ok", "catalogs": N}
        GET /metrics                         Prometheus text: requests, latency, searches
        GET /catalogs                        the catalogs: fields, scopes, tokens
        GET /catalogs/NAME/search?q=TEXT     &scope=TITLE &token=ID (repeatable)
                                             &limit=N &offset=N &facets=1 &explain=1
                                             &sort=FIELD:desc &near=LAT,LON &within=KM
        GET /catalogs/NAME/items/ID          one item
        POST /catalogs/NAME/items            a JSON object of fields (and "id"): 201
        PUT /catalogs/NAME/items/ID          the item's new fields: 200
        DELETE /catalogs/NAME/items/ID       204
        GET /catalogs/NAME/snapshot?after=N  the catalog a page at a time, for a copy
        GET /catalogs/NAME/changes?since=V   the changes after a version (sift sync)
        POST /keys, GET /keys, DELETE /keys/ID   keys (admin only)

      The token in --token-file is the admin key: it edits every catalog and manages keys. \
      Other keys (sift keys create, POST /keys) search or edit some catalogs until a time; a \
      search key signs tenant tokens (sift keys token) that search only the rows their \
      filters allow. Searching is open to anyone unless --private. Edits are saved before \
      the reply.

      Examples:
        sift serve --catalog products --catalog candies
        sift serve --catalog cities.sqlite --port 9000
        sift serve --catalog 'postgresql://localhost/shop?catalog=products'
        sift serve --private --token-file admin.key --tls-cert c.pem --tls-key k.pem
        curl 'http://127.0.0.1:8080/catalogs/products/search?q=rose&limit=3'
      """
  )

  @Option(
    name: .customLong("catalog"),
    help:
      "A built-in catalog, a .sqlite file or a postgresql://HOST/DB?catalog=NAME address to serve. Repeatable; products by default."
  )
  var catalogs: [String] = []

  @Option(
    help: ArgumentHelp(
      "Where a node keeps its local copy of each postgresql:// catalog, so that a restart reads only the changes since (the data folder's postgres folder by default; two nodes on one machine need one each).",
      valueName: "DIR"))
  var cache: String?

  @Option(
    help: ArgumentHelp(
      "How many of a catalog's last changes its log keeps for copies and nodes that fall behind (a postgresql:// catalog's is cut by edits through this server, a .sqlite file's when its index is saved; older history is the catalog itself).",
      valueName: "N"))
  var keepChanges = 100_000

  @Option(
    help: ArgumentHelp(
      "And the changes of the last DAYS days, when they are more.", valueName: "DAYS"))
  var keepDays = 7

  @Option(help: "The address to listen on.")
  var host = "127.0.0.1"

  @Option(help: "The port to listen on (0: any free port, printed on start).")
  var port = 8080

  @Option(
    help: ArgumentHelp(
      "A file holding the admin key: it edits every catalog and manages keys (Authorization: Bearer TOKEN). Without it or an edit key the server is read-only.",
      valueName: "FILE"))
  var tokenFile: String?

  @Option(
    name: .customLong("keys"),
    help: ArgumentHelp(
      "The key file that sift keys writes (default: keys.json in the data folder).",
      valueName: "FILE"))
  var keysFile: String?

  @Flag(
    name: .customLong("private"),
    help: "Searching needs a key or a tenant token too, not only edits.")
  var isPrivate = false

  @Option(
    help: ArgumentHelp(
      "Requests a minute each key may make, unless the key sets its own; past it, 429 with Retry-After. No limit by default.",
      valueName: "N"))
  var rateLimit: Int?

  @Option(
    help: ArgumentHelp(
      "Answer 503 to a search or read that takes longer than this (0: no deadline).",
      valueName: "SECONDS"))
  var requestTimeout = 10.0

  @Option(
    help: ArgumentHelp(
      "Close a connection whose request header is not whole this long after it opened or after the last answer, even if it trickles in.",
      valueName: "SECONDS"))
  var headerTimeout = 30.0

  @Option(
    help: ArgumentHelp(
      "Serve HTTPS with this certificate chain (PEM); needs --tls-key.", valueName: "FILE"))
  var tlsCert: String?

  @Option(help: ArgumentHelp("The certificate's private key (PEM).", valueName: "FILE"))
  var tlsKey: String?

  @Option(
    help: ArgumentHelp(
      "Let pages from this origin (https://example.com, or * for any) call the API from a browser. Off by default.",
      valueName: "ORIGIN"))
  var cors: String?

  @Option(
    help: ArgumentHelp(
      "How many answered searches each catalog keeps, to refine the next keystroke from and to answer repeats (0: none).",
      valueName: "N"))
  var recentSearches = 64

  @Flag(
    help:
      "Count the finished searches people make (the page marks them with record=1 once the typing stops), per catalog and tenant, whether they found anything: GET /catalogs/NAME/suggestions and sift suggestions offer them. Off by default: what people search for is theirs. A .sqlite file keeps them; a PostgreSQL catalog only while served."
  )
  var recordSearches = false

  @Option(
    help: ArgumentHelp(
      "Close a connection silent this long: a request header sent in part, or an idle keep-alive.",
      valueName: "SECONDS"))
  var idleTimeout = 30.0

  @Option(
    help: ArgumentHelp(
      "The most connections open at once; past them, new ones wait to be accepted.",
      valueName: "N"))
  var maxConnections = 1_000

  @Option(
    help: ArgumentHelp(
      "Write a line per request on standard error: its method, path and query, status and time (never a header, so never a key).",
      valueName: "text|json"))
  var logFormat: LogFormat?

  /// `--log-format`.
  enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
    var format: AccessLogFormat { self == .text ? .text : .json }
  }

  func validate() throws {
    guard headerTimeout.isFinite, headerTimeout >= 0.1, headerTimeout <= 86_400 else {
      throw ValidationError(
        "--header-timeout must be from 0.1 to 86400 seconds, not \(headerTimeout)")
    }
    guard requestTimeout.isFinite, requestTimeout >= 0, requestTimeout <= 86_400 else {
      throw ValidationError(
        "--request-timeout must be from 0 to 86400 seconds, not \(requestTimeout)")
    }
    if let rateLimit, !(1...10_000_000).contains(rateLimit) {
      throw ValidationError(
        "--rate-limit must be from 1 to 10000000 requests a minute, not \(rateLimit)")
    }
    guard (tlsCert == nil) == (tlsKey == nil) else {
      throw ValidationError("--tls-cert and --tls-key go together: give both or neither")
    }
    guard idleTimeout.isFinite, idleTimeout >= 0.1, idleTimeout <= 86_400 else {
      throw ValidationError("--idle-timeout must be from 0.1 to 86400 seconds, not \(idleTimeout)")
    }
    guard (1...1_000_000).contains(maxConnections) else {
      throw ValidationError("--max-connections must be from 1 to 1000000, not \(maxConnections)")
    }
    guard keepChanges >= 0, (0...36_500).contains(keepDays) else {
      throw ValidationError(
        "--keep-changes must be 0 or more and --keep-days from 0 to 36500, not \(keepChanges) and \(keepDays)"
      )
    }
    guard (0...65_535).contains(port) else {
      throw ValidationError("--port must be from 0 to 65535, not \(port)")
    }
    guard recentSearches >= 0 else {
      throw ValidationError("--recent-searches must be 0 or more, not \(recentSearches)")
    }
    if let cors, cors != "*" {
      // An origin is a scheme, a host and maybe a port: nothing after it, not even a slash.
      guard let url = URL(string: cors), let scheme = url.scheme,
        ["http", "https"].contains(scheme),
        url.host != nil, url.path.isEmpty, url.query == nil, url.fragment == nil, url.user == nil
      else {
        throw ValidationError(
          "--cors must be an origin such as https://example.com (scheme and host, no path) or *, not \(cors)"
        )
      }
    }
  }

  func run() async throws {
    var served: [any SearchCatalog] = []
    var closers: [@Sendable () async -> Void] = []
    let closeAll = { for close in closers { await close() } }
    for argument in catalogs.isEmpty ? [BuiltInCatalog.default.rawValue] : catalogs {
      let parsed = try CatalogArgument(argument)
      let name = try parsed.servedName()
      if served.contains(where: { $0.name == name }) {
        await closeAll()
        throw Failure.exit(
          "two catalogs would be served as \"\(name)\": rename one of the files", status: 2)
      }
      let opened: OpenedCatalog
      do {
        opened = try await OpenedCatalog.open(
          argument, for: .serve(recentSearches: recentSearches, editable: tokenFile != nil),
          cache: cache, keeping: (keepChanges, keepDays))
      } catch {
        await closeAll()
        throw error
      }
      if case .postgres = parsed.place, let notice = opened.notice {
        StandardStreams.error("sift: \(notice)")
      }
      served.append(opened.catalog)
      closers.append(opened.close)
    }
    let token = try tokenFile.map(SyncCommand.readToken)
    var tls: TLSConfiguration?
    if let tlsCert, let tlsKey {
      do {
        tls = try TLSFiles(certificate: tlsCert, key: tlsKey).configuration()
      } catch {
        await closeAll()
        throw Failure.exit(error.description, status: 2)
      }
    }
    let keys = KeysCommand.store(keysFile)
    if keysFile != nil {
      do {
        _ = try keys.list()
      } catch {
        await closeAll()
        throw Failure.exit(error.description, status: 2)
      }
    }
    let names = served.map(\.name).joined(separator: ", ")
    let host = self.host
    let access =
      (isPrivate ? "private: searches need a key" : "searches open")
      + (token == nil ? "; edits need a key" : "; edits need a key or the admin token")
    let scheme = tls == nil ? "http" : "https"
    let server = SiftServer(
      catalogs: served, writeToken: token, keys: keys, isPrivate: isPrivate,
      rateLimit: rateLimit,
      requestTimeout: requestTimeout > 0 ? .milliseconds(Int64(requestTimeout * 1000)) : nil,
      corsOrigin: cors, accessLog: logFormat?.format, recordsSearches: recordSearches)
    // The searches counted are written to their catalogs every few seconds, off the search
    // path, and once more when the server stops.
    let saving = Task {
      while recordSearches, !Task.isCancelled {
        try? await Task.sleep(for: .seconds(5))
        await server.saveRecordedSearches()
      }
    }
    defer { saving.cancel() }
    do {
      let limits = SiftServer.Limits(
        idleTimeout: .milliseconds(Int64(idleTimeout * 1000)),
        headerTimeout: .milliseconds(Int64(headerTimeout * 1000)),
        maximumConnections: maxConnections)
      try await server.run(host: host, port: port, limits: limits, tls: tls) { port in
        StandardStreams.error(
          "sift: serving \(names) at \(scheme)://\(host):\(port)/ (\(access))")
      }
    } catch {
      await closeAll()
      // NIO's words for a port in use ("bind(descriptor:ptr:bytes:): Address already in use)
      // (errno: 98)"), said as a person would.
      if "\(error)".contains("Address already in use") {
        throw Failure.exit(
          "cannot listen on \(host):\(port): the port is in use (another server?); choose another with --port",
          status: 1)
      }
      throw error
    }
    // The requests are finished: the searches counted are written, the database connections
    // close cleanly.
    saving.cancel()
    await server.saveRecordedSearches()
    await closeAll()
  }
}
extension SiftCommand {
  /// The commands of a build with the Server trait: the server and its keys.
  static var serverCommands: [any ParsableCommand.Type] { [ServeCommand.self, KeysCommand.self] }
}
#endif
