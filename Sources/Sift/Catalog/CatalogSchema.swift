/// What a catalog holds and how it is searched: its fields, which one is the title, which one
/// groups items, its scope bar and the tokens it suggests.
public struct CatalogSchema: Hashable, Sendable, Codable {
  /// The catalog's name in commands (`candies`).
  public var name: String
  /// What the navigation bar shows ("Candies").
  public var title: String
  public var fields: [FieldDefinition]
  /// The field shown as each row's title; relevance tiers compare against it.
  public var titleField: String
  /// The field category scopes and `category:` tokens filter on.
  public var categoryField: String?
  /// The scope bar, first button first. Empty: no scope bar.
  public var scopes: [Scope]
  /// Tokens offered while typing besides the categories (`year:>=2010` as "Since 2010").
  public var extraTokens: [SearchToken]
  /// Every category value, for token suggestions when there are too many for a scope bar
  /// (a country for each of 235,000 cities). Empty: the scope bar's categories are offered.
  public var categories: [String]
  /// The number field that orders items the other relevance rules leave tied (popularity);
  /// nil: catalog order alone.
  public var rankingField: RankingField?
  /// Fields the items keep and show but no search looks in: what an import was not told to
  /// search (a city's timezone and coordinates), so the catalog holds the whole record. Not
  /// indexed; returned with the item, shown in its detail, editable.
  public var storedFields: [FieldDefinition]
  /// The record field an import took each item's id from; a later import of the same catalog
  /// reads ids from it without being told again. Nil: items were numbered.
  public var idField: String?
  /// Whether the ids came as JSON numbers (`{"sku": 7}`): an id that is a whole number is then
  /// written back as one (`"id": 7`), through search, the HTTP API and export.
  public var idsAreNumbers = false
  /// Expressions that find each other (`sift synonyms`); not part of the index, so changing
  /// them takes effect at the next search.
  public var synonyms: Synonyms = Synonyms()
  /// Items pinned at a position of a query's results, or hidden from them (`sift pins`); like
  /// the synonyms, not part of the index.
  public var pins: Pins = Pins()
  /// The latitude and longitude fields (two number fields) that place items on the earth, so
  /// results can be near a place (`SearchNear`); nil: items have no location.
  public var location: LocationFields?
  /// The kept field whose array of numbers places each item in a space of meaning, and how
  /// many numbers it holds (`sift import --vector FIELD`); nil: items are found by their words
  /// alone.
  public var vector: VectorField?

  public init(
    name: String, title: String? = nil, fields: [FieldDefinition], titleField: String,
    categoryField: String? = nil, scopes: [Scope] = [], extraTokens: [SearchToken] = [],
    categories: [String] = [], rankingField: RankingField? = nil,
    storedFields: [FieldDefinition] = [], idField: String? = nil, location: LocationFields? = nil
  ) {
    self.name = name
    self.title = title ?? FieldDefinition.words(of: name)
    self.fields = fields
    self.titleField = titleField
    self.categoryField = categoryField
    self.scopes = scopes
    self.extraTokens = extraTokens
    self.categories = categories
    self.rankingField = rankingField
    self.storedFields = storedFields
    self.idField = idField
    self.location = location
  }

  private enum CodingKeys: String, CodingKey {
    case name, title, fields, titleField, categoryField, scopes, extraTokens, categories
    case rankingField, storedFields, idField, idsAreNumbers, synonyms, location, pins, vector
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
    try container.encode(title, forKey: .title)
    try container.encode(fields, forKey: .fields)
    try container.encode(titleField, forKey: .titleField)
    try container.encodeIfPresent(categoryField, forKey: .categoryField)
    try container.encode(scopes, forKey: .scopes)
    try container.encode(extraTokens, forKey: .extraTokens)
    try container.encode(categories, forKey: .categories)
    try container.encodeIfPresent(rankingField, forKey: .rankingField)
    // Left out when empty, so a catalog without them reads as it did before.
    if !storedFields.isEmpty { try container.encode(storedFields, forKey: .storedFields) }
    try container.encodeIfPresent(idField, forKey: .idField)
    if idsAreNumbers { try container.encode(true, forKey: .idsAreNumbers) }
    if !synonyms.isEmpty { try container.encode(synonyms, forKey: .synonyms) }
    try container.encodeIfPresent(location, forKey: .location)
    if !pins.isEmpty { try container.encode(pins, forKey: .pins) }
    try container.encodeIfPresent(vector, forKey: .vector)
  }

  /// The searched fields, then the stored ones: every field an item may hold.
  public var allFields: [FieldDefinition] { storedFields.isEmpty ? fields : fields + storedFields }

  /// The fields an index reads of an item: the searched ones, and the kept field that holds
  /// the vector (`vector`), if any.
  public var indexedFields: [FieldDefinition] {
    guard let vector, let kept = storedFields.first(where: { $0.name == vector.field }) else {
      return fields
    }
    return fields + [kept]
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      name: try container.decode(String.self, forKey: .name),
      title: try container.decodeIfPresent(String.self, forKey: .title),
      fields: try container.decode([FieldDefinition].self, forKey: .fields),
      titleField: try container.decode(String.self, forKey: .titleField),
      categoryField: try container.decodeIfPresent(String.self, forKey: .categoryField),
      scopes: try container.decodeIfPresent([Scope].self, forKey: .scopes) ?? [],
      extraTokens: try container.decodeIfPresent([SearchToken].self, forKey: .extraTokens) ?? [],
      categories: try container.decodeIfPresent([String].self, forKey: .categories) ?? [],
      rankingField: try container.decodeIfPresent(RankingField.self, forKey: .rankingField),
      storedFields: try container.decodeIfPresent([FieldDefinition].self, forKey: .storedFields)
        ?? [],
      idField: try container.decodeIfPresent(String.self, forKey: .idField))
    synonyms = try container.decodeIfPresent(Synonyms.self, forKey: .synonyms) ?? Synonyms()
    location = try container.decodeIfPresent(LocationFields.self, forKey: .location)
    pins = try container.decodeIfPresent(Pins.self, forKey: .pins) ?? Pins()
    idsAreNumbers = try container.decodeIfPresent(Bool.self, forKey: .idsAreNumbers) ?? false
    vector = try container.decodeIfPresent(VectorField.self, forKey: .vector)
  }

  /// `item` with its vector as the catalog keeps it (`FieldValue.vector`, from a JSON list of
  /// numbers as a client or a record gives it), checked against `vector`.
  ///
  /// - Throws: `CatalogEditError.invalidValue` naming the field, for a value that is not a
  ///   vector of the catalog's length.
  public func conforming(_ item: Item) throws(CatalogEditError) -> Item {
    guard let vector, let value = item[vector.field] else { return item }
    if case .vector(let floats) = value, floats.count == vector.dimensions { return item }
    switch vector.vector(in: value) {
    case .success(let floats):
      var item = item
      item[vector.field] = floats.map(FieldValue.vector)
      return item
    case .failure(let problem):
      throw .invalidValue(field: vector.field, reason: problem.description)
    }
  }

  /// `id` as JSON: a number when the ids came as numbers and this one is a whole number written
  /// plainly ("7", not "07"), else a string.
  package func json(_ id: ItemID) -> JSONValue {
    if idsAreNumbers, let number = Int64(id.rawValue), String(number) == id.rawValue {
      return .number(Double(number))
    }
    return .string(id.rawValue)
  }

  /// The first thing wrong with the schema, if any: a title or category field that is missing or
  /// of the wrong kind, a field named twice, a scope naming a field that does not exist.
  public func validate() throws(CatalogSchemaError) {
    var seen = Set<String>()
    for field in allFields {
      guard !field.name.isEmpty else { throw .emptyFieldName }
      guard seen.insert(Self.fieldKey(field.name)).inserted else {
        throw .duplicateField(field.name)
      }
    }
    if let stored = storedFields.first(where: { $0.kind == .category }) {
      throw .wrongKind(stored.name, role: "stored", expected: .text)
    }
    guard let title = fields.first(where: { $0.name == titleField }) else {
      throw .missingField(titleField, role: "title")
    }
    guard title.kind == .text else { throw .wrongKind(titleField, role: "title", expected: .text) }
    if let categoryField {
      guard let category = fields.first(where: { $0.name == categoryField }) else {
        throw .missingField(categoryField, role: "category")
      }
      guard category.kind == .category else {
        throw .wrongKind(categoryField, role: "category", expected: .category)
      }
    }
    if let rankingField {
      guard let field = fields.first(where: { $0.name == rankingField.field }) else {
        throw .missingField(rankingField.field, role: "ranking")
      }
      guard field.kind == .number else {
        throw .wrongKind(rankingField.field, role: "ranking", expected: .number)
      }
    }
    if let location {
      for (name, role) in [(location.latitude, "latitude"), (location.longitude, "longitude")] {
        guard let field = fields.first(where: { $0.name == name }) else {
          throw .missingField(name, role: role)
        }
        guard field.kind == .number else { throw .wrongKind(name, role: role, expected: .number) }
      }
    }
    if let vector {
      guard !fields.contains(where: { $0.name == vector.field }) else {
        throw .wrongKind(vector.field, role: "vector", expected: nil)
      }
      guard (1...VectorField.maximumDimensions).contains(vector.dimensions) else {
        throw .vectorDimensions(vector.dimensions)
      }
    }
    for scope in scopes {
      switch scope.filter {
      case .all: break
      case .category:
        guard categoryField != nil else { throw .categoryScopeWithoutCategory(scope.title) }
      case .fields(let names):
        for name in names where !fields.contains(where: { $0.name == name }) {
          throw .missingField(name, role: "scope \"\(scope.title)\"")
        }
      }
    }
  }

  /// The category field when plain terms search its values (`FieldDefinition.isSearchable`).
  package var searchedCategory: FieldDefinition? {
    guard let categoryField else { return nil }
    return fields.first { $0.name == categoryField && $0.kind == .category && $0.isSearchable }
  }

  /// The fields an index keeps as text, in its order: the text fields in schema order, then a
  /// searched category as a text field of its own, last — the weakest text, so a name or a
  /// describing field that matches comes first.
  package var indexedTextFields: [FieldDefinition] {
    var texts = fields.filter { $0.kind == .text }
    if var category = searchedCategory {
      category.kind = .text
      texts.append(category)
    }
    return texts
  }

  /// The field a query names, by name or label, ignoring case, spaces and underscores
  /// (`year`, `Year introduced`, `yearintroduced`); `category` names the category field.
  public func field(named name: String) -> FieldDefinition? {
    let key = Self.fieldKey(name)
    if let field = fields.first(where: { Self.fieldKey($0.name) == key }) { return field }
    if let field = fields.first(where: { Self.fieldKey($0.label) == key }) { return field }
    if key == "category", let categoryField { return fields.first { $0.name == categoryField } }
    return nil
  }

  /// The field results may be grouped by (`SearchCriteria.distinct`), named as
  /// `field(named:)` reads it: a text or number field, or the category field. A stored field is
  /// kept with the item but not in the index, so it cannot group.
  public func distinctField(named name: String) -> FieldDefinition? {
    guard let field = field(named: name) else { return nil }
    return field.kind != .category || field.name == categoryField ? field : nil
  }

  /// The fields results may be grouped by, in schema order: what an error lists.
  public var distinctFieldNames: [String] {
    fields.filter { $0.kind != .category || $0.name == categoryField }.map(\.name)
  }

  /// Every name a query may use for a field, for "did you mean" suggestions.
  public var fieldNames: [String] {
    var names = fields.map(\.name)
    if categoryField != nil, !names.contains("category") { names.append("category") }
    return names
  }

  /// The scope titles, first button first (UISearchBar's `scopeButtonTitles`).
  public var scopeTitles: [String] { scopes.map(\.title) }

  /// The category values named by the scope bar, in its order.
  public var scopeCategories: [String] {
    scopes.compactMap { if case .category(let value) = $0.filter { value } else { nil } }
  }

  /// The tokens offered as suggestions: one per category (of `categories`, else of the scope
  /// bar), then `extraTokens`.
  public var suggestedTokens: [SearchToken] {
    if !categories.isEmpty {
      let icons = Dictionary(
        scopes.compactMap { scope -> (String, String)? in
          guard case .category(let value) = scope.filter, let icon = scope.icon else { return nil }
          return (value, icon)
        }, uniquingKeysWith: { first, _ in first })
      return categories.map {
        SearchToken(text: $0, icon: icons[$0], identifier: "category:\($0)")
      } + extraTokens
    }
    let categories = scopes.compactMap { scope -> SearchToken? in
      guard case .category(let value) = scope.filter else { return nil }
      return SearchToken(text: value, icon: scope.icon, identifier: "category:\(value)")
    }
    return categories + extraTokens
  }

  static func fieldKey(_ name: String) -> String {
    String(name.lowercased().filter { $0 != " " && $0 != "_" && $0 != "-" })
  }
}

/// Why a schema cannot describe a catalog.
public enum CatalogSchemaError: Error, Hashable, Sendable, CustomStringConvertible {
  case emptyFieldName
  case duplicateField(String)
  case missingField(String, role: String)
  /// A field of the wrong kind for its role; nil expected: a kept field (the vector).
  case wrongKind(String, role: String, expected: FieldDefinition.Kind?)
  /// A vector length outside 1…`VectorField.maximumDimensions`.
  case vectorDimensions(Int)
  case categoryScopeWithoutCategory(String)
  /// A typed schema names a key path that none of its fields declares (role: "ranking").
  case undeclaredKeyPath(String, role: String)
  /// A typed schema declares one key path as two fields.
  case keyPathDeclaredTwice(String, String, String)
  /// A typed schema declares a second category field.
  case secondCategory(String, first: String)

  public var description: String {
    switch self {
    case .emptyFieldName: "a field has an empty name"
    case .duplicateField(let name): "field \"\(name)\" is defined twice"
    case .missingField(let name, let role): "the \(role) field \"\(name)\" is not among the fields"
    case .wrongKind(let name, let role, let kind?):
      "the \(role) field \"\(name)\" must be a \(kind.rawValue) field"
    case .wrongKind(let name, let role, nil):
      "the \(role) field \"\(name)\" must be a kept field, not a searched one"
    case .vectorDimensions(let count):
      "a vector of \(count) numbers; vectors hold 1 to \(VectorField.maximumDimensions)"
    case .categoryScopeWithoutCategory(let title):
      "scope \"\(title)\" filters by category, but the catalog has no category field"
    case .undeclaredKeyPath(let path, let role):
      "the \(role) key path \(path) is not one of the schema's fields"
    case .keyPathDeclaredTwice(let path, let first, let second):
      "key path \(path) is declared twice, as \"\(first)\" and \"\(second)\""
    case .secondCategory(let name, let first):
      "field \"\(name)\" is a second category field; \"\(first)\" is the category"
    }
  }
}
