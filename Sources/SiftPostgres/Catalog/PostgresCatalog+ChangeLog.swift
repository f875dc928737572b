#if Server
import Foundation
import PostgresNIO
import Sift

/// The change log: every write's transaction ends with its entry (`log(_:id:on:)`), so a change
/// and its version are committed together or not at all. Versions are the catalog row's
/// `generation`, which every write moves while it holds the row's lock until it commits: a
/// version is committed only after every smaller one, and a reader that sees version v has seen
/// every change before it — two writers committing at once never leave a gap to skip.
extension PostgresCatalog {
  /// What an entry of the log says happened.
  public enum ChangeKind: String, Sendable {
    case put = "p"
    case delete = "d"
    case synonyms = "s"
    case replace = "r"
  }

  /// The channel nodes `LISTEN` on; the payload is "VERSION SCHEMA".
  static let changesChannel = "sift_changes"

  /// How much of the log is kept: the rule every store keeps its log by.
  public typealias Retention = ChangeLogRetention

  /// Writes the entry of the change the transaction on `connection` made (the catalog row's
  /// generation moved already) and tells listening nodes on commit; returns its version. Every
  /// 256 versions the log is cut to `retention`.
  ///
  /// `previous`: what the item held before a put or delete, as JSON (`null` for an add).
  func log(
    _ kind: ChangeKind, id: String?, previous: String? = nil, on connection: PostgresConnection
  ) async throws -> Int64 {
    let version = try await Self.log(
      kind, id: id, previous: previous, schemaName: address.schemaName, on: connection)
    if version % 256 == 0 {
      try await connection.execute(
        """
        WITH gone AS (DELETE FROM "\(address.schemaName)".changes
          WHERE version <= $1 AND at < now() - make_interval(days => $2::integer) RETURNING version)
        UPDATE \(catalogTable) SET log_start = greatest(log_start, (SELECT max(version) FROM gone))
        WHERE EXISTS (SELECT 1 FROM gone)
        """,
        [.integer(Int(retention.newestCut(at: version))), .integer(retention.days)])
    }
    return version
  }

  /// Writes the entry at the catalog row's generation, and the notification nodes get on
  /// commit; returns the version. What every write ends with, an import included.
  static func log(
    _ kind: ChangeKind, id: String?, previous: String? = nil, schemaName: String,
    on connection: PostgresConnection
  ) async throws -> Int64 {
    let rows = try await connection.execute(
      """
      WITH logged AS (INSERT INTO "\(schemaName)".changes (version, kind, id, previous)
        SELECT generation, $1::"char", $2, $4::jsonb FROM "\(schemaName)".catalog
        RETURNING version)
      SELECT version, pg_notify('\(changesChannel)', version || ' ' || $3) FROM logged
      """,
      [
        .text(kind.rawValue), id.map(SQLValue.text) ?? .null, .text(schemaName),
        previous.map(SQLValue.text) ?? .null,
      ])
    var version: Int64 = 0
    for try await (logged, _) in rows.decode((Int64, String).self) { version = logged }
    return version
  }

  /// One entry of the log as a follower reads it, with the item as the catalog holds it now
  /// (nil when it is gone since).
  public struct Change: Sendable {
    public var version: Int64
    public var kind: ChangeKind
    public var id: ItemID?
    public var item: Item?
    /// The item's place in catalog order (`ord`), with `item`.
    public var position: Int64?
    /// What the catalog held under `id` before this change: `.absent` for an item it added,
    /// `.unknown` in an entry from before the log kept it.
    public var before: Before = .unknown

    public enum Before: Sendable {
      case absent
      case item(Item)
      case unknown
    }
  }

  /// Where the log stands: the catalog's identity (a follower's copy of another catalog is not
  /// this one's), its version, and the version its log explains changes after.
  public struct LogState: Sendable, Hashable {
    public var identity: String
    public var version: Int64
    public var logStart: Int64
  }

  /// The entries after `version` (at most `limit`, in version order) with the log's state, read
  /// in one statement, so one snapshot: the items as they are at that snapshot. When fewer than
  /// `limit` came, the follower is at `state.version` once it applied them.
  public func changes(
    after version: Int64, limit: Int = 10_000
  ) async throws(PostgresError) -> (state: LogState, changes: [Change]) {
    let schemaName = address.schemaName
    let rows = try await link.rows(
      """
      SELECT c.identity, c.generation, c.log_start, ch.version, ch.kind::text, ch.id,
        i.fields::text, i.ord, ch.previous::text, i.vector, c.schema->'vector'->>'field'
      FROM \(catalogTable) c
      LEFT JOIN LATERAL (SELECT * FROM "\(schemaName)".changes WHERE version > $1
        ORDER BY version LIMIT $2) ch ON true
      LEFT JOIN \(table) i ON i.id = ch.id AND ch.kind = 'p'
      ORDER BY ch.version
      """, [.integer(Int(version)), .integer(limit)],
      as: (
        String, Int64, Int64, Int64?, String?, String?, String?, Int64?, String?, ByteBuffer?,
        String?
      ).self)
    guard let first = rows.first else { throw .notFound(address.description) }
    let state = LogState(identity: first.0, version: first.1, logStart: first.2)
    var changes: [Change] = []
    for (_, _, _, logged, kind, id, fields, position, previous, vector, vectorField) in rows {
      guard let logged, let kind = kind.flatMap(ChangeKind.init(rawValue:)) else { continue }
      var change = Change(version: logged, kind: kind, id: id.map { ItemID($0) }, item: nil)
      if let previous, let id {
        change.before =
          previous == "null"
          ? .absent
          : (try? ItemRow.item(id: id, fields: previous)).map(Change.Before.item) ?? .unknown
      }
      if let id, let fields {
        change.item = try ItemRow.item(
          id: id, fields: fields, vector: vector, vectorField: vectorField)
        change.position = position
      }
      changes.append(change)
    }
    return (state, changes)
  }

  /// The whole catalog as of one snapshot: its schema (with its synonyms), every item in
  /// catalog order, and the log's state — what a follower starts from.
  public func snapshot() async throws(PostgresError) -> (state: LogState, document: CatalogDocument)
  {
    let read = try await snapshotPage(after: nil, limit: nil)
    return (read.state, CatalogDocument(schema: read.schema, items: read.items.map(\.item)))
  }

  /// The items after `ord` `position` in catalog order (at most `limit`; nil: all) with the
  /// schema and the log's state, read in one snapshot: a page of what a copy that follows the
  /// catalog starts from (`PostgresNode.snapshot`), or the whole of it.
  public func snapshotPage(
    after position: Int64?, limit: Int?
  ) async throws(PostgresError) -> (
    state: LogState, schema: CatalogSchema, items: [PositionedItem], next: Int64?, last: Int64
  ) {
    let schemaName = address.schemaName
    let description = address.description
    let found = try await link.transaction {
      connection -> (LogState, String, [(String, Int64, String, ByteBuffer?)], Int64)? in
      try await connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
      var state: (LogState, String, Int64)?
      for try await (identity, generation, start, schema, nextOrder)
        in try await connection
        .execute(
          "SELECT identity, generation, log_start, schema::text, next_ord FROM \"\(schemaName)\".catalog"
        ).decode((String, Int64, Int64, String, Int64).self)
      {
        state = (
          LogState(identity: identity, version: generation, logStart: start), schema, nextOrder - 1
        )
      }
      guard let state else { return nil }
      var rows: [(String, Int64, String, ByteBuffer?)] = []
      for try await row in try await connection.execute(
        "SELECT id, ord, fields::text, vector FROM \"\(schemaName)\".items WHERE ord > \(position ?? Int64.min) ORDER BY ord\(limit.map { " LIMIT \($0)" } ?? "")"
      ).decode((String, Int64, String, ByteBuffer?).self) {
        rows.append(row)
      }
      return (state.0, state.1, rows, state.2)
    }
    guard let (state, json, rows, last) = found else { throw .notFound(description) }
    let schema: CatalogSchema
    do {
      schema = try JSONDecoder().decode(CatalogSchema.self, from: Data(json.utf8))
    } catch {
      throw .unsuitable(description, reason: "its schema cannot be read: \(error)")
    }
    var items: [PositionedItem] = []
    items.reserveCapacity(rows.count)
    let vectorField = schema.vector?.field
    for (id, ord, fields, vector) in rows {
      let item = try ItemRow.item(id: id, fields: fields, vector: vector, vectorField: vectorField)
      items.append(PositionedItem(position: ord, item: item))
    }
    return (state, schema, items, limit != nil && rows.count == limit ? rows.last?.1 : nil, last)
  }

  /// The catalog's schema as it is now, with its synonyms.
  public func currentSchema() async throws(PostgresError) -> CatalogSchema {
    let rows = try await link.rows("SELECT schema::text FROM \(catalogTable)", as: String.self)
    guard let json = rows.first else { throw .notFound(address.description) }
    do {
      return try JSONDecoder().decode(CatalogSchema.self, from: Data(json.utf8))
    } catch {
      throw .unsuitable(address.description, reason: "its schema cannot be read: \(error)")
    }
  }

  /// Runs `onChange` with each version another writer announces for this catalog, until the
  /// connection is lost (it then throws) or the task is cancelled. `onListening` runs once the
  /// `LISTEN` is in place: a change committed after it is announced.
  public func listen(
    onListening: @Sendable () async -> Void, onChange: @Sendable (Int64) async -> Void
  ) async throws(PostgresError) {
    let schemaName = address.schemaName
    try await link.with { connection in
      // Cancelled (the node closing), the connection is closed, which ends the notifications
      // and leaves the link nothing half open to give back.
      try await withTaskCancellationHandler {
        try await listen(on: connection, schemaName, onListening: onListening, onChange: onChange)
      } onCancel: {
        Task { try? await connection.close() }
      }
    }
  }

  private func listen(
    on connection: PostgresConnection, _ schemaName: String,
    onListening: @Sendable () async -> Void, onChange: @Sendable (Int64) async -> Void
  ) async throws {
    try await connection.listen(on: Self.changesChannel) { notifications in
      await onListening()
      for try await notification in notifications {
        let words = notification.payload.split(separator: " ", maxSplits: 1)
        guard words.count == 2, words[1] == schemaName, let version = Int64(words[0]) else {
          continue
        }
        await onChange(version)
      }
    }
  }
}
#endif
