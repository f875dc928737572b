#if Server
import Foundation
import PostgresNIO
import Sift

extension PostgresCatalog {
  /// Writes `document` as the catalog at `address`, replacing what was there, in one
  /// transaction: the items stream in through COPY, then the dictionary and the indexes are
  /// built; until it commits, every reader sees the old catalog, and a crash leaves it intact.
  ///
  /// - Parameter progress: the fraction done, from 0 to 1.
  public static func replace(
    _ address: PostgresAddress, with document: CatalogDocument,
    progress: @escaping @Sendable (Double) -> Void = { _ in }
  ) async throws(PostgresError) {
    let layout = CatalogLayout(document.schema)
    let schema: SearchSchema<Item>
    do {
      schema = try SearchSchema<Item>(document.schema)
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
      for statement in layout.creation(address.schemaName) {
        try await connection.execute(statement)
      }
      let total = max(1, document.items.count)
      // COPY takes one plain table name: reach the catalog's through the search path.
      try await connection.execute("SET LOCAL search_path TO \(name), public")
      // The letters tables are filled from the same rows, after the items.
      var letterLines = ByteBuffer()
      var counts = LetterCounts()
      try await connection.copyFrom(
        table: "items", columns: layout.copiedColumns, logger: PostgresLink.logger
      ) { writer in
        var buffer = ByteBuffer()
        for (order, item) in document.items.enumerated() {
          let row = try FoldedRow(item, schema: schema, layout: layout)
          buffer.writeString(row.copyLine(order: Int64(order)))
          letterLines.writeString(row.letterLines(order: Int64(order)))
          counts.add(row.letters, category: row.category, sign: 1)
          if buffer.readableBytes > 1 << 20 {
            try await writer.write(buffer)
            buffer.clear()
            progress(0.7 * Double(order) / Double(total))
          }
        }
        if buffer.readableBytes > 0 { try await writer.write(buffer) }
      }
      try await connection.copyFrom(
        table: "letters", columns: ["letter", "rank", "pop", "ord", "category"],
        logger: PostgresLink.logger
      ) { writer in try await writer.write(letterLines) }
      try await writeCounts(counts.changes, schemaName: address.schemaName, on: connection)
      progress(0.7)
      let wordColumns = layout.textFields.indices.map {
        "SELECT unnest(w\($0)) FROM \(name).items"
      }
      if !wordColumns.isEmpty {
        try await connection.execute(
          "INSERT INTO \(name).words SELECT DISTINCT w FROM (\(wordColumns.joined(separator: " UNION ALL "))) AS all_words(w) WHERE w IS NOT NULL"
        )
      }
      progress(0.8)
      for statement in layout.indexes(address.schemaName) {
        try await connection.execute(statement)
      }
      try await connection.execute(
        "INSERT INTO \(name).catalog VALUES ($1, $2::jsonb, $5, $3, $3, $4, $6, $7)",
        [
          .integer(Self.format), .text(schemaJSON), .integer(document.items.count),
          .text("sift"), .integer(Int(version)), .text(identity), .integer(Int(version - 1)),
        ])
      try await connection.execute(
        "INSERT INTO \(name).changes (version, kind) VALUES ($1, 'r')", [.integer(Int(version))])
      try await connection.execute(
        "SELECT pg_notify('\(changesChannel)', $1)",
        [.text("\(version) \(address.schemaName)")])
      try await connection.execute("ANALYZE \(name).items")
      try await connection.execute("ANALYZE \(name).letters")
      return ()
    }
    progress(1)
  }

  /// The database must hold UTF-8 and have pg_trgm (created here when allowed).
  private static func checkDatabase(_ link: PostgresLink) async throws(PostgresError) {
    let encoding = try await link.rows("SHOW server_encoding", as: String.self).first
    guard encoding == "UTF8" else {
      throw .unsuitable(
        link.address.description,
        reason:
          "the database's encoding is \(encoding ?? "unknown"); Sift needs UTF8 (createdb -E UTF8)")
    }
    let installed = try await link.rows(
      "SELECT count(*)::bigint FROM pg_extension WHERE extname = 'pg_trgm'", as: Int.self)
    guard installed.first == 0 else { return }
    do {
      try await link.run("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    } catch {
      // Another import may have created it at the same moment (IF NOT EXISTS is not atomic).
      let now = try await link.rows(
        "SELECT count(*)::bigint FROM pg_extension WHERE extname = 'pg_trgm'", as: Int.self)
      if now.first == 1 { return }
      throw .unsuitable(
        link.address.description,
        reason:
          "Sift needs the pg_trgm extension and could not create it (\(error)); ask the database's owner to run CREATE EXTENSION pg_trgm in \(link.address.database)"
      )
    }
  }
}
#endif
