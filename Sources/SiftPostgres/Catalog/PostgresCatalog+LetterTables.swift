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
    // One upgrade may rebuild the letters twice (format 1 → 2, then 5 → 6): the table of the
    // first stays until the transaction ends.
    try await connection.execute(
      "CREATE TEMPORARY TABLE IF NOT EXISTS letter_masks (ord bigint, lh integer, lw integer, lv integer) ON COMMIT DROP"
    )
    try await connection.execute("TRUNCATE letter_masks")
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

  /// The characters folding dropped from format 6 on, kept in the folded columns before:
  /// the apostrophes and the letters written like them. Removing them from text folded the
  /// old way gives the text folded the new way, as every other scalar folds as before.
  static let droppedApostrophes = "'\u{2018}\u{2019}\u{02BC}\u{02BB}\u{02BF}\u{02BE}\u{02B9}"

  /// Format 5 → 6: the folded columns (text, initials, category) without the apostrophes, and
  /// what is made from them — words, letters and their counts — made again.
  static func refoldApostrophes(
    schemaName: String, layout: CatalogLayout, on connection: PostgresConnection
  ) async throws {
    let s = "\"\(schemaName)\""
    let dropped = SQLValue.text(droppedApostrophes)
    var columns = ["category"]
    for index in layout.textFields.indices { columns += ["t\(index)", "k\(index)"] }
    let sets = columns.map { "\($0) = translate(\($0), $1, '')" }.joined(separator: ", ")
    let touched = columns.map { "\($0) ~ ('[' || $1 || ']')" }.joined(separator: " OR ")
    try await connection.execute("UPDATE \(s).items SET \(sets) WHERE \(touched)", [dropped])
    try await connection.execute("DELETE FROM \(s).words")
    let wordColumns = layout.textFields.indices.map { "SELECT unnest(w\($0)) FROM \(s).items" }
    if !wordColumns.isEmpty {
      try await connection.execute(
        "INSERT INTO \(s).words SELECT DISTINCT w FROM (\(wordColumns.joined(separator: " UNION ALL "))) AS all_words(w) WHERE w IS NOT NULL"
      )
    }
    try await connection.execute("DELETE FROM \(s).letters")
    try await connection.execute("DELETE FROM \(s).letter_counts")
    for index in ["letters_page", "letters_scoped", "letters_by_ord"] {
      try await connection.execute("DROP INDEX IF EXISTS \(s).\(index)")
    }
    try await rebuildLetters(schemaName: schemaName, layout: layout, on: connection)
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
