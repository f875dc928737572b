#if Server
import Foundation
import PostgresNIO
import Sift

/// Keeping the letters tables (`LetterSummary`) in step with the items: written with them by an
/// import, changed by each edit in its transaction, rebuilt by the upgrade from format 1.
extension PostgresCatalog {
  /// Adds `changes` to the letter counts (new rows where none are yet).
  static func writeCounts(
    _ changes: [LetterCountChange], schemaName: String, on connection: PostgresConnection
  ) async throws {
    guard !changes.isEmpty else { return }
    // Rows in the order given (`WITH ORDINALITY`), so concurrent edits lock them alike.
    try await connection.execute(
      """
      INSERT INTO "\(schemaName)".letter_counts AS c (letter, category, matches, counted, starting)
      SELECT letter, CASE WHEN none = 1 THEN NULL ELSE category END, matches, counted, starting
      FROM unnest($1::integer[], $2::text[], $3::integer[], $4::integer[], $5::integer[],
        $6::integer[]) WITH ORDINALITY AS x(letter, category, none, matches, counted, starting, n)
      ORDER BY n
      ON CONFLICT (letter, category) DO UPDATE SET matches = c.matches + EXCLUDED.matches,
        counted = c.counted + EXCLUDED.counted, starting = c.starting + EXCLUDED.starting
      """,
      [
        .integers(changes.map(\.letter)), .texts(changes.map { $0.category ?? "" }),
        .integers(changes.map { $0.category == nil ? 1 : 0 }), .integers(changes.map(\.matches)),
        .integers(changes.map(\.counted)), .integers(changes.map(\.starting)),
      ])
  }

  /// An edit's share of the letters: the rows of the item at `order` replaced by `new`'s (none
  /// for a delete), the counts moved from `old` (none for an add) to `new`.
  func updateLetters(
    order: Int64, old: (summary: LetterSummary, category: String?)?, new: FoldedRow?,
    on connection: PostgresConnection
  ) async throws {
    let schemaName = address.schemaName
    if old != nil {
      try await connection.execute(
        "DELETE FROM \"\(schemaName)\".letters WHERE ord = $1", [.integer(Int(order))])
    }
    if let new, !new.letters.ranks.isEmpty {
      var binds: [SQLValue] = [
        .integers(new.letters.ranks.map(\.letter)), .integers(new.letters.ranks.map(\.rank)),
        .integer(Int(order)),
      ]
      let popularity = new.popularity.map { value -> String in
        binds.append(.number(value))
        return "$\(binds.count)::double precision"
      }
      let category = new.category.map { value -> String in
        binds.append(.text(value))
        return "$\(binds.count)::text"
      }
      try await connection.execute(
        """
        INSERT INTO "\(schemaName)".letters (letter, rank, pop, ord, category)
        SELECT letter, rank, \(popularity ?? "NULL"), $3, \(category ?? "NULL")
        FROM unnest($1::integer[], $2::integer[]) AS x(letter, rank)
        """, binds)
    }
    var counts = LetterCounts()
    if let old { counts.add(old.summary, category: old.category, sign: -1) }
    if let new { counts.add(new.letters, category: new.category, sign: 1) }
    try await Self.writeCounts(counts.changes, schemaName: schemaName, on: connection)
  }

  /// Fills the letters tables and columns of a catalog that has none (format 1) from its
  /// folded columns, in the caller's transaction.
  static func rebuildLetters(
    schemaName: String, layout: CatalogLayout, on connection: PostgresConnection
  ) async throws {
    let s = "\"\(schemaName)\""
    let (letterLines, masks, counts) = try await summaries(
      schemaName: schemaName, layout: layout, on: connection)
    try await connection.execute(
      "CREATE TEMPORARY TABLE letter_masks (ord bigint, lh integer, lw integer, lv integer) ON COMMIT DROP"
    )
    try await connection.execute("SET LOCAL search_path TO \(s), public")
    for (table, columns, lines) in [
      ("letter_masks", ["ord", "lh", "lw", "lv"], masks),
      ("letters", ["letter", "rank", "pop", "ord", "category"], letterLines),
    ] {
      try await connection.copyFrom(table: table, columns: columns, logger: PostgresLink.logger) {
        writer in
        try await writer.write(ByteBuffer(string: lines))
      }
    }
    try await connection.execute(
      "UPDATE \(s).items i SET lh = m.lh, lw = m.lw, lv = m.lv FROM letter_masks m WHERE i.ord = m.ord"
    )
    try await writeCounts(counts.changes, schemaName: schemaName, on: connection)
    for statement in layout.letterIndexes(schemaName) { try await connection.execute(statement) }
  }

  /// Replaces the ranks of the letters table (format 2) with ranks made by today's rules; the
  /// masks and counts do not depend on them.
  static func rerankLetters(
    schemaName: String, layout: CatalogLayout, on connection: PostgresConnection
  ) async throws {
    let (letterLines, _, _) = try await summaries(
      schemaName: schemaName, layout: layout, on: connection)
    try await connection.execute("DELETE FROM \"\(schemaName)\".letters")
    try await connection.execute("SET LOCAL search_path TO \"\(schemaName)\", public")
    try await connection.copyFrom(
      table: "letters", columns: ["letter", "rank", "pop", "ord", "category"],
      logger: PostgresLink.logger
    ) { writer in
      try await writer.write(ByteBuffer(string: letterLines))
    }
  }

  /// Every item's `LetterSummary`, from its folded columns: the letters table's lines, the
  /// masks' lines and the counts, as `COPY` and `writeCounts` take them.
  private static func summaries(
    schemaName: String, layout: CatalogLayout, on connection: PostgresConnection
  ) async throws -> (letterLines: String, masks: String, counts: LetterCounts) {
    let texts = layout.textFields.indices.map { "t\($0)" }
    let popularity = layout.popularity.column
    let rows = try await connection.execute(
      "SELECT ord, category, \(popularity), ARRAY[\((texts + ["''"]).joined(separator: ", "))] FROM \"\(schemaName)\".items"
    )
    var letterLines = ""
    var masks = ""
    var counts = LetterCounts()
    for try await (order, category, pop, folded) in rows.decode(
      (Int, String?, Double?, [String]).self)
    {
      let summary = layout.letterSummary(folded: Array(folded.dropLast()), popularity: pop)
      counts.add(summary, category: category, sign: 1)
      masks += "\(order)\t\(summary.held)\t\(summary.startingWords)\t\(summary.startingValues)\n"
      letterLines += FoldedRow.letterLines(
        summary.ranks, popularity: pop, order: Int64(order), category: category)
    }
    return (letterLines, masks, counts)
  }
}
#endif
