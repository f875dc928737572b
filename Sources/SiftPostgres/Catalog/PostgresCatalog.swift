#if Server
import Foundation
import PostgresNIO
import Sift

/// A catalog kept in PostgreSQL: the schema `sift_NAME` holds the items with their fields (JSON)
/// and Sift's folded text beside them, the word dictionary for near spellings, and the catalog's
/// schema and format. Searches are compiled to SQL (`search(_:)`), so every server in front of
/// the database sees every edit on its next search.
public final class PostgresCatalog: Sendable {
  /// The format this Sift writes; a catalog with a higher one is refused.
  public static let format = 7
  /// Upgrades from each older format to the next, in order, each in the upgrade's
  /// transaction: 1 → 2 adds what one-letter searches read (`LetterSummary`); 2 → 3 ranks
  /// them again, with the attribute of the value that decides the exactness (issue 29); 3 → 4
  /// ranks them as a word still being typed ranks (`MatchRequest.isTyping`); 4 → 5 adds the
  /// function that finds a value starting with a near spelling (`CatalogLayout.nearStartFunction`);
  /// 5 → 6 folds apostrophes away, as `TextFolding` now does ("divoire" finds "d'Ivoire");
  /// 6 → 7 adds the change log that nodes follow (`CatalogLayout.changesTable`), explaining the
  /// changes after the version the catalog is at.
  static let migrations:
    [Int: @Sendable (CatalogLayout, String, PostgresConnection) async throws -> Void] = [
      1: { layout, schemaName, connection in
        for column in CatalogLayout.letterColumns {
          try await connection.execute(
            "ALTER TABLE \"\(schemaName)\".items ADD COLUMN \(column) integer NOT NULL DEFAULT 0")
        }
        for statement in layout.letterTables(schemaName) { try await connection.execute(statement) }
        try await rebuildLetters(schemaName: schemaName, layout: layout, on: connection)
      },
      2: { layout, schemaName, connection in
        try await rerankLetters(schemaName: schemaName, layout: layout, on: connection)
      },
      3: { layout, schemaName, connection in
        try await rerankLetters(schemaName: schemaName, layout: layout, on: connection)
      },
      4: { layout, schemaName, connection in
        try await connection.execute(layout.nearStartFunction(schemaName))
      },
      5: { layout, schemaName, connection in
        try await refoldApostrophes(schemaName: schemaName, layout: layout, on: connection)
      },
      6: { _, schemaName, connection in
        try await connection.execute(CatalogLayout.changesTable(schemaName))
        try await connection.execute(
          """
          ALTER TABLE "\(schemaName)".catalog
            ADD COLUMN identity text NOT NULL DEFAULT md5(random()::text || clock_timestamp()),
            ADD COLUMN log_start bigint NOT NULL DEFAULT 0
          """)
        try await connection.execute("UPDATE \"\(schemaName)\".catalog SET log_start = generation")
      },
    ]

  public let address: PostgresAddress
  /// The schema as opened, with the synonyms saved since.
  public var schema: CatalogSchema {
    var schema = openedSchema
    schema.synonyms = synonyms.value
    return schema
  }
  private let openedSchema: CatalogSchema
  private let synonyms: SynonymsBox
  let layout: CatalogLayout
  let searchSchema: SearchSchema<Item>
  let link: PostgresLink
  /// How much of the change log writes through this catalog keep.
  public let retention: Retention

  private init(
    address: PostgresAddress, schema: CatalogSchema, link: PostgresLink, retention: Retention
  ) throws(PostgresError) {
    self.address = address
    self.retention = retention
    openedSchema = schema
    synonyms = SynonymsBox(schema.synonyms)
    layout = CatalogLayout(schema)
    do {
      searchSchema = try SearchSchema<Item>(schema)
    } catch {
      throw .unsuitable(address.description, reason: "its schema is not valid: \(error)")
    }
    self.link = link
  }

  var table: String { "\"\(address.schemaName)\".items" }
  var words: String { "\"\(address.schemaName)\".words" }
  var catalogTable: String { "\"\(address.schemaName)\".catalog" }

  /// Opens the catalog at `address`: reads its schema, refusing a newer format and upgrading an
  /// older one. `retention`: how much of the change log this catalog's writes keep.
  public static func open(
    _ address: PostgresAddress, retention: Retention = Retention()
  ) async throws(PostgresError) -> PostgresCatalog {
    let link = PostgresLink(address: address)
    do {
      let schema = try await readSchema(link)
      return try PostgresCatalog(address: address, schema: schema, link: link, retention: retention)
    } catch {
      await link.close()
      throw error
    }
  }

  public func close() async { await link.close() }

  /// The most connections to the database this catalog had open at once (at most
  /// `PostgresLink.connectionLimit`, however many requests come together).
  package var peakConnections: Int { link.peakConnections }

  private static func readSchema(_ link: PostgresLink) async throws(PostgresError) -> CatalogSchema
  {
    let address = link.address
    let exists = try await link.rows(
      "SELECT to_regclass($1) IS NOT NULL", [.text("\"\(address.schemaName)\".catalog")],
      as: Bool.self)
    guard exists.first == true else { throw .notFound(address.description) }
    let rows = try await link.rows(
      "SELECT format, schema::text FROM \"\(address.schemaName)\".catalog", as: (Int, String).self)
    guard let (format, json) = rows.first else { throw .notFound(address.description) }
    if format > Self.format {
      throw .newerFormat(address.description, found: format, supported: Self.format)
    }
    let schema: CatalogSchema
    do {
      schema = try JSONDecoder().decode(CatalogSchema.self, from: Data(json.utf8))
    } catch {
      throw .unsuitable(address.description, reason: "its schema cannot be read: \(error)")
    }
    if format < Self.format { try await migrate(link, layout: CatalogLayout(schema)) }
    return schema
  }

  /// Upgrades the catalog to `Self.format` in one transaction, under the lock an import takes
  /// (two processes opening an old catalog at once upgrade it once).
  private static func migrate(
    _ link: PostgresLink, layout: CatalogLayout
  ) async throws(PostgresError) {
    let schemaName = link.address.schemaName
    let description = link.address.description
    _ = try await link.transaction { connection in
      try await connection.execute(
        "SELECT pg_advisory_xact_lock(hashtext($1))", [.text(schemaName)])
      var format = Self.format
      for try await found in try await connection.execute(
        "SELECT format FROM \"\(schemaName)\".catalog"
      ).decode(Int.self) {
        format = found
      }
      for version in format..<Self.format {
        guard let step = migrations[version] else {
          throw PostgresError.unsuitable(
            description, reason: "no upgrade from format \(version) to \(version + 1)")
        }
        try await step(layout, schemaName, connection)
      }
      try await connection.execute(
        "UPDATE \"\(schemaName)\".catalog SET format = \(Self.format)")
      return ()
    }
  }

  // MARK: - Reading items

  /// How many items the catalog holds: kept in the catalog row by every edit, so the results
  /// indicator costs one row rather than a count of the items on every search.
  public func count() async throws(PostgresError) -> Int {
    try await link.rows("SELECT item_count FROM \(catalogTable)", as: Int.self).first ?? 0
  }

  /// The items with these ids, in the order given (ids not found are left out).
  public func items(_ ids: [ItemID]) async throws(PostgresError) -> [Item] {
    guard !ids.isEmpty else { return [] }
    let rows = try await link.rows(
      "SELECT id, fields::text FROM \(table) WHERE id = ANY($1)", [.texts(ids.map(\.rawValue))],
      as: (String, String).self)
    var byID: [String: Item] = [:]
    for (id, fields) in rows { byID[id] = try FoldedRow.item(id: id, fields: fields) }
    return ids.compactMap { byID[$0.rawValue] }
  }

  /// Every item, in catalog order.
  public func document() async throws(PostgresError) -> CatalogDocument {
    let rows = try await link.rows(
      "SELECT id, fields::text FROM \(table) ORDER BY ord", as: (String, String).self)
    var items: [Item] = []
    items.reserveCapacity(rows.count)
    for (id, fields) in rows { items.append(try FoldedRow.item(id: id, fields: fields)) }
    return CatalogDocument(schema: schema, items: items)
  }

  // MARK: - Edits

  /// Adds an item at the end of catalog order; its words join the dictionary in the same
  /// transaction. Without an id it gets the next number after the largest numeric id, as a
  /// .sqlite catalog gives it. Returns the id, or nil when an item has that id already.
  public func add(
    _ fields: [String: FieldValue], id: ItemID? = nil
  ) async throws(PostgresError) -> ItemID? {
    try await write(
      Item(id: id ?? ItemID(""), fields: fields), isNew: true, allocatesID: id == nil)?
      .id
  }

  /// Adds `item`; an item with its id already is an error.
  public func add(_ item: Item) async throws(PostgresError) {
    guard try await add(item.fields, id: item.id) != nil else {
      throw .query(
        address.description, message: "an item with id \"\(item.id.rawValue)\" already exists")
    }
  }

  /// Replaces the item with the same id; it keeps its place. False when there is none.
  @discardableResult
  public func update(_ item: Item) async throws(PostgresError) -> Bool {
    try await write(item, isNew: false, allocatesID: false) != nil
  }

  /// Deletes the item; false when there was none with that id.
  @discardableResult
  public func delete(id: ItemID) async throws(PostgresError) -> Bool {
    try await deleted(id) != nil
  }

  /// Deletes the item; the version of the change, nil when there was none with that id.
  private func deleted(_ id: ItemID) async throws(PostgresError) -> Int64? {
    try await link.transaction { connection -> Int64? in
      // The item and the catalog's count change together, with the item's letters.
      let rows = try await connection.execute(
        """
        WITH gone AS (DELETE FROM \(table) WHERE id = $1 RETURNING ord, lh, lw, lv, category),
          counted AS (UPDATE \(catalogTable) SET generation = generation + 1,
            item_count = item_count - (SELECT count(*) FROM gone))
        SELECT * FROM gone
        """, [.text(id.rawValue)])
      var gone: (order: Int, summary: LetterSummary, category: String?)?
      for try await (order, held, words, values, category) in rows.decode(
        (Int, Int32, Int32, Int32, String?).self)
      {
        let summary = LetterSummary(held: held, startingWords: words, startingValues: values)
        gone = (order, summary, category)
      }
      // Nothing deleted: the generation's bump is rolled back.
      guard let gone else { return nil }
      try await updateLetters(
        order: Int64(gone.order), old: (gone.summary, gone.category), new: nil, on: connection)
      return try await log(.delete, id: id.rawValue, on: connection)
    }
  }

  /// Writes the item's row, its words and its entry in the change log in one transaction; the
  /// item's id and the change's version, nil when an add found its id taken or an update found
  /// no item. Adds hold the catalog's lock (the one an import holds), so two servers never give
  /// out the same id.
  private func write(
    _ item: Item, isNew: Bool, allocatesID: Bool
  ) async throws(PostgresError) -> (id: ItemID, version: Int64)? {
    var row = try FoldedRow(item, schema: searchSchema, layout: layout)
    var columns = ["fields", "category"]
    var binds: [SQLValue] = [.text(row.fields)]
    var values = ["$1::jsonb"]
    func bind(_ value: SQLValue?, cast: String) {
      if let value {
        binds.append(value)
        values.append("$\(binds.count)::\(cast)")
      } else {
        values.append("NULL")
      }
    }
    bind(row.category.map(SQLValue.text), cast: "text")
    for (index, text) in row.texts.enumerated() {
      columns += ["t\(index)", "k\(index)"]
      bind(.text(text.folded), cast: "text")
      bind(text.initials.map(SQLValue.text), cast: "text")
    }
    for (index, number) in row.numbers.enumerated() {
      columns.append("n\(index)")
      bind(number.map(SQLValue.number), cast: "double precision")
    }
    let masks = [row.letters.held, row.letters.startingWords, row.letters.startingValues]
    for (column, mask) in zip(CatalogLayout.letterColumns, masks) {
      columns.append(column)
      bind(.integer(Int(mask)), cast: "integer")
    }
    binds.append(.text(row.id))
    let idIndex = binds.count - 1
    let id = "$\(binds.count)"
    // The row's place and words (for the dictionary).
    let wordColumns = layout.textFields.indices.map { "w\($0)" }
    let returning =
      "ord, " + (wordColumns.isEmpty ? "'{}'::text[]" : wordColumns.joined(separator: " || "))
    let sql: String
    if isNew {
      sql = """
        WITH next AS (UPDATE \(catalogTable) SET next_ord = next_ord + 1,
          item_count = item_count + 1, generation = generation + 1 RETURNING next_ord - 1 AS ord)
        INSERT INTO \(table) (id, ord, \(columns.joined(separator: ", ")))
        SELECT \(id), next.ord, \(values.joined(separator: ", ")) FROM next RETURNING \(returning)
        """
    } else {
      let assignments = zip(columns, values).map { "\($0) = \($1)" }.joined(separator: ", ")
      sql = """
        WITH bump AS (UPDATE \(catalogTable) SET generation = generation + 1 RETURNING 1)
        UPDATE \(table) SET \(assignments) FROM bump WHERE id = \(id) RETURNING \(returning)
        """
    }
    return try await link.transaction { connection -> (id: ItemID, version: Int64)? in
      var old: (summary: LetterSummary, category: String?)?
      if isNew {
        try await connection.execute(
          "SELECT pg_advisory_xact_lock(hashtext($1))", [.text(address.schemaName)])
        if allocatesID {
          row.id = try await nextID(connection)
          binds[idIndex] = .text(row.id)
        } else if try await isTaken(row.id, connection) {
          return nil
        }
      } else {
        // What the item counted for until now; locked, so a concurrent edit waits for this one.
        guard let previous = try await letters(of: row.id, lockedOn: connection) else { return nil }
        old = previous
      }
      var written: (order: Int, words: [String])?
      for try await (order, words) in try await connection.execute(sql, binds).decode(
        (Int, [String]).self)
      {
        written = (order, words)
      }
      // Nothing written (an update's generation bump is rolled back with it).
      guard let written else { return nil }
      if !written.words.isEmpty {
        try await connection.execute(
          "INSERT INTO \(self.words) SELECT DISTINCT unnest($1::text[]) ON CONFLICT DO NOTHING",
          [.texts(written.words)])
      }
      try await updateLetters(
        order: Int64(written.order), old: old, new: row, on: connection)
      return (ItemID(row.id), try await log(.put, id: row.id, on: connection))
    }
  }

  /// The letter masks and category of the item with this id, its row locked until the
  /// transaction ends; nil when there is none.
  private func letters(
    of id: String, lockedOn connection: PostgresConnection
  ) async throws -> (summary: LetterSummary, category: String?)? {
    let rows = try await connection.execute(
      "SELECT lh, lw, lv, category FROM \(table) WHERE id = $1 FOR UPDATE", [.text(id)])
    var found: (summary: LetterSummary, category: String?)?
    for try await (held, words, values, category) in rows.decode(
      (Int32, Int32, Int32, String?).self)
    {
      found = (LetterSummary(held: held, startingWords: words, startingValues: values), category)
    }
    return found
  }

  /// The id an add without one would get now (another writer may take it first: the add then
  /// finds it taken).
  public func nextItemID() async throws(PostgresError) -> ItemID {
    ItemID(try await link.with { connection in try await nextID(connection) })
  }

  /// Writes one edit and its entry in the change log in one transaction; the item's id (for an
  /// add without one, the id it got) and the change's version, or nil when the edit does not
  /// fit the items now — an add's id taken, an update's or a delete's item gone (another writer
  /// may have been first).
  public func commit(_ edit: CatalogEdit) async throws(PostgresError) -> CatalogCommit? {
    switch edit {
    case .add(let id, let fields):
      try await write(
        Item(id: id ?? ItemID(""), fields: fields), isNew: true, allocatesID: id == nil
      )
      .map { CatalogCommit(id: $0.id, version: $0.version) }
    case .update(let item):
      try await write(item, isNew: false, allocatesID: false)
        .map { CatalogCommit(id: $0.id, version: $0.version) }
    case .delete(let id):
      try await deleted(id).map { CatalogCommit(id: id, version: $0) }
    }
  }

  /// Whether an item has `id`.
  private func isTaken(_ id: String, _ connection: PostgresConnection) async throws -> Bool {
    let rows = try await connection.execute(
      "SELECT count(*) FROM \(table) WHERE id = $1", [.text(id)])
    for try await count in rows.decode(Int.self) { return count > 0 }
    return false
  }

  /// The number after the largest numeric id (its leading digits, as SQLite's CAST reads
  /// them), skipping ids taken.
  private func nextID(_ connection: PostgresConnection) async throws -> String {
    let rows = try await connection.execute(
      "SELECT coalesce(max(substring(id FROM '^[0-9]+')::numeric), 0)::text FROM \(table)")
    var largest = "0"
    for try await text in rows.decode(String.self) { largest = text }
    guard var candidate = Int64(largest), candidate < Int64.max else {
      throw PostgresError.unsupported("catalog \(address): no numeric id is left after \(largest)")
    }
    repeat { candidate += 1 } while try await isTaken(String(candidate), connection)
    return String(candidate)
  }
}

extension PostgresCatalog {
  /// Saves `synonyms` in the catalog's schema row; this catalog's next search uses them (another
  /// server on the same database reads them when it opens the catalog).
  @discardableResult
  public func saveSynonyms(_ synonyms: Synonyms) async throws(PostgresError) -> Int64 {
    var schema = self.schema
    schema.synonyms = synonyms
    let json: String
    do {
      json = String(decoding: try JSONEncoder().encode(schema), as: UTF8.self)
    } catch {
      throw .unsuitable(address.description, reason: "its schema could not be written: \(error)")
    }
    let version = try await link.transaction { connection -> Int64? in
      try await connection.execute(
        "UPDATE \(catalogTable) SET schema = $1::jsonb, generation = generation + 1",
        [.text(json)])
      return try await log(.synonyms, id: nil, on: connection)
    }
    self.synonyms.value = synonyms
    return version ?? 0
  }
}

/// The synonyms a catalog searches with, replaced while searches read them.
final class SynonymsBox: @unchecked Sendable {
  // `@unchecked`: `stored` is read and written under `lock` only.
  private let lock = NSLock()
  private var stored: Synonyms

  init(_ synonyms: Synonyms) { stored = synonyms }

  var value: Synonyms {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}
#endif
