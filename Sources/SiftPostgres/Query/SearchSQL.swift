#if Server
import Sift

/// A `MatchRequest` compiled to one SQL statement over a catalog's folded columns, with the
/// embedded engine's semantics (`SearchIndex.plan`, `matches`, `analyse`): the same terms on the
/// same columns, and the rank packed as `MatchRank` packs it — typos, exactness, attribute,
/// position — then popularity and catalog order in `ORDER BY`.
///
/// Each row of a page is `id, rank, ord, matches, counted, exact`: the item, its packed rank, its
/// place in catalog order, and over all matches their number, how many count toward the typo threshold (exactness
/// better than a substring) and how many have no typos.
struct SearchSQL {
  /// A text term as the engine plans it.
  struct Probe {
    var needle: String
    var columns: [Int]
    var initials: Bool
    var number: Double?
    var numberColumns: [Int]
    /// The term's letters and edit budget, when it may match near spellings.
    var typo: (letters: [UInt32], budget: Int)?
  }

  /// A near spelling of a term: a catalog word, the cost of its best beginning
  /// (`NearSpelling.bestPrefix`), and whether that beginning is the whole word.
  typealias NearWord = (word: String, cost: Int, isWhole: Bool)

  enum Condition {
    case text(Probe)
    case number(column: Int, NumberPredicate)
    case category(String)
    case never
    /// Any of the alternatives, each terms that must all hold; matched as written
    /// (`SearchIndex.searchAlternatives` ranks them, one statement each).
    indirect case either([[(isNegated: Bool, condition: Condition)]])
  }

  let layout: CatalogLayout
  let table: String
  let schemaName: String
  var terms: [(isNegated: Bool, condition: Condition)] = []
  /// The positive text terms in query order: what ranking looks at.
  var rankProbes: [Probe] = []
  var requiredCategory: String?
  /// The last word is still being typed (`MatchRequest.isTyping`).
  let isTyping: Bool
  /// Results by this column first (`MatchRequest.sort`); nil: relevance.
  let sort: (column: String, order: String)?
  /// Near a place without a sort: its distance (`dist`, metres) ranks right after typos and
  /// exactness (`SortPlan.afterExactness`); nil otherwise.
  let nearRule: String?
  /// The radius test of a place asked for with one.
  let within: String?
  private(set) var binds: [SQLValue] = []

  init(_ request: MatchRequest, layout: CatalogLayout, schemaName: String) {
    self.layout = layout
    self.schemaName = schemaName
    table = "\"\(schemaName)\".items"
    let schema = layout.schema
    let unfieldedText = layout.textFields.indices.filter {
      schema.searchesUnfielded(layout.textFields[$0], in: request)
    }
    let unfieldedNumbers = layout.numberFields.indices.filter {
      schema.searchesUnfielded(layout.numberFields[$0], in: request)
    }
    requiredCategory = request.requiredCategory
    isTyping = request.isTyping
    sort = layout.sortOrder(request.sort, near: request.near)
    nearRule = request.sort == nil ? request.near.flatMap(layout.distanceSQL) : nil
    within = request.near.flatMap(layout.withinSQL)
    func planned(_ term: QueryTerm, ranked: Bool) -> Condition {
      switch term.condition {
      case .text(let text):
        let columns: [Int]
        if let field = text.field {
          guard let column = layout.textFields.firstIndex(where: { $0.name == field }) else {
            return .never
          }
          columns = [column]
        } else {
          columns = unfieldedText
        }
        let probe = Probe(
          needle: text.needle, columns: columns, initials: text.matchesInitials,
          number: text.field == nil ? text.number : nil,
          numberColumns: text.field == nil ? unfieldedNumbers : [],
          typo: term.isNegated || !request.typos.isEnabled || !ranked
            ? nil : TypoTolerance.nearSpellingTerm(text))
        if !term.isNegated, ranked { rankProbes.append(probe) }
        return .text(probe)
      case .number(let field, let predicate):
        guard let column = layout.numberFields.firstIndex(where: { $0.name == field }) else {
          return .never
        }
        return .number(column: column, predicate)
      case .category(_, let value):
        return .category(value)
      case .either(let alternatives):
        return .either(
          alternatives.map { $0.map { ($0.isNegated, planned($0, ranked: false)) } })
      }
    }
    for term in request.terms {
      terms.append((term.isNegated, planned(term, ranked: true)))
    }
  }

  var hasTypoTerms: Bool { rankProbes.contains { $0.typo != nil } }

  /// The test of one condition as written (near spellings are added by the caller).
  private mutating func matchSQL(_ condition: Condition) -> String {
    switch condition {
    case .text(let probe):
      return exactMatch(probe)
    case .number(let column, let predicate):
      return "coalesce(\(numberTest("n\(column)", predicate)), false)"
    case .category(let value):
      return "coalesce(category = \(bind(.text(value))), false)"
    case .never:
      return "false"
    case .either(let alternatives):
      let each = alternatives.map { terms in
        terms.isEmpty
          ? "true"
          : "("
            + terms.map { $0.isNegated ? "NOT \(matchSQL($0.condition))" : matchSQL($0.condition) }
            .joined(separator: " AND ") + ")"
      }
      return "(" + each.joined(separator: " OR ") + ")"
    }
  }

  // MARK: - The statement

  /// The statement for one page. `nearWords[i]`: the near spellings of rank probe `i` with
  /// their costs, when near spellings are searched (nil: exact matching only).
  mutating func statement(
    nearWords: [[SearchSQL.NearWord]]?, limit: Int?, offset: Int
  ) -> String {
    statement(nearWords: nearWords, output: .page(limit: limit, offset: offset))
  }

  /// What a statement returns: a page of matches (`id, rank, ord, matches, counted, exact`;
  /// past the last match, one row with a null id, so the counts always come back),
  /// per category (NULL: none) how many match and how many count toward the typo threshold,
  /// or each number column's smallest and largest value among the matches.
  enum Output {
    case page(limit: Int?, offset: Int)
    case tally
    /// Per number column `j` with a value among the matches: `j, min, max`.
    case ranges
  }

  mutating func statement(
    nearWords: [[SearchSQL.NearWord]]?, output: Output
  ) -> String {
    binds = []
    let near = nearWords != nil
    var filters: [String] = []
    if let requiredCategory { filters.append("category = \(bind(.text(requiredCategory)))") }
    if let within { filters.append(within) }
    var nearArrays: [Int: NearArrays] = [:]
    if let nearWords {
      for (index, probe) in rankProbes.enumerated() where probe.typo != nil {
        let list = nearWords[index]
        nearArrays[index] = NearArrays(
          words: bind(.texts(list.map(\.word))) + "::text[]",
          costs: bind(.integers(list.map(\.cost))) + "::integer[]",
          wholes: bind(.texts(list.map { $0.isWhole ? "t" : "f" })) + "::boolean[]")
      }
    }
    var rankIndex = 0
    for (isNegated, condition) in terms {
      var sql = matchSQL(condition)
      if case .text(let probe) = condition {
        if !isNegated, near, probe.typo != nil, let arrays = nearArrays[rankIndex] {
          let words = probe.columns.map { "w\($0) && \(arrays.words)" }
          if !words.isEmpty { sql = "(\(sql) OR \(words.joined(separator: " OR ")))" }
        }
        if !isNegated { rankIndex += 1 }
      }
      filters.append(isNegated ? "NOT \(sql)" : sql)
    }
    let ranking = rankingColumns(nearArrays: nearArrays)
    let (popularity, popularityOrder) = layout.popularity
    // Three levels, each value computed once per row (`OFFSET 0` keeps the planner from copying
    // an expression into each use of it; MATERIALIZED keeps the counts from computing it again —
    // together 7× on a one-letter query over the cities):
    // - `base`: every match with the cheap parts of its rank and two bounds on the rank (`low`,
    //   `high`): the word positions not yet known, each between 0 and 7;
    // - `matched`: the exact rank (word positions), only for the rows that can be on the page;
    // - the page, with the counts read from `base` (typos and exactness are exact there).
    let textColumns = Set(rankProbes.flatMap(\.columns)).sorted().map { "t\($0)" }
    // What orders a page: counts and ranges need neither (a distance is trigonometry a row).
    var sortKey: [String] = []
    if case .page = output {
      if let sort { sortKey.append("\(sort.column) AS sort_key") }
      // No location: past every distance on the earth, so the row values below never hold NULL.
      if let nearRule { sortKey.append("coalesce(\(nearRule), 1e15) AS dist") }
    }
    if case .ranges = output { sortKey += layout.numberFields.indices.map { "n\($0)" } }
    let probes = """
      SELECT id, ord, category, \(popularity) AS pop\((textColumns + sortKey + ranking.cheap).map { ", " + $0 }.joined())
      FROM \(table)\(filters.isEmpty ? "" : " WHERE " + filters.joined(separator: " AND ")) OFFSET 0
      """
    // Popularity as two ascending keys (none last, then the value in the catalog's direction),
    // so that (rank, popularity, catalog order) compares as one row value.
    let descending = layout.schema.rankingField?.isAscending != true
    let base = """
      WITH base AS MATERIALIZED (
        SELECT *, \(ranking.rank("low_")) AS low, \(ranking.rank("high_")) AS high,
          (pop IS NULL)::integer AS pop_none, coalesce(\(descending ? "-" : "")pop, 0) AS pop_key
        FROM (\(probes)) AS probes)
      """
    if case .ranges = output {
      let columns = layout.numberFields.indices.map { "(\($0), n\($0))" }.joined(separator: ", ")
      return """
        \(base)
        SELECT j, min(v), max(v) FROM base CROSS JOIN LATERAL (VALUES \(columns)) AS numbers(j, v)
        WHERE v IS NOT NULL GROUP BY j
        """
    }
    guard case .page(let limit, let offset) = output else {
      return """
        \(base)
        SELECT category, count(*), count(*) FILTER (WHERE \(countedFilter))
        FROM base GROUP BY category
        """
    }
    // The page's last row is at most the k-th smallest (high, popularity, order): a row whose
    // (low, popularity, order) is past that has k rows before it, so it is not ranked.
    var cut = ""
    var kept = ""
    if limit == 0 {
      // Only the counts are asked for: no row is ranked.
      kept = " WHERE false"
    } else if let limit, let sort {
      // Under a sort, the page's last row has at most the k-th key (`SearchIndex.sortedRows`):
      // a row whose key comes after it has k rows before it, so it is not ranked. A missing
      // key comes last: when the k-th is missing, every row may be on the page.
      let last = bind(.integer(offset + limit - 1))
      let before = sort.order.hasPrefix("DESC") ? ">=" : "<="
      cut = """
        , cut AS (SELECT sort_key FROM base ORDER BY sort_key \(sort.order) LIMIT 1 OFFSET \(last))
        """
      kept = """
         WHERE NOT EXISTS (SELECT 1 FROM cut WHERE sort_key IS NOT NULL)
          OR sort_key \(before) (SELECT sort_key FROM cut)
        """
    } else if let limit, nearRule != nil, ranking.boundsOrder {
      // Distance after exactness: (typos and exactness, distance, rank, popularity, order) is
      // bounded by the same key made of `low` and of `high`.
      let last = bind(.integer(offset + limit - 1))
      cut = """
        , cut AS (SELECT high >> 7 AS level, dist, high, pop_none, pop_key, ord FROM base
          ORDER BY level, dist, high, pop_none, pop_key, ord LIMIT 1 OFFSET \(last))
        """
      kept = """
         WHERE NOT EXISTS (SELECT 1 FROM cut)
          OR (low >> 7, dist, low, pop_none, pop_key, ord) <= (SELECT * FROM cut)
        """
    } else if let limit, ranking.boundsOrder {
      let last = bind(.integer(offset + limit - 1))
      cut = """
        , cut AS (SELECT high, pop_none, pop_key, ord FROM base
          ORDER BY high, pop_none, pop_key, ord LIMIT 1 OFFSET \(last))
        """
      kept = """
         WHERE NOT EXISTS (SELECT 1 FROM cut)
          OR (low, pop_none, pop_key, ord) <= (SELECT high, pop_none, pop_key, ord FROM cut)
        """
    }
    let page =
      (limit.map { " LIMIT \(bind(.integer($0)))" } ?? "") + " OFFSET \(bind(.integer(offset)))"
    // Under a sort its value comes first; the rank breaks ties (`SearchIndex.sortedRows`).
    // Near a place, distance comes after typos and exactness (`SearchIndex.nearRows`).
    let sorted =
      sort.map {
        ("sort_key, ", "sort_key \($0.order), ", "shown.sort_key \($0.order), ", ", sort_key")
      }
      ?? nearRule.map { _ in
        ("dist, ", "rank >> 7, dist, ", "shown.rank >> 7, shown.dist, ", ", dist")
      }
    return """
      \(base)\(cut),
      matched AS (
        SELECT id, ord, pop, \(sorted?.0 ?? "")\(ranking.rank("exact_")) AS rank
        FROM (SELECT *\(ranking.exact.map { ", " + $0 }.joined()) FROM base\(kept) OFFSET 0) AS ranked),
      counts AS (
        SELECT count(*) AS matches, count(*) FILTER (WHERE \(countedFilter)) AS counted,
          count(*) FILTER (WHERE low < 512 AND near_start IS NULL) AS exact FROM base)
      SELECT shown.id, shown.rank, shown.ord, matches, counted, exact
      FROM counts LEFT JOIN (
        SELECT id, rank, ord, pop\(sorted?.3 ?? "") FROM matched
        ORDER BY \(sorted?.1 ?? "")rank, pop \(popularityOrder), ord\(page)
      ) AS shown ON true
      ORDER BY \(sorted?.2 ?? "")shown.rank, shown.pop \(popularityOrder), shown.ord
      """
  }

  /// Whether the probe matches as written: its needle in a column (or the columns' initials),
  /// or its number in a number column.
  private mutating func exactMatch(_ probe: Probe) -> String {
    let pattern = bind(.text("%" + Self.likeEscaped(probe.needle) + "%"))
    var parts = probe.columns.map { "t\($0) LIKE \(pattern)" }
    if probe.initials { parts += probe.columns.map { "coalesce(k\($0) LIKE \(pattern), false)" } }
    if let number = probe.number {
      let value = bind(.number(number))
      parts += probe.numberColumns.map { "coalesce(n\($0) = \(value), false)" }
    }
    return parts.isEmpty ? "false" : "(" + parts.joined(separator: " OR ") + ")"
  }

  private mutating func numberTest(_ column: String, _ predicate: NumberPredicate) -> String {
    switch predicate {
    case .equal(let value): "\(column) = \(bind(.number(value)))"
    case .less(let value): "\(column) < \(bind(.number(value)))"
    case .lessOrEqual(let value): "\(column) <= \(bind(.number(value)))"
    case .greater(let value): "\(column) > \(bind(.number(value)))"
    case .greaterOrEqual(let value): "\(column) >= \(bind(.number(value)))"
    case .between(let low, let high):
      "\(column) BETWEEN \(bind(.number(low))) AND \(bind(.number(high)))"
    }
  }

  /// What ranking needs per row. `cheap`: columns computed for every match — whether the
  /// query equals or starts a value, its attribute key, per term whether it starts a word, its
  /// near-spelling key, the keys known without a word position (`known_i`: initials, numbers)
  /// and bounds on the text keys (`low_i`, `high_i`: the attribute of the best column holding
  /// the term, at word position 0 or 7). `exact`: the text keys with the word position
  /// (`exact_i`), computed for the rows that may be on the page. `rank(prefix)`: the packed
  /// rank with the text keys named `prefix` + index. `boundsOrder`: whether the bounds bound the
  /// packed rank (every key below 128, so none spills into the exactness bits).
  private mutating func rankingColumns(
    nearArrays: [Int: NearArrays]
  ) -> (cheap: [String], exact: [String], rank: (String) -> String, boundsOrder: Bool) {
    guard !rankProbes.isEmpty else {
      return (["NULL::integer AS near_start"], [], { _ in "0" }, true)
    }
    var cheap: [String] = []
    var exact: [String] = []
    let separator = "E'\\x1f'"
    // The whole query against whole values: equal, or starting one.
    let query = rankProbes.map(\.needle).joined(separator: " ")
    let queryColumns = Array(Set(rankProbes.flatMap(\.columns))).sorted()
    let separatorText = CatalogLayout.valueSeparator
    let whole = bind(.text(separatorText + query + separatorText))
    let start = bind(.text(separatorText + query))
    var equals = queryColumns.map { "strpos(\(separator) || t\($0) || \(separator), \(whole)) > 0" }
    var equalAttributes = queryColumns.map { layout.attribute(ofText: $0) }
    let starts = queryColumns.map { "strpos(\(separator) || t\($0), \(start)) > 0" }
    let queryKeys = queryColumns.map {
      "CASE WHEN strpos(\(separator) || t\($0), \(start)) > 0 THEN \(layout.attribute(ofText: $0) * 8) END"
    }
    var equalKeys = zip(queryColumns, equals).map { column, test in
      "CASE WHEN \(test) THEN \(layout.attribute(ofText: column) * 8) END"
    }
    if rankProbes.count == 1, let number = rankProbes[0].number {
      let value = bind(.number(number))
      for column in rankProbes[0].numberColumns {
        equals.append("coalesce(n\(column) = \(value), false)")
        equalAttributes.append(layout.attribute(ofNumber: column))
        equalKeys.append(
          "CASE WHEN n\(column) = \(value) THEN \(layout.attribute(ofNumber: column) * 8) END")
      }
    }
    // While the last word is typed, a title equal to the query or starting with it weighs more.
    let titleEquals = zip(equalAttributes, equals).filter { $0.0 == 0 }.map(\.1)
    let titleStarts = zip(queryColumns, starts).filter { layout.attribute(ofText: $0.0) == 0 }
    cheap.append("(\(Self.any(titleEquals))) AS query_equals_title")
    cheap.append("(\(Self.any(titleStarts.map(\.1)))) AS query_starts_title")
    cheap.append("(\(Self.any(equals))) AS query_equals")
    cheap.append("(\(Self.any(starts))) AS query_starts")
    // The value that decides the exactness gives the attribute: the best equal to the query,
    // else the best starting with it (`SearchIndex.analyse`).
    cheap.append("\(Self.least(equalKeys)) AS query_equal_key")
    cheap.append("\(Self.least(queryKeys)) AS query_key")
    var largestKey = 0
    for (index, probe) in rankProbes.enumerated() {
      let needle = bind(.text(probe.needle))
      let holds = probe.columns.map {
        (test: "strpos(t\($0), \(needle)) > 0", key: layout.attribute(ofText: $0) * 8)
      }
      let positions = probe.columns.map {
        "\(layout.attribute(ofText: $0) * 8) + \"\(schemaName)\".word_position(t\($0), \(needle))"
      }
      largestKey = max(largestKey, (holds.map(\.key).max() ?? 0) + 7)
      var known: [String] = []
      var found = holds.map(\.test)
      if probe.initials {
        known += probe.columns.map {
          "CASE WHEN strpos(k\($0), \(needle)) > 0 THEN \(layout.attribute(ofText: $0) * 8 + 7) END"
        }
        found += probe.columns.map { "strpos(k\($0), \(needle)) > 0" }
      }
      var wordStarts: [String] = []
      if !probe.columns.isEmpty {
        let pattern = bind(
          .text("(^|\(CatalogLayout.boundaryClass))" + Self.regexEscaped(probe.needle)))
        wordStarts = probe.columns.map { "t\($0) ~ \(pattern)" }
      }
      if let number = probe.number {
        let value = bind(.number(number))
        for column in probe.numberColumns {
          known.append(
            "CASE WHEN n\(column) = \(value) THEN \(layout.attribute(ofNumber: column) * 8) END")
          wordStarts.append("coalesce(n\(column) = \(value), false)")
          found.append("coalesce(n\(column) = \(value), false)")
          largestKey = max(largestKey, layout.attribute(ofNumber: column) * 8)
        }
      }
      cheap.append("\(Self.least(known)) AS known_\(index)")
      cheap.append(
        "\(Self.least(holds.map { "CASE WHEN \($0.test) THEN \($0.key) END" })) AS low_\(index)")
      cheap.append(
        "\(Self.least(holds.map { "CASE WHEN \($0.test) THEN \($0.key + 7) END" })) AS high_\(index)"
      )
      exact.append("\(Self.least(positions)) AS exact_\(index)")
      cheap.append("(\(Self.any(wordStarts))) AS starts_\(index)")
      if index == 0 { cheap.append(nearStart(nearArrays, found: found) + " AS near_start") }
      if let arrays = nearArrays[index], !probe.columns.isEmpty {
        let near = probe.columns.enumerated().map { position, column in
          "\"\(schemaName)\".near(t\(column), \(arrays.words), \(arrays.costs), \(position * 8))"
        }
        // Near spellings rank a row only where the term itself is not found.
        cheap.append(
          "CASE WHEN NOT \(Self.any(found)) THEN \(Self.least(near)) END AS near_\(index)")
      } else {
        cheap.append("NULL::integer AS near_\(index)")
      }
    }
    // Typos, exactness, then the best (attribute, position) of all.
    let attributes = rankProbes.map { probe in
      probe.columns.enumerated().map { position, column in
        "WHEN \(position) THEN \(layout.attribute(ofText: column))"
      }
    }
    let isTyping = isTyping
    let magnitude = layout.magnitudeSQL
    let rank = { (prefix: String) -> String in
      var best: [String] = []
      var typos: [String] = []
      var allStart: [String] = []
      for index in attributes.indices {
        best.append("least(\(prefix)\(index), known_\(index))")
        if !attributes[index].isEmpty {
          best.append(
            "(CASE (near_\(index) % 1024) / 8 \(attributes[index].joined(separator: " ")) END) * 8 + near_\(index) % 8"
          )
        }
        typos.append("coalesce(near_\(index) / 1024, 0)")
        allStart.append("(starts_\(index) OR near_\(index) IS NOT NULL)")
      }
      // `MatchRank.typedStart`: while the last word is typed, every value equal to the query
      // or starting with it is a start, its attribute 15 less the magnitude and the points.
      let typedKey = """
        8 * (15 - least(15, \(magnitude) + CASE WHEN query_equals_title \
        THEN \(MatchRank.typedTitleEqualPoints) WHEN query_starts_title OR query_equals \
        THEN \(MatchRank.typedStartPoints) ELSE 0 END))
        """
      // A start with typos (`MatchRank.typedStart(magnitude:points:edits:)`): its weight less
      // the edits' penalty in the attribute, its edits where the position would be.
      let nearStartKey = """
        8 * (15 - least(15, greatest(0, \(magnitude) - (near_start / 16 / 8 - 16)))) \
        + near_start / 16 % 8
        """
      let (levels, decided) =
        isTyping
        ? (
          "WHEN query_equals OR query_starts OR near_start IS NOT NULL THEN 1",
          "WHEN query_equals OR query_starts THEN \(typedKey) WHEN near_start IS NOT NULL THEN \(nearStartKey)"
        )
        : (
          "WHEN query_equals THEN 0 WHEN query_starts THEN 1",
          "WHEN query_equals THEN query_equal_key WHEN query_starts THEN query_key"
        )
      let exactness = """
        CASE \(levels) WHEN \(allStart.joined(separator: " AND ")) THEN 2 ELSE 3 END
        """
      let bestKey = "(CASE \(decided) ELSE coalesce(\(Self.least(best)), 127) END)"
      return """
        (CASE WHEN near_start IS NULL THEN least(\(typos.joined(separator: " + ")), 7) ELSE 0 END * 512 \
        + (\(exactness)) * 128 \
        + least(\(bestKey) / 8, 15) * 8 + \(bestKey) % 8)
        """
    }
    return (cheap, exact, rank, largestKey < 128)
  }

  /// Which exact matches count toward the typo threshold (`SearchIndex.counts`): every term
  /// starting a word — exactness below 3 — or, while a one-word query that may have typos is
  /// typed where popularity weighs, only starts without typos weighing
  /// `MatchRank.strongTypedWeight` or more (their
  /// rank is exact in `low`: a start's key does not depend on word positions).
  private var countedFilter: String {
    guard isTyping, rankProbes.count == 1, rankProbes[0].typo != nil,
      layout.schema.weighsMagnitude
    else {
      return "low & 384 <> 384"
    }
    let attribute = MatchRank.maximumAttribute - MatchRank.strongTypedWeight
    return "low < 512 AND low & 384 = 128 AND low & 120 <= \(attribute * 8)"
  }

  /// The bound arrays of one term's near spellings (`NearWord`).
  struct NearArrays {
    var words: String
    var costs: String
    var wholes: String
  }

  /// The engine's `SearchIndex.nearStart`, while a one-word query is typed with near spellings:
  /// over the term's columns, the best value whose first word is one of its near spellings, as
  /// one key — ((edits × penalty − points + 16) × 8 + edits) × 16 + attribute, smaller better —
  /// computed only for rows where the term is not found (`found`); else null.
  private func nearStart(_ nearArrays: [Int: NearArrays], found: [String]) -> String {
    guard isTyping, rankProbes.count == 1, let arrays = nearArrays[0],
      !rankProbes[0].columns.isEmpty
    else { return "NULL::integer" }
    let keys = rankProbes[0].columns.map { column in
      let attribute = layout.attribute(ofText: column)
      let equal = MatchRank.typedPoints(
        titleEquals: attribute == 0, titleStarts: attribute == 0, valueEquals: true)
      let start = MatchRank.typedPoints(
        titleEquals: false, titleStarts: attribute == 0, valueEquals: false)
      return """
        \"\(schemaName)\".near_start(t\(column), \(arrays.words), \(arrays.costs), \(arrays.wholes), \
        \(equal), \(start), \(MatchRank.typedEditPenalty)) * 16 + \(attribute)
        """
    }
    return "CASE WHEN NOT \(Self.any(found)) THEN \(Self.least(keys)) END"
  }

  private static func any(_ parts: [String]) -> String {
    parts.isEmpty ? "false" : "coalesce(" + parts.joined(separator: " OR ") + ", false)"
  }

  private static func least(_ parts: [String]) -> String {
    parts.isEmpty
      ? "NULL::integer"
      : parts.count == 1 ? "(\(parts[0]))" : "least(\(parts.joined(separator: ", ")))"
  }

  private mutating func bind(_ value: SQLValue) -> String {
    binds.append(value)
    return "$\(binds.count)"
  }

  /// The needle for LIKE: `\`, `%` and `_` escaped.
  static func likeEscaped(_ text: String) -> String {
    var escaped = ""
    for character in text.unicodeScalars {
      if character == "\\" || character == "%" || character == "_" { escaped += "\\" }
      escaped.unicodeScalars.append(character)
    }
    return escaped
  }

  /// The needle as a regular expression matching itself: ASCII other than letters and digits
  /// escaped.
  static func regexEscaped(_ text: String) -> String {
    var escaped = ""
    for character in text.unicodeScalars {
      if character.isASCII, !character.properties.isAlphabetic,
        !("0"..."9").contains(character)
      {
        escaped += "\\"
      }
      escaped.unicodeScalars.append(character)
    }
    return escaped
  }
}
#endif
