/// How an app's own type is searched, declared once with key paths: the title, the other text
/// fields, numbers, the category, the scope bar and the ranking field.
///
/// ```swift
/// let schema = try SearchSchema<Product>(
///   title: .text("title", \.title),
///   fields: [
///     .number("year", \.year, label: "Year introduced"),
///     .number("price", \.price, label: "Intro price", decimals: 2),
///     .category("type", \.type),
///   ],
///   scopes: [.all(), .category("Birthdays"), .category("Weddings")])
/// ```
///
/// Every mistake is found here, once, with an error that names it: a field named twice, a key
/// path declared twice, a ranking key path that is not a declared number, a scope naming a
/// category the schema lacks. Elements are then read through these key paths when they are
/// indexed and when a result is highlighted; the engine keeps no copy of their fields.
public struct SearchSchema<Element: Sendable>: Sendable {
  /// The schema as the query language and the dynamic door know it (names, labels, kinds).
  public internal(set) var catalog: CatalogSchema
  /// The declared fields, title first.
  public let fields: [SearchField<Element>]
  /// Readers of the text fields, in the order the index keeps them (schema order, then a
  /// searched category).
  let textReaders: [@Sendable (Element) -> [String]]
  /// Readers of the number fields, in schema order.
  let numberReaders: [@Sendable (Element) -> Double?]
  let categoryReader: (@Sendable (Element) -> [String])?
  /// Reads an element's vector (`CatalogSchema.vector`); nil without one.
  var vectorReader: (@Sendable (Element) -> [Float]?)?

  /// A schema for `Element`.
  ///
  /// - Parameters:
  ///   - name: the catalog's name in messages; by default the type's name.
  ///   - title: the field shown as each row's title; relevance compares queries with it first.
  ///   - fields: the other fields, at most one of them a category.
  ///   - scopes: the scope bar, first button first (`.all()`, `.category("Chocolate")`,
  ///     `.fields("Rating", ["rating"])`).
  ///   - tokens: tokens offered while typing besides the categories (`year:>=2010`).
  ///   - ranking: a declared number field whose larger values come first among results the
  ///     other rules leave tied (popularity).
  ///   - ascending: `true` puts smaller values of `ranking` first.
  /// - Throws: `CatalogSchemaError` naming the first mistake.
  public init<Ranking>(
    name: String? = nil, title: SearchField<Element>, fields: [SearchField<Element>] = [],
    scopes: [Scope] = [], tokens: [SearchToken] = [],
    rankedBy ranking: any KeyPath<Element, Ranking> & Sendable, ascending: Bool = false
  ) throws(CatalogSchemaError) {
    try self.init(
      name: name, title: title, fields: fields, scopes: scopes, tokens: tokens,
      ranking: ranking, ascending: ascending)
  }

  /// A schema for `Element` whose results the relevance rules and catalog order alone order.
  public init(
    name: String? = nil, title: SearchField<Element>, fields: [SearchField<Element>] = [],
    scopes: [Scope] = [], tokens: [SearchToken] = []
  ) throws(CatalogSchemaError) {
    try self.init(
      name: name, title: title, fields: fields, scopes: scopes, tokens: tokens, ranking: nil,
      ascending: false)
  }

  private init(
    name: String?, title: SearchField<Element>, fields: [SearchField<Element>],
    scopes: [Scope], tokens: [SearchToken], ranking: (any AnyKeyPath & Sendable)?,
    ascending: Bool
  ) throws(CatalogSchemaError) {
    let all = [title] + fields
    var rankingField: RankingField?
    if let ranking {
      guard let field = all.first(where: { ($0.keyPath as AnyKeyPath) == (ranking as AnyKeyPath) })
      else {
        throw .undeclaredKeyPath(String(describing: ranking as AnyKeyPath), role: "ranking")
      }
      rankingField = RankingField(field.definition.name, ascending: ascending)
    }
    let categories = all.filter { $0.definition.kind == .category }
    if categories.count > 1 {
      throw .secondCategory(categories[1].definition.name, first: categories[0].definition.name)
    }
    for (index, field) in all.enumerated() {
      let path = field.keyPath as AnyKeyPath
      if let earlier = all[..<index].first(where: { ($0.keyPath as AnyKeyPath) == path }) {
        throw .keyPathDeclaredTwice(
          String(describing: path), earlier.definition.name, field.definition.name)
      }
    }
    let catalog = CatalogSchema(
      name: name ?? String(describing: Element.self).lowercased(),
      fields: all.map(\.definition), titleField: title.definition.name,
      categoryField: categories.first?.definition.name, scopes: scopes, extraTokens: tokens,
      rankingField: rankingField)
    try catalog.validate()
    try self.init(catalog: catalog, fields: all)
  }

  /// A schema from fields already matched to a catalog schema (the dynamic door).
  init(catalog: CatalogSchema, fields: [SearchField<Element>]) throws(CatalogSchemaError) {
    try catalog.validate()
    self.catalog = catalog
    self.fields = fields
    var texts: [@Sendable (Element) -> [String]] = []
    var numbers: [@Sendable (Element) -> Double?] = []
    var category: (@Sendable (Element) -> [String])?
    for field in fields {
      switch field.read {
      case .texts(let read): texts.append(read)
      case .number(let read): numbers.append(read)
      case .category(let read): category = read
      }
    }
    // A searched category is the last text column too (`CatalogSchema.indexedTextFields`).
    if catalog.searchedCategory != nil, let category { texts.append(category) }
    textReaders = texts
    numberReaders = numbers
    categoryReader = category
  }

  /// The declared field that reads `keyPath`.
  public func field(for keyPath: AnyKeyPath) -> FieldDefinition? {
    fields.first { ($0.keyPath as AnyKeyPath) == keyPath }?.definition
  }

  /// The value of the field named `name` of `element`, as the dynamic door would store it.
  public func value(of element: Element, field name: String) -> FieldValue? {
    fields.first { $0.definition.name == name }?.value(element)
  }

  /// What the index reads from one element; `texts: false` leaves the text out (folded already).
  package func indexedValues(of element: Element, texts: Bool = true) -> IndexedValues {
    IndexedValues(
      texts: texts ? indexedTexts(of: element) : [], numbers: numberReaders.map { $0(element) },
      categories: categoryReader?(element) ?? [], vector: vectorReader?(element))
  }

  /// The element's text values, per text field.
  func indexedTexts(of element: Element) -> [[String]] { textReaders.map { $0(element) } }
}

/// What the index keeps of one element: its text values per text field, its numbers per number
/// field (nil where missing) and its category — in schema order, read once when it is indexed.
package struct IndexedValues: Sendable {
  package var texts: [[String]]
  package var numbers: [Double?]
  /// The category values: none, one, or several.
  package var categories: [String]
  /// The vector, of the schema's length; nil when the element has none (or one of another
  /// length, which the doors that take items refuse before they get here).
  package var vector: [Float]? = nil
}

extension SearchSchema where Element == Item {
  /// The dynamic door: items whose fields are known only at run time, read by field name.
  public init(_ catalog: CatalogSchema) throws(CatalogSchemaError) {
    try self.init(
      catalog: catalog,
      fields: catalog.fields.map { definition in
        let name = definition.name
        let path = \Item.[name]
        let stored: @Sendable (Item) -> FieldValue? = { $0[name] }
        return switch definition.kind {
        case .text: SearchField(definition, path, .texts { $0[name].indexedStrings }, stored)
        case .number: SearchField(definition, path, .number { $0[name].indexedNumber }, stored)
        case .category:
          SearchField(definition, path, .category { $0[name]?.strings ?? [] }, stored)
        }
      })
    if let vector = catalog.vector {
      vectorReader = { item in
        guard case .success(let floats?) = vector.vector(in: item[vector.field]) else {
          return nil
        }
        return floats
      }
    }
  }
}

extension Optional where Wrapped == FieldValue {
  /// The strings a text field indexes: text as it is, numbers as they read.
  var indexedStrings: [String] {
    switch self {
    case .none: []
    case .number(let number): [FieldValue.format(number)]
    case .some(let value): value.strings
    }
  }

  /// The number a number field holds; text that reads as a number counts.
  var indexedNumber: Double? {
    switch self {
    case .number(let number): number
    case .text(let text): NumberFilterSyntax.number(text.trimmingWhitespace())
    default: nil
    }
  }
}

extension SearchSchema {
  /// This schema with its elements placed on the earth by two declared number fields, so a
  /// search can be near a place (`SearchNear`, `SearchModel.near`):
  ///
  /// ```swift
  /// let schema = try SearchSchema<City>(
  ///   title: .text("name", \.name),
  ///   fields: [.number("lat", \.lat, searchable: false), .number("lon", \.lon, searchable: false)]
  /// ).located(latitude: \.lat, longitude: \.lon)
  /// ```
  ///
  /// - Throws: `CatalogSchemaError.undeclaredKeyPath` when a key path is not a declared number
  ///   field.
  public func located<Latitude, Longitude>(
    latitude: any KeyPath<Element, Latitude> & Sendable,
    longitude: any KeyPath<Element, Longitude> & Sendable
  ) throws(CatalogSchemaError) -> SearchSchema {
    func number(_ path: AnyKeyPath, role: String) throws(CatalogSchemaError) -> String {
      guard let field = field(for: path), field.kind == .number else {
        throw .undeclaredKeyPath(String(describing: path), role: role)
      }
      return field.name
    }
    var located = self
    located.catalog.location = LocationFields(
      latitude: try number(latitude as AnyKeyPath, role: "latitude"),
      longitude: try number(longitude as AnyKeyPath, role: "longitude"))
    try located.catalog.validate()
    return located
  }
}

extension SearchSchema {
  /// The schema with each element's vector at `keyPath` — an embedding the app made of the
  /// element (`NLEmbedding`, a Core ML model) — so a search may find elements by meaning
  /// (`SearchCriteria.vector`, `SearchModel.vector`), alone or fused with the text's order.
  ///
  /// ```swift
  /// let schema = try SearchSchema<Recipe>(title: .text("name", \.name))
  ///   .searchingByMeaning(\.embedding, dimensions: 512)
  /// ```
  ///
  /// An element whose vector is nil, of another length, or all zeros is found by its words
  /// alone.
  ///
  /// - Throws: `CatalogSchemaError.vectorDimensions` for a length outside 1…8,192.
  public func searchingByMeaning(
    _ keyPath: any KeyPath<Element, [Float]?> & Sendable, dimensions: Int
  ) throws(CatalogSchemaError) -> SearchSchema {
    try searchingByMeaning(dimensions: dimensions) { $0[keyPath: keyPath] }
  }

  /// `searchingByMeaning(_:dimensions:)` for a vector every element has.
  public func searchingByMeaning(
    _ keyPath: any KeyPath<Element, [Float]> & Sendable, dimensions: Int
  ) throws(CatalogSchemaError) -> SearchSchema {
    try searchingByMeaning(dimensions: dimensions) { $0[keyPath: keyPath] }
  }

  /// The schema whose elements' vectors `read` gives, each checked against `dimensions`.
  private func searchingByMeaning(
    dimensions: Int, read: @escaping @Sendable (Element) -> [Float]?
  ) throws(CatalogSchemaError) -> SearchSchema {
    var schema = self
    let field = VectorField(field: "vector", dimensions: dimensions)
    schema.catalog.vector = field
    try schema.catalog.validate()
    schema.vectorReader = { element in
      guard case .success(let floats?) = field.vector(in: read(element).map(FieldValue.vector))
      else { return nil }
      return floats
    }
    return schema
  }
}
