import Sift

/// The JSON answer to a search: the results indicator and counts as the app shows them, the
/// requested page of results in the engine's order — each with its id, title, every field under
/// its own name and where the query matched — and, when asked, the facet counts and why each
/// result stands where it does. `suggestions` are the tokens offered for the word being typed
/// (`#` alone offers them all) and `didYouMean` the catalog word nearest a query that found
/// nothing, as the app offers them.
struct SearchResponse: Encodable, Sendable {
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
}

/// One result: `id`, `title`, each field under its own name, and `highlights`.
struct ResultItem: Encodable, Sendable {
  var id: String
  var title: String
  var fields: [(name: String, value: FieldValue)]
  var highlights: [Highlight]
  /// With `explain=1`: why the result is where it is.
  var explain: Explanation?

  /// Where the query matched one value, in UTF-16 offsets (what JavaScript indexes strings by).
  struct Highlight: Encodable, Sendable {
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

  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    try container.encode(id, forKey: Key("id"))
    try container.encode(title, forKey: Key("title"))
    for (name, value) in fields where name != "id" && name != "title" && name != "highlights" {
      switch value {
      case .text(let text): try container.encode(text, forKey: Key(name))
      case .texts(let texts): try container.encode(texts, forKey: Key(name))
      case .number(let number): try container.encode(number, forKey: Key(name))
      }
    }
    try container.encode(highlights, forKey: Key("highlights"))
    try container.encodeIfPresent(explain, forKey: Key("explain"))
  }
}

/// `explain=1`: the ranking rules' values for one result, under the names and with the values
/// `sift search --json --explain` gives (the highlights are the result's own).
struct Explanation: Encodable, Sendable {
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

  enum CodingKeys: String, CodingKey {
    case typos, exactness, attribute, field, value, position, popularity
    case exactField = "exact_field"
    case exactValue = "exact_value"
    case rankingField = "ranking_field"
    case catalogOrder = "catalog_order"
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(typos, forKey: .typos)
    try container.encode(exactness, forKey: .exactness)
    // As the command line: the exact value (or null) only beside an exact field; the field and
    // value of the best match always, null when no text term ranks it.
    if let exactField {
      try container.encode(exactField, forKey: .exactField)
      try container.encode(exactValue, forKey: .exactValue)
    }
    try container.encode(attribute, forKey: .attribute)
    try container.encode(field, forKey: .field)
    try container.encode(value, forKey: .value)
    try container.encode(position, forKey: .position)
    if let rankingField {
      try container.encode(rankingField, forKey: .rankingField)
      try container.encode(popularity, forKey: .popularity)
    }
    try container.encode(catalogOrder, forKey: .catalogOrder)
  }
}

/// How many items each scope-bar button and each category would show for the query.
struct FacetCounts: Encodable, Sendable {
  struct Scope: Encodable, Sendable {
    var title: String
    var count: Int
  }
  struct Category: Encodable, Sendable {
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
}
