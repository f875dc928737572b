import Foundation
import Sift

/// Keeps a catalog file on this device a copy of a catalog a Sift server serves: the first run
/// copies it whole (schema, synonyms, items), each later run brings only what changed since.
///
/// A run is all or nothing: cut off (the network, the server, a cancelled task) the file is as
/// it was, and searchable all along — a first copy is written under another name and renamed
/// into place; later changes, or a copy made again, go in with one transaction.
///
/// ```swift
/// let sync = try CatalogSync(
///   from: URL(string: "https://search.example.com/catalogs/cities")!,
///   to: documents.appendingPathComponent("cities.sqlite"), token: tenantToken)
/// let report = try await sync.run()
/// print(report)  // "3 added, 1 changed, 2 deleted; now at version 1,234"
/// ```
///
/// The copy answers as the server does: same items in the same catalog order, same schema and
/// synonyms, so the same engine gives the same results. With a tenant token it holds only the
/// tenant's rows. A server must serve the catalog with its change feed (`sift serve`, any
/// `.sqlite` or PostgreSQL catalog).
public struct CatalogSync: Sendable {
  /// `http(s)://HOST[:PORT]/catalogs/NAME`.
  public let catalogURL: URL
  /// The catalog file on this device.
  public let localURL: URL
  /// The catalog's name on the server.
  public let catalogName: String
  /// Items a snapshot page asks for, and changes a changes page asks for.
  public var pageSize = 2_000
  private let client: FeedClient
  /// Which rows the token sees (`SyncSource.rows`).
  private let rows: String

  #if os(Linux)
  /// A sync of the catalog at `catalogURL` into the file at `localURL`, with a key or tenant
  /// token if the server needs one. On Linux the requests go through the system's libcurl.
  public init(from catalogURL: URL, to localURL: URL, token: String? = nil) throws(SyncError) {
    try self.init(from: catalogURL, to: localURL, token: token, http: HTTPGet())
  }
  #else
  /// A sync of the catalog at `catalogURL` into the file at `localURL`, with a key or tenant
  /// token if the server needs one; `session` makes the requests (its configuration sets
  /// proxies, TLS trust, caching).
  public init(
    from catalogURL: URL, to localURL: URL, token: String? = nil,
    session: URLSession = .shared
  ) throws(SyncError) {
    try self.init(from: catalogURL, to: localURL, token: token, http: HTTPGet(session: session))
  }
  #endif

  private init(from catalogURL: URL, to localURL: URL, token: String?, http: HTTPGet)
    throws(SyncError)
  {
    let text = catalogURL.absoluteString
    guard let scheme = catalogURL.scheme?.lowercased(), scheme == "http" || scheme == "https",
      let host = catalogURL.host, !host.isEmpty
    else {
      throw .invalidURL(
        "\(text): expected http(s)://HOST[:PORT]/catalogs/NAME, the address of a catalog on a Sift server"
      )
    }
    let parts = catalogURL.path.split(separator: "/", omittingEmptySubsequences: true)
    guard parts.count >= 2, parts[parts.count - 2] == "catalogs" else {
      throw .invalidURL(
        "\(text): the path must end in /catalogs/NAME (for example http://localhost:7700/catalogs/cities)"
      )
    }
    self.catalogName = String(parts.last!)
    // Without a trailing slash, so that the feed's paths append.
    var components = URLComponents(url: catalogURL, resolvingAgainstBaseURL: false)!
    components.path = "/" + parts.joined(separator: "/")
    components.query = nil
    self.catalogURL = components.url!
    self.localURL = localURL
    client = FeedClient(catalogURL: self.catalogURL, token: token, http: http)
    rows = Self.rows(seenBy: token, catalog: catalogName)
  }

  /// "all", or "filter A B" for a tenant token whose filters for `catalog` are A and B: read
  /// from the token's payload without checking its signature (the server checks it), so that
  /// a copy made with one tenant's token is never brought up to date with another's rows.
  static func rows(seenBy token: String?, catalog: String) -> String {
    let parts = token?.split(separator: ".") ?? []
    guard parts.count == 3 else { return "all" }
    var text = parts[1].replacingOccurrences(of: "-", with: "+")
      .replacingOccurrences(of: "_", with: "/")
    text += String(repeating: "=", count: (4 - text.count % 4) % 4)
    guard let data = Data(base64Encoded: text), let payload = try? JSONValue.parse(data),
      case .strings(let filters)? = payload["catalogs"]?[catalog]?["filter"]
    else { return "a token that is not a tenant token" }
    return (["filter"] + filters).joined(separator: " ")
  }

  /// Brings the local file up to the server's catalog; what changed, and its version now.
  /// `progress` hears of each page read (on no particular thread).
  public func run(
    progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
  ) async throws(SyncError) -> SyncReport {
    let path = localURL.path
    let local: CatalogStore?
    var source: SyncSource?
    if FileManager.default.fileExists(atPath: path) {
      let store = try Self.local { () throws(StoreError) in
        try CatalogStore.open(at: localURL, concurrentReads: true)
      }
      local = store
      guard let recorded = try Self.local({ () throws(StoreError) in try store.syncSource() })
      else {
        try? store.close()
        throw .otherCatalog(
          "\(path) is a catalog that was not made by a sync: sync into a new file instead")
      }
      guard recorded.catalog == catalogName else {
        try? store.close()
        throw .otherCatalog(
          "\(path) is a copy of catalog \(recorded.catalog) (\(recorded.url)), not of \(catalogName)"
        )
      }
      source = recorded
    } else {
      local = nil
    }
    defer { try? local?.close() }
    Self.removeStaleStaging(beside: localURL)
    var reason: String?
    if let source, source.rows != rows {
      reason = "the token sees other rows than the copy holds (\(source.rows), now \(rows))"
    } else if let local, let source {
      switch try await changes(since: source.version, progress: progress) {
      case .changes(let changes, let version, let identity) where identity == source.identity:
        try Task.checkCancellation(orThrow: SyncError.cancelled)
        var report = try Self.local { () throws(StoreError) in
          try local.applySynced(
            changes, source: SyncSource(source, version: version, url: catalogURL))
        }
        report.previousVersion = source.version
        report.bytesReceived = client.received.total
        return report
      case .changes:
        reason = "catalog \(catalogName) on the server was made again"
      case .startOver(let why):
        reason = why
      }
    }
    var report = try await copyWhole(into: local, progress: progress)
    report.previousVersion = source?.version
    report.startedOver = reason
    report.bytesReceived = client.received.total
    return report
  }

  // MARK: - Changes

  private enum Changes {
    case changes([CatalogChange], version: Int64, identity: String)
    case startOver(String)
  }

  /// Every change after `version`, page after page, until one reaches the catalog's version.
  private func changes(
    since version: Int64, progress: @Sendable (SyncProgress) -> Void
  ) async throws(SyncError) -> Changes {
    var changes: [CatalogChange] = []
    var since = version
    var identity: String?
    while true {
      switch try await client.changes(since: since, limit: pageSize) {
      case .startOver(let reason):
        return .startOver(reason)
      case .page(let page):
        if let identity, identity != page.identity {
          return .startOver("catalog \(catalogName) on the server was made again")
        }
        identity = page.identity
        changes += page.changes
        progress(
          SyncProgress(
            stage: .changes, items: 0, changes: changes.count,
            bytesReceived: client.received.total))
        guard let next = page.next else {
          return .changes(changes, version: page.version, identity: page.identity)
        }
        since = next
      }
    }
  }

  // MARK: - A whole copy

  /// How many times a copy is started again when the catalog is made again while it is read.
  private static let copyAttempts = 3

  /// Reads the catalog whole into a file beside the local one, with the changes made while it
  /// was read; then renames it into place (no local file yet) or puts its items in the local
  /// file's place in one transaction.
  private func copyWhole(
    into local: CatalogStore?, progress: @escaping @Sendable (SyncProgress) -> Void
  ) async throws(SyncError) -> SyncReport {
    var why = "the catalog was made again while it was read"
    for _ in 0..<Self.copyAttempts {
      let staging = localURL.deletingLastPathComponent().appendingPathComponent(
        ".\(localURL.lastPathComponent).\(UUID().uuidString)\(Self.stagingSuffix)")
      defer { CatalogStore.remove(at: staging) }
      guard
        let (store, source, count, index) = try await download(
          into: staging, progress: progress, why: &why)
      else { continue }
      if let local {
        let schema = try Self.local { () throws(StoreError) in try store.loadSchema() }
        try? store.checkpointAndClose()
        try Task.checkCancellation(orThrow: SyncError.cancelled)
        var report = try Self.local { () throws(StoreError) in
          try local.replaceContents(with: staging, schema: schema, source: source, index: index)
        }
        report.itemCount = count
        return report
      }
      let generation = try Self.local { () throws(StoreError) in try store.itemsGeneration() }
      try Self.local { () throws(StoreError) in try store.checkpointAndClose() }
      try Task.checkCancellation(orThrow: SyncError.cancelled)
      // Its index file was of no items: the index built is saved once the copy is in place
      // (a file renamed is not the file its index was stamped beside).
      try? FileManager.default.removeItem(at: IndexFile.url(forCatalogAt: staging))
      do {
        try FileManager.default.moveItem(at: staging, to: localURL)
      } catch {
        throw .local("\(localURL.path): the copy could not be put in place: \(error)")
      }
      // Not saved (a full disk), the copy is whole all the same: its first open builds it.
      if let placed = try? CatalogStore.open(at: localURL) {
        _ = try? placed.saveIndex(index, builtAtGeneration: generation, isLastUse: true)
        try? placed.close()
      }
      return SyncReport(
        added: count, version: source.version, itemCount: count, isFirstCopy: true)
    }
    throw .server("catalog \(catalogName) could not be copied: \(why), \(Self.copyAttempts) times")
  }

  /// The snapshot's pages and the changes since its first, written into a new catalog file at
  /// `staging`, and the index of its items, built on other threads as the pages come; nil (and
  /// `why`) when the catalog was made again meanwhile.
  private func download(
    into staging: URL, progress: @Sendable (SyncProgress) -> Void, why: inout String
  ) async throws(SyncError) -> (CatalogStore, SyncSource, count: Int, SearchIndex<ItemID>)? {
    var fetched = try await client.fetchSnapshot(after: nil, limit: pageSize)
    let first = try client.read(fetched)
    var page = first
    let store = try Self.local { () throws(StoreError) in
      try CatalogStore.create(
        at: staging, document: CatalogDocument(schema: first.schema, items: []))
    }
    var builder = IndexBuilder(
      schema: try Self.local { () throws(StoreError) in try store.searchSchema(first.schema) })
    var done = false
    defer { if !done { try? store.close() } }
    try Self.local { () throws(StoreError) in try store.beginBulkCopy() }
    var count = 0
    while true {
      // The next page is asked for while this one is read and written.
      let client = self.client
      let pageSize = self.pageSize
      let prefetch = page.next(endingAt: first.last).map { cursor in
        Task { () -> Result<FeedClient.Fetched, SyncError> in
          do throws(SyncError) {
            return .success(try await client.fetchSnapshot(after: cursor, limit: pageSize))
          } catch {
            return .failure(error)
          }
        }
      }
      defer { prefetch?.cancel() }
      guard page.identity == first.identity else { return nil }
      let items = page.items
      builder.append(contentsOf: items.lazy.map(\.item))
      try Self.local { () throws(StoreError) in try store.insertSynced(items) }
      count += items.count
      progress(
        SyncProgress(
          stage: .items, items: count, changes: 0, bytesReceived: client.received.total))
      // The pages up to the first one's end: what was added or moved since comes in the
      // changes after it, so that steady edits cannot keep the end away.
      guard let next = page.next(endingAt: first.last) else { break }
      try Task.checkCancellation(orThrow: SyncError.cancelled)
      if let prefetch, fetched.next == next {
        fetched = try await prefetch.value.get()
      } else {
        fetched = try await client.fetchSnapshot(after: next, limit: pageSize)
      }
      page = try client.read(fetched)
    }
    try Self.local { () throws(StoreError) in try store.endBulkCopy() }
    var source = SyncSource(
      url: catalogURL.absoluteString, catalog: catalogName, identity: first.identity,
      version: first.version, rows: rows)
    switch try await changes(since: first.version, progress: progress) {
    case .startOver(let reason):
      why = reason
      return nil
    case .changes(_, _, let identity) where identity != first.identity:
      return nil
    case .changes(let changes, let version, _):
      source.version = version
      let report = try Self.local { () throws(StoreError) in
        try store.applySynced(changes, source: source)
      }
      count += report.added - report.deleted
      // The pages' index is the file's while nothing changed after them and no item came
      // twice (deleted and added again while the pages were read); else the file's items are
      // indexed as they now are.
      progress(
        SyncProgress(
          stage: .indexing, items: count, changes: changes.count,
          bytesReceived: client.received.total))
      let index: SearchIndex<ItemID>
      if changes.isEmpty, let built = try? builder.finishIndex() {
        index = built
      } else {
        index = try Self.local { () throws(StoreError) in try store.indexOfItems() }
      }
      done = true
      return (store, source, count, index)
    }
  }

  // MARK: - Files

  private static let stagingSuffix = ".syncing"

  /// Copies left behind by a sync that was killed before it could remove them.
  private static func removeStaleStaging(beside local: URL) {
    let folder = local.deletingLastPathComponent()
    let prefix = ".\(local.lastPathComponent)."
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
      return
    }
    for name in names where name.hasPrefix(prefix) && name.hasSuffix(stagingSuffix) {
      CatalogStore.remove(at: folder.appendingPathComponent(name))
    }
  }

  private static func local<Value>(
    _ work: () throws(StoreError) -> Value
  ) throws(SyncError) -> Value {
    do {
      return try work()
    } catch {
      switch error {
      case .notSQLite, .notACatalog, .newerFormat:
        throw .otherCatalog("\(error): sync into a new file instead")
      default:
        throw .local("\(error)")
      }
    }
  }
}

/// How far a sync got: what `run(progress:)`'s callback hears after each page.
public struct SyncProgress: Hashable, Sendable {
  public enum Stage: Hashable, Sendable {
    /// Reading the catalog whole.
    case items
    /// Reading the changes.
    case changes
    /// Indexing the items of a whole copy and saving the index beside it, so that its first
    /// search reads it.
    case indexing
  }

  public var stage: Stage
  /// Items read so far of a whole copy.
  public var items: Int
  /// Changes read so far.
  public var changes: Int
  public var bytesReceived: Int
}

/// What a sync did, and the version the local file shows now.
public struct SyncReport: Hashable, Sendable, CustomStringConvertible {
  public var added = 0
  public var changed = 0
  public var deleted = 0
  public var synonymsChanged = false
  /// The server's version the local file shows now.
  public var version: Int64
  /// The version it showed before; nil for a first copy.
  public var previousVersion: Int64?
  /// How many items the local file holds, after a whole copy; nil after changes alone.
  public var itemCount: Int?
  /// Whether the local file was made by this run.
  public var isFirstCopy = false
  /// Why the catalog was read whole again rather than its changes; nil when it was not.
  public var startedOver: String?
  /// The items changes alone put or deleted, in order, for an app that keeps the catalog in
  /// memory too (`SearchModel`) and applies them rather than opening it again; empty after a
  /// whole copy.
  public var changes: [CatalogChange] = []
  public var bytesReceived = 0

  /// Whether the local file changed at all.
  public var changedAnything: Bool {
    added + changed + deleted > 0 || synonymsChanged || isFirstCopy || startedOver != nil
  }

  public var description: String {
    let now = "now at version \(FieldValue.grouped(Double(version), from: 1_000))"
    if isFirstCopy {
      return "copied \(Self.count(itemCount ?? added, "item")); \(now)"
    }
    var parts: [String] = []
    if let startedOver {
      parts.append(
        "copied whole again (\(startedOver)): \(Self.count(itemCount ?? 0, "item")), \(added) new, \(deleted) gone"
      )
    } else if added + changed + deleted > 0 {
      parts.append("\(added) added, \(changed) changed, \(deleted) deleted")
    }
    if synonymsChanged { parts.append("synonyms changed") }
    guard !parts.isEmpty else { return "up to date; \(now)" }
    return parts.joined(separator: ", ") + "; " + now
  }

  private static func count(_ value: Int, _ noun: String) -> String {
    "\(FieldValue.grouped(Double(value), from: 1_000)) \(noun)\(value == 1 ? "" : "s")"
  }

}
