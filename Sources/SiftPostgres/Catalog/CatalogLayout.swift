#if Server
import Sift

/// Where each of a catalog's fields lives in its `items` table: text field `i` (schema order) as
/// folded text `t<i>` (the values joined by U+001F), its Hangul initial-consonant keys `k<i>`
/// and its distinct words `w<i>`; number field `j` as `n<j>`; the folded category as
/// `category`. The same order as the engine's columns, so attributes agree.
struct CatalogLayout: Sendable {
  let schema: CatalogSchema
  let textFields: [FieldDefinition]
  let numberFields: [FieldDefinition]
  /// The title's index among `textFields`.
  let titleColumn: Int?
  /// The ranking field's index among `numberFields`.
  let rankingColumn: Int?

  /// Separates a field's values in a folded column, as the engine's 0 byte does: a word
  /// boundary, and a byte folded text of real names does not hold.
  static let valueSeparator = "\u{1F}"

  /// A regular-expression class of the bytes that separate words (`NearSpelling.isWordBoundary`:
  /// ASCII that is neither a letter nor a digit).
  static let boundaryClass = #"[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]"#
  static let wordClass = #"[^\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]"#

  init(_ schema: CatalogSchema) {
    self.schema = schema
    textFields = schema.fields.filter { $0.kind == .text }
    numberFields = schema.fields.filter { $0.kind == .number }
    titleColumn = textFields.firstIndex { $0.name == schema.titleField }
    let ranking = schema.rankingField?.field
    rankingColumn = numberFields.firstIndex { $0.name == ranking }
  }

  /// The popularity column (`pop`: the ranking field's, or NULL) and its direction, for
  /// `ORDER BY`: ranked rows go by rank, then this, then catalog order.
  var popularity: (column: String, order: String) {
    (
      rankingColumn.map { "n\($0)" } ?? "NULL::double precision",
      schema.rankingField?.isAscending == true ? "ASC NULLS LAST" : "DESC NULLS LAST"
    )
  }

  /// The column and direction results are sorted by for `sort` (`SearchIndex.sortKey`'s order:
  /// numbers with no value last either way, the folded title byte by byte); nil: relevance.
  func sortOrder(
    _ sort: SearchSort?, near: SearchNear? = nil
  ) -> (column: String, order: String)? {
    guard let sort else { return nil }
    let direction = sort.isDescending ? "DESC" : "ASC"
    if let column = numberFields.firstIndex(where: { $0.name == sort.field }) {
      return ("n\(column)", direction + " NULLS LAST")
    }
    if sort.field == schema.titleField, let titleColumn {
      return ("t\(titleColumn) COLLATE \"C\"", direction)
    }
    if sort.isDistance, let near, let distance = distanceSQL(near) {
      return (distance, direction + " NULLS LAST")
    }
    return nil
  }

  /// What `ORDER BY` puts before the rank (`rank`, a column of packed ranks; nil: every row
  /// unranked) and popularity, for `request`'s sort or place: the sort's value; near a place
  /// without a sort, the rank's typos and exactness and then the distance
  /// (`SortPlan.afterExactness`); empty for relevance. Ends with ", " when not empty.
  func order(_ request: MatchRequest, rank: String?) -> String {
    if let sort = sortOrder(request.sort, near: request.near) {
      return "\(sort.column) \(sort.order), "
    }
    guard request.sort == nil, let near = request.near, let distance = distanceSQL(near) else {
      return ""
    }
    return (rank.map { "\($0) >> 7, " } ?? "") + "\(distance) NULLS LAST, "
  }

  /// The latitude and longitude columns, when the schema has a location.
  var locationColumns: (latitude: Int, longitude: Int)? {
    guard let location = schema.location,
      let latitude = numberFields.firstIndex(where: { $0.name == location.latitude }),
      let longitude = numberFields.firstIndex(where: { $0.name == location.longitude })
    else { return nil }
    return (latitude, longitude)
  }

  /// A row's distance from `near`'s place in whole metres, NULL without a location: the
  /// engine's `GeoPoint.meters` written out operation for operation, its constants as the
  /// engine has them, so both give the same metres bit for bit (the same C library computes
  /// the sines). The values are numbers the engine checked, written as literals.
  func distanceSQL(_ near: SearchNear) -> String? {
    guard let (latitude, longitude) = locationColumns else { return nil }
    func literal(_ value: Double) -> String { "'\(value)'::float8" }
    let k = literal(GeoPoint.radiansPerDegree)
    let (pointLatitude, pointLongitude) = (
      literal(near.point.latitude), literal(near.point.longitude)
    )
    let halfLatitude = "sin((n\(latitude) - \(pointLatitude)) * \(k) / '2'::float8)"
    let halfLongitude = "sin((n\(longitude) - \(pointLongitude)) * \(k) / '2'::float8)"
    let a =
      "\(halfLatitude) * \(halfLatitude) + cos(\(pointLatitude) * \(k)) * cos(n\(latitude) * \(k))"
      + " * \(halfLongitude) * \(halfLongitude)"
    return "(CASE WHEN abs(n\(latitude)) <= 90 AND abs(n\(longitude)) <= 180 THEN "
      + "floor(\(literal(2 * GeoPoint.earthRadius)) * asin(least('1'::float8, sqrt(\(a)))) + '0.5'::float8) END)"
  }

  /// The test that keeps a row within `near`'s radius: a latitude band first (the column's
  /// index answers it: a degree of latitude is 111 km everywhere), then the distance. Nil
  /// without a radius or a location.
  func withinSQL(_ near: SearchNear) -> String? {
    guard let radius = near.withinMeters, let (latitude, _) = locationColumns,
      let distance = distanceSQL(near)
    else { return nil }
    let band = (Double(radius) + 2) / (GeoPoint.earthRadius * GeoPoint.radiansPerDegree)
    return "(n\(latitude) BETWEEN '\(near.point.latitude - band)'::float8"
      + " AND '\(near.point.latitude + band)'::float8 AND \(distance) <= \(radius))"
  }

  /// `CatalogSchema.magnitude(ofPopularity:)` in SQL, of the row's `pop`: how many of 1, 10,
  /// … 10^9 it reaches.
  var magnitudeSQL: String {
    guard rankingColumn != nil, schema.weighsMagnitude else { return "0" }
    let powers = (0...9).map { "1e\($0)" }.joined(separator: ",")
    return "coalesce(width_bucket(pop, ARRAY[\(powers)]::double precision[]), 0)"
  }

  /// The engine's attribute of a text column: the title first, then the others in order.
  func attribute(ofText column: Int) -> Int {
    MatchRank.attribute(ofText: column, titleColumn: titleColumn)
  }

  /// Number columns come after every text field.
  func attribute(ofNumber column: Int) -> Int { textFields.count + column }

  /// The text columns a search naming no field looks in, with their attributes: what the
  /// letters of `LetterSummary` are read from.
  var unfieldedTextColumns: [(column: Int, attribute: Int)] {
    textFields.indices.filter { textFields[$0].isSearchable }.map { ($0, attribute(ofText: $0)) }
  }

  /// The item's `LetterSummary`, from its folded text columns (`t<i>`, in order) and its
  /// popularity.
  func letterSummary(folded texts: [String], popularity: Double?) -> LetterSummary {
    LetterSummary(
      columns: unfieldedTextColumns.map { (texts[$0.column][...].utf8, $0.attribute) },
      magnitude: schema.magnitude(ofPopularity: popularity))
  }

  /// The columns COPY writes, in order (the word arrays are generated by the server).
  var copiedColumns: [String] {
    ["id", "ord", "fields", "category"] + textFields.indices.flatMap { ["t\($0)", "k\($0)"] }
      + numberFields.indices.map { "n\($0)" } + Self.letterColumns
  }

  /// An item's `LetterSummary` masks: letters held, starting a word, starting a value.
  static let letterColumns = ["lh", "lw", "lv"]

  /// The statements that create the catalog's schema, functions and tables (format 1).
  func creation(_ schemaName: String) -> [String] {
    let s = "\"\(schemaName)\""
    let boundary = Self.boundaryClass
    let word = Self.wordClass
    var columns = [
      "id text PRIMARY KEY", "ord bigint NOT NULL", "fields jsonb NOT NULL", "category text",
    ]
    for index in textFields.indices {
      columns.append("t\(index) text NOT NULL")
      columns.append("k\(index) text")
      columns.append("w\(index) text[] GENERATED ALWAYS AS (\(s).words(t\(index))) STORED")
    }
    for index in numberFields.indices { columns.append("n\(index) double precision") }
    columns += Self.letterColumns.map { "\($0) integer NOT NULL DEFAULT 0" }
    return [
      "CREATE SCHEMA \(s)",
      """
      CREATE TABLE \(s).catalog (
        format integer NOT NULL, schema jsonb NOT NULL, generation bigint NOT NULL,
        next_ord bigint NOT NULL, item_count bigint NOT NULL, written_by text NOT NULL,
        identity text NOT NULL, log_start bigint NOT NULL DEFAULT 0)
      """,
      Self.changesTable(schemaName),
      // The distinct words of a folded column (the engine's runs of non-boundary bytes).
      """
      CREATE FUNCTION \(s).words(t text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT coalesce(array_agg(DISTINCT w), '{}') FROM regexp_split_to_table(t, '\(boundary)+') w
        WHERE w <> '' $$
      """,
      // The index, in its value, of the word holding the first occurrence of n (at most 7).
      """
      CREATE FUNCTION \(s).word_position(t text, n text) RETURNS integer LANGUAGE sql IMMUTABLE
      PARALLEL SAFE AS $$
        SELECT CASE WHEN p = 0 THEN NULL ELSE least(greatest(regexp_count(
          regexp_replace(substr(t, 1, p - 1), '^.*\\x1f', '') || left(n, 1),
          '(^|\(boundary))\(word)') - 1, 0), 7) END
        FROM (SELECT strpos(t, n) AS p) found $$
      """,
      // The cheapest near word of t among nw (costs nc): cost * 1024 + base + its word's index
      // in its value (at most 7); the earliest word wins ties. Null when none is there.
      """
      CREATE FUNCTION \(s).near(t text, nw text[], nc integer[], base integer) RETURNS integer
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT nc[k] * 1024 + base + least(wi - 1, 7)::integer
        FROM unnest(string_to_array(t, E'\\x1f')) WITH ORDINALITY AS v(value, vi),
          LATERAL regexp_matches(v.value, '\(word)+', 'g') WITH ORDINALITY AS m(word, wi),
          LATERAL (SELECT array_position(nw, m.word[1]) AS k) position
        WHERE k IS NOT NULL ORDER BY nc[k], vi, wi LIMIT 1 $$
      """,
      nearStartFunction(schemaName),
      "CREATE TABLE \(s).items (\(columns.joined(separator: ", ")))",
      "CREATE TABLE \(s).words (word text PRIMARY KEY)",
    ] + letterTables(schemaName)
  }

  /// The change log (format 7): one row per version, written in the change's transaction. `kind`
  /// is `p` (the item with `id` put: added, replaced or merged — its row holds it now), `d` (the
  /// item with `id` deleted), `s` (the synonyms replaced) or `r` (the whole catalog replaced: an
  /// import, a schema). `catalog.generation` is the latest version; `catalog.log_start` the
  /// version the log explains changes after (older entries were let go).
  static func changesTable(_ schemaName: String) -> String {
    """
    CREATE TABLE "\(schemaName)".changes (version bigint PRIMARY KEY, kind "char" NOT NULL,
      id text, at timestamptz NOT NULL DEFAULT now())
    """
  }

  /// The best value of t that starts with a word that is a near spelling (nw, with costs nc, and whether
  /// the spelling is the whole word nwhole), as `SearchSQL` keys it: (edits × penalty − points
  /// + 16) × 8 + edits, where the points are equal_points when the value is that whole word,
  /// else start_points (`SearchIndex.nearStart`). Null when no value starts so.
  func nearStartFunction(_ schemaName: String) -> String {
    """
    CREATE OR REPLACE FUNCTION "\(schemaName)".near_start(t text, nw text[], nc integer[], nwhole boolean[],
      equal_points integer, start_points integer, penalty integer) RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT min((nc[k] * penalty - CASE WHEN nwhole[k] AND v.value = f.word
        THEN equal_points ELSE start_points END + 16) * 8 + nc[k])
      FROM unnest(string_to_array(t, E'\\x1f')) AS v(value),
        LATERAL (SELECT (regexp_match(v.value, '^\(Self.wordClass)+'))[1] AS word) f,
        LATERAL (SELECT array_position(nw, f.word) AS k) position
      WHERE k IS NOT NULL $$
    """
  }

  /// What a one-letter search reads (`LetterSummary`): per item and letter starting one of its
  /// values, the item's rank for that letter; per letter and category, how many items hold the
  /// letter, have a word starting with it, have a value starting with it.
  func letterTables(_ schemaName: String) -> [String] {
    let s = "\"\(schemaName)\""
    return [
      """
      CREATE TABLE \(s).letters (letter smallint NOT NULL, rank smallint NOT NULL,
        pop double precision, ord bigint NOT NULL, category text)
      """,
      """
      CREATE TABLE \(s).letter_counts (letter smallint NOT NULL, category text,
        matches bigint NOT NULL, counted bigint NOT NULL, starting bigint NOT NULL)
      """,
      """
      CREATE UNIQUE INDEX letter_counts_key ON \(s).letter_counts (letter, category)
        NULLS NOT DISTINCT
      """,
    ]
  }

  /// The letters' indexes: a page in ranked order (`SearchSQL`'s order) for a letter, alone or
  /// within a category, and an item's rows for its edits.
  func letterIndexes(_ schemaName: String) -> [String] {
    let s = "\"\(schemaName)\""
    let order = "rank, pop \(popularity.order), ord"
    return [
      "CREATE INDEX letters_page ON \(s).letters (letter, \(order))",
      "CREATE INDEX letters_scoped ON \(s).letters (letter, category, \(order))",
      "CREATE INDEX letters_by_ord ON \(s).letters (ord)",
    ]
  }

  /// Indexes, made after a bulk load (cheaper than keeping them up to date row by row).
  func indexes(_ schemaName: String) -> [String] {
    let s = "\"\(schemaName)\""
    var statements = ["CREATE UNIQUE INDEX items_by_ord ON \(s).items (ord)"]
    for index in textFields.indices {
      statements.append(
        "CREATE INDEX items_t\(index)_trgm ON \(s).items USING gin (t\(index) gin_trgm_ops)")
      statements.append("CREATE INDEX items_w\(index) ON \(s).items USING gin (w\(index))")
    }
    for index in numberFields.indices {
      statements.append("CREATE INDEX items_n\(index) ON \(s).items (n\(index))")
    }
    statements.append("CREATE INDEX items_category ON \(s).items (category)")
    return statements + letterIndexes(schemaName)
  }
}
#endif
