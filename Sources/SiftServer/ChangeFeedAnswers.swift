#if Server
import Foundation
import HTTPTypes
import Hummingbird
import Sift

/// `GET /catalogs/NAME/snapshot?after=POSITION&limit=N` and
/// `GET /catalogs/NAME/changes?since=VERSION&limit=N`: what a copy that follows a catalog reads
/// (`sift sync`, `CatalogSync`).
///
/// A copy reads the snapshot's pages in catalog order (each with the version it was read at),
/// then the changes after the first page's version, page by page until one has no `next`.
/// When the changes after a version cannot be given — it is older than the kept log, the
/// catalog was imported again, or it is not one of this catalog's versions — the answer is
/// `410 Gone` with `"start_over": true`, and the copy reads the snapshot again. A tenant token
/// reads only its rows: a changed item it may not see comes as a delete of its id.
extension SiftServer {
  /// Items a snapshot page holds unless `limit` says otherwise, and the most it may ask.
  static let snapshotLimits = (standard: 2_000, maximum: 10_000)
  /// Changes a page holds unless `limit` says otherwise, and the most it may ask.
  static let changesLimits = (standard: 2_000, maximum: 10_000)

  static func snapshotAnswer(
    _ catalog: any SearchCatalog, _ query: QueryString, forced: ForcedFilters?
  ) async throws(ServerError) -> Response {
    let after = try feedNumber(query, "after", minimum: Int64.min)
    let limit = try feedNumber(query, "limit", minimum: 1, maximum: Int64(snapshotLimits.maximum))
    let page = try await answering { () async throws(CatalogFailure) in
      try await catalog.snapshot(
        after: after, limit: limit.map(Int.init) ?? snapshotLimits.standard,
        visible: visibility(forced))
    }
    return json(bytes: page.jsonBytes, version: page.version, next: page.next)
  }

  static func changesAnswer(
    _ catalog: any SearchCatalog, _ query: QueryString, forced: ForcedFilters?
  ) async throws(ServerError) -> Response {
    guard let since = try feedNumber(query, "since", minimum: 0) else {
      throw .badRequest(
        "since: name the version the copy is at (since=VERSION; a new copy reads …/snapshot first)"
      )
    }
    let limit = try feedNumber(query, "limit", minimum: 1, maximum: Int64(changesLimits.maximum))
    let answer = try await answering { () async throws(CatalogFailure) in
      try await catalog.changes(
        since: since, limit: limit.map(Int.init) ?? changesLimits.standard,
        visible: visibility(forced))
    }
    switch answer {
    case .page(let page):
      return json(bytes: page.jsonBytes, version: page.version, next: page.next)
    case .startOver(let reason, let identity, let version):
      return json(
        .object([
          ("error", .string(reason + "; start over from …/snapshot")),
          ("reason", .string(reason)), ("start_over", .bool(true)),
          ("identity", .string(identity)),
          ("version", .number(Double(version))),
        ]), status: .gone, version: version)
    }
  }

  /// What a tenant token's filters let it see of the feed; nil: everything.
  static func visibility(_ forced: ForcedFilters?) -> FeedVisibility? {
    guard let forced else { return nil }
    return { @Sendable item in forced.admits(item) }
  }

  /// The whole number `name` names, within bounds; nil when absent.
  private static func feedNumber(
    _ query: QueryString, _ name: String, minimum: Int64, maximum: Int64 = .max
  ) throws(ServerError) -> Int64? {
    guard let text = query[name] else { return nil }
    guard let number = Int64(text), number >= minimum, number <= maximum else {
      let range =
        maximum == .max
        ? "a whole number of at least \(minimum)" : "a whole number from \(minimum) to \(maximum)"
      throw .badRequest("\(name): \"\(text.prefix(40))\" is not \(range)")
    }
    return number
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

}
#endif
