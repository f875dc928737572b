#if Server
import Foundation
import PostgresNIO
import Sift

extension PostgresCatalog {
  /// Writes `document` as the catalog at `address`, replacing what was there, in one
  /// transaction: the items stream in through COPY, then the index of catalog order is built;
  /// until it commits, every reader sees the old catalog, and a crash leaves it intact. The
  /// replacement is the catalog's next version, logged as such: nodes load it whole.
  ///
  /// - Parameter progress: the fraction done, from 0 to 1.
  public static func replace(
    _ address: PostgresAddress, with document: CatalogDocument,
    progress: @escaping @Sendable (Double) -> Void = { _ in }
  ) async throws(PostgresError) {
    do {
      try document.schema.validate()
    } catch {
      throw .unsuitable(address.description, reason: "its schema is not valid: \(error)")
    }
    let schemaJSON: String
    do {
      schemaJSON = String(decoding: try JSONEncoder().encode(document.schema), as: UTF8.self)
    } catch {
      throw .unsupported("the catalog's schema cannot be written: \(error)")
    }
    let link = PostgresLink(address: address)
    defer { Task { await link.close() } }
    let name = "\"\(address.schemaName)\""
    try await checkDatabase(link)
    _ = try await link.transaction { connection in
      // One import at a time per catalog.
      try await connection.execute(
        "SELECT pg_advisory_xact_lock(hashtext($1))", [.text(address.schemaName)])
      let existing = try await connection.execute(
        "SELECT to_regclass($1) IS NOT NULL", [.text("\(name).catalog")])
      var exists = false
      for try await flag in existing.decode(Bool.self) { exists = flag }
      // The replaced catalog's identity and version go on: its followers find the replacement
      // at the next version, and load it whole.
      var identity = UUID().uuidString
      var version: Int64 = 1
      if exists {
        let formats = try await connection.execute("SELECT format FROM \(name).catalog")
        var format = 0
        for try await found in formats.decode(Int.self) { format = found }
        if format > Self.format {
          throw PostgresError.newerFormat(
            address.description, found: format, supported: Self.format)
        }
        let kept = try await connection.execute(
          format >= 7
            ? "SELECT identity, generation + 1 FROM \(name).catalog"
            : "SELECT md5(random()::text), generation + 1 FROM \(name).catalog")
        for try await (found, next) in kept.decode((String, Int64).self) {
          (identity, version) = (found, next)
        }
      }
      try await connection.execute("DROP SCHEMA IF EXISTS \(name) CASCADE")
      for statement in CatalogLayout.creation(address.schemaName) {
        try await connection.execute(statement)
      }
      let total = max(1, document.items.count)
      // COPY takes one plain table name: reach the catalog's through the search path.
      try await connection.execute("SET LOCAL search_path TO \(name), public")
      try await connection.copyFrom(
        table: "items", columns: ["id", "ord", "fields", "vector"], logger: PostgresLink.logger
      ) { writer in
        var buffer = ByteBuffer()
        for (order, item) in document.items.enumerated() {
          let row = try ItemRow(item, schema: document.schema)
          buffer.writeString(row.copyLine(order: Int64(order)))
          if buffer.readableBytes > 1 << 20 {
            try await writer.write(buffer)
            buffer.clear()
            progress(0.9 * Double(order) / Double(total))
          }
        }
        if buffer.readableBytes > 0 { try await writer.write(buffer) }
      }
      progress(0.9)
      for statement in CatalogLayout.indexes(address.schemaName) {
        try await connection.execute(statement)
      }
      try await connection.execute(
        "INSERT INTO \(name).catalog VALUES ($1, $2::jsonb, $5, $3, $3, $4, $6, $7)",
        [
          .integer(Self.format), .text(schemaJSON), .integer(document.items.count),
          .text("sift"), .integer(Int(version)), .text(identity), .integer(Int(version - 1)),
        ])
      _ = try await log(.replace, id: nil, schemaName: address.schemaName, on: connection)
      try await connection.execute("ANALYZE \(name).items")
      return ()
    }
    progress(1)
  }

  /// The database must hold UTF-8: the items' text is kept as it is.
  static func checkDatabase(_ link: PostgresLink) async throws(PostgresError) {
    let encoding = try await link.rows("SHOW server_encoding", as: String.self).first
    guard encoding == "UTF8" else {
      throw .unsuitable(
        link.address.description,
        reason:
          "the database's encoding is \(encoding ?? "unknown"); Sift needs UTF8 (createdb -E UTF8)")
    }
  }
}
#endif
