import Sift

/// The JSON answer to a search: the results indicator and counts as the app shows them, the
/// requested page of results in the engine's order — each with its id, title, every field under
/// its own name and where the query matched — and, when asked, the facet counts and why each
/// result stands where it does. `suggestions` are the tokens offered for the word being typed
/// (`#` alone offers them all) and `didYouMean` the catalog word nearest a query that found
/// nothing, as the app offers them.
struct SearchResponse: Sendable {
  var catalog: String
  var indicator: String
  /// Items in the catalog, and how many match.
  var total: Int
  var matched: Int
  var offset: Int
  var results: [ResultItem]
  var facets: FacetCounts?
  var suggestions: [SearchToken]
  var didYouMean: String?
  var diagnostics: [String]

  init(
    catalog: String, controller: SearchController, page: Range<Int>, facets: Bool,
    explain: Bool = false
  ) {
    self.catalog = catalog
    let collection = controller.collection
    indicator = controller.indicator.text
    total = collection.totalCount
    matched = controller.rows.count
    offset = page.lowerBound
    let rows = min(page.lowerBound, matched)..<min(page.upperBound, matched)
    let schema = collection.schema
    results = zip(rows, collection.elements(atRows: rows)).compactMap { row, item in
      guard let item else { return nil }
      var result = ResultItem(item, schema: schema, collection: collection)
      if explain { result.explain = collection.explanation(forRow: row).map(Explanation.init) }
      return result
    }
    self.facets = facets ? FacetCounts(controller.facets, schema: schema) : nil
    suggestions = controller.suggestions
    didYouMean = controller.spellingSuggestion
    diagnostics = controller.diagnostics.map(\.description)
  }

  var json: JSONValue {
    var members: [(String, JSONValue)] = [
      ("catalog", .string(catalog)), ("indicator", .string(indicator)),
      ("total", .number(Double(total))), ("matched", .number(Double(matched))),
      ("offset", .number(Double(offset))), ("results", .array(results.map(\.json))),
      (
        "suggestions",
        .array(
          suggestions.map { token in
            .object(
              sorting: [("identifier", .string(token.identifier)), ("text", .string(token.text))]
                + (token.icon.map { [("icon", JSONValue.string($0))] } ?? []))
          })
      ),
      ("diagnostics", .strings(diagnostics)),
    ]
    if let facets { members.append(("facets", facets.json)) }
    if let didYouMean { members.append(("didYouMean", .string(didYouMean))) }
    return .object(sorting: members)
  }
}

/// One result: `id`, `title`, each field under its own name, and `highlights`.
struct ResultItem: Sendable {
  var id: String
  var title: String
  var fields: [(name: String, value: FieldValue)]
  var highlights: [Highlight]
  /// With `explain=1`: why the result is where it is.
  var explain: Explanation?

  /// Where the query matched one value, in UTF-16 offsets (what JavaScript indexes strings by).
  struct Highlight: Sendable {
    var field: String
    var value: String
    var ranges: [[Int]]
  }

  init(_ item: Item, schema: CatalogSchema, collection: FilteredCollection) {
    id = item.id.rawValue
    title = item[schema.titleField]?.displayText ?? ""
    fields = schema.fields.compactMap { field in item[field.name].map { (field.name, $0) } }
    highlights = []
    for field in schema.fields where field.kind != .number {
      for value in item[field.name]?.strings ?? [] {
        let ranges = collection.highlightRanges(in: value, field: field.name, of: item)
        guard !ranges.isEmpty else { continue }
        let utf16 = value.utf16
        highlights.append(
          Highlight(
            field: field.name, value: value,
            ranges: ranges.map { range in
              [
                utf16.distance(from: utf16.startIndex, to: range.lowerBound),
                utf16.distance(from: utf16.startIndex, to: range.upperBound),
              ]
            }))
      }
    }
  }

  /// `id`, `title`, each field under its name (but those three), `highlights`, `explain`.
  var json: JSONValue {
    var members: [(String, JSONValue)] = [("id", .string(id)), ("title", .string(title))]
    for (name, value) in fields where name != "id" && name != "title" && name != "highlights" {
      switch value {
      case .text(let text): members.append((name, .string(text)))
      case .texts(let texts): members.append((name, .strings(texts)))
      case .number(let number): members.append((name, .number(number)))
      }
    }
    members.append(
      (
        "highlights",
        .array(
          highlights.map { highlight in
            .object(sorting: [
              ("field", .string(highlight.field)), ("value", .string(highlight.value)),
              (
                "ranges",
                .array(highlight.ranges.map { .array($0.map { .number(Double($0)) }) })
              ),
            ])
          })
      ))
    if let explain { members.append(("explain", explain.json)) }
    return .object(sorting: members)
  }
}

/// `explain=1`: the ranking rules' values for one result, under the names and with the values
/// `sift search --json --explain` gives (the highlights are the result's own).
struct Explanation: Sendable {
  var typos: Int
  var exactness: String
  var exactField: String?
  var exactValue: String?
  var attribute: Int
  var field: String?
  var value: String?
  var position: Int
  var rankingField: String?
  var popularity: Double?
  var catalogOrder: Int64

  init(_ explanation: MatchExplanation) {
    let rank = explanation.rank
    typos = rank.typos
    exactness = rank.exactness.name
    exactField = explanation.exactField
    exactValue = explanation.exactValue
    attribute = rank.attribute
    field = explanation.field
    value = explanation.value
    position = rank.position
    rankingField = explanation.rankingField
    popularity = explanation.popularity
    catalogOrder = explanation.catalogOrder
  }

  var json: JSONValue {
    // As the command line: the exact value (or null) only beside an exact field, the ranking
    // field's value only beside it; the best match's field and value always, null when no text
    // term ranks it.
    var members: [(String, JSONValue)] = [
      ("typos", .number(Double(typos))), ("exactness", .string(exactness)),
      ("attribute", .number(Double(attribute))), ("field", .optional(field)),
      ("value", .optional(value)), ("position", .number(Double(position))),
      ("catalog_order", .number(Double(catalogOrder))),
    ]
    if let exactField {
      members += [("exact_field", .string(exactField)), ("exact_value", .optional(exactValue))]
    }
    if let rankingField {
      members += [
        ("ranking_field", .string(rankingField)),
        ("popularity", popularity.map(JSONValue.number) ?? .null),
      ]
    }
    return .object(sorting: members)
  }
}

/// How many items each scope-bar button and each category would show for the query.
struct FacetCounts: Sendable {
  struct Scope: Sendable {
    var title: String
    var count: Int
  }
  struct Category: Sendable {
    var value: String
    var count: Int
  }
  var scopes: [Scope]
  var categories: [Category]

  init(_ facets: Facets, schema: CatalogSchema) {
    scopes = zip(schema.scopeTitles, facets.scopes).map { Scope(title: $0, count: $1) }
    let names = Dictionary(
      (schema.categories + schema.scopeCategories).map { (TextFolding.fold($0), $0) },
      uniquingKeysWith: { first, _ in first })
    categories = facets.categories.map { Category(value: names[$0.key] ?? $0.key, count: $0.value) }
      .sorted { ($1.count, $0.value) < ($0.count, $1.value) }
  }

  var json: JSONValue {
    .object(sorting: [
      (
        "scopes",
        .array(
          scopes.map {
            .object(sorting: [("title", .string($0.title)), ("count", .number(Double($0.count)))])
          })
      ),
      (
        "categories",
        .array(
          categories.map {
            .object(sorting: [("value", .string($0.value)), ("count", .number(Double($0.count)))])
          })
      ),
    ])
  }
}
