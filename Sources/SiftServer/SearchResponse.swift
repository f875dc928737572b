import Sift

/// The JSON answer to a search: the results indicator and counts as the app shows them, the
/// requested page of results in the engine's order — each with its id, title, every field under
/// its own name and where the query matched — and, when asked, the facet counts.
struct SearchResponse: Encodable, Sendable {
  var catalog: String
  var indicator: String
  /// Items in the catalog, and how many match.
  var total: Int
  var matched: Int
  var offset: Int
  var results: [ResultItem]
  var facets: FacetCounts?
  var diagnostics: [String]

  init(catalog: String, controller: SearchController, page: Range<Int>, facets: Bool) {
    self.catalog = catalog
    let collection = controller.collection
    indicator = controller.indicator.text
    total = collection.totalCount
    matched = controller.rows.count
    offset = page.lowerBound
    let rows = min(page.lowerBound, matched)..<min(page.upperBound, matched)
    let schema = collection.schema
    results = collection.elements(atRows: rows).compactMap { item in
      item.map { ResultItem($0, schema: schema, collection: collection) }
    }
    self.facets = facets ? FacetCounts(controller.facets, schema: schema) : nil
    diagnostics = controller.diagnostics.map(\.description)
  }
}

/// One result: `id`, `title`, each field under its own name, and `highlights`.
struct ResultItem: Encodable, Sendable {
  var id: String
  var title: String
  var fields: [(name: String, value: FieldValue)]
  var highlights: [Highlight]

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
