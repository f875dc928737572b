/// Results listed by a field rather than by relevance: a number field (price, year) or the
/// title, smallest or largest first. Relevance still decides between items whose values are
/// equal, then popularity, then catalog order; items without a value come last either way.
///
/// `sift search --sort price:desc`, `GET /search?sort=price:desc`, or in Swift
/// `SearchCriteria(text: "bar", sort: SearchSort("price", descending: true))` — or through an
/// app's own type, `try schema.sort(by: \.price)`.
public struct SearchSort: Hashable, Sendable, CustomStringConvertible {
  /// The field's name as the schema declares it.
  public var field: String
  public var isDescending: Bool

  public init(_ field: String, descending: Bool = false) {
    self.field = field
    isDescending = descending
  }

  /// `price`, `price:asc`, `price:desc` (any case); nil for anything else.
  public init?(parsing text: String) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard let name = parts.first, !name.isEmpty, parts.count <= 2 else { return nil }
    switch parts.count == 2 ? parts[1].lowercased() : "asc" {
    case "asc": self.init(String(name))
    case "desc": self.init(String(name), descending: true)
    default: return nil
    }
  }

  /// `price:desc`, as `init(parsing:)` reads it.
  public var description: String { "\(field):\(isDescending ? "desc" : "asc")" }

  /// The name that sorts by distance from the place asked for (`--sort distance`), in a catalog
  /// with a location and no field of that name.
  public static let distanceName = "distance"

  /// The name that sorts by the title field, whatever the catalog calls it (`--sort title`).
  public static let titleName = "title"

  /// Nearest first (`--sort distance`): distance alone orders, relevance breaks ties.
  public static let distance = SearchSort(distanceName)

  /// Whether this sorts by distance rather than a field (as `CatalogSchema.resolved(_:)` gives
  /// it).
  public var isDistance: Bool { field == Self.distanceName }
}

extension CatalogSchema {
  /// The fields results can be sorted by: the title, then every number field.
  public var sortableFields: [FieldDefinition] {
    fields.filter { $0.name == titleField } + fields.filter { $0.kind == .number }
  }

  /// Every order a sort menu offers: relevance (nil), then each sortable field smallest first
  /// and largest first.
  public var sortChoices: [SearchSort?] {
    [nil] + sortableFields.flatMap { [SearchSort($0.name), SearchSort($0.name, descending: true)] }
  }

  /// How a menu names `sort`: "Intro price, highest first", "Title, Z–A"; "Relevance" for nil.
  public func describe(_ sort: SearchSort?) -> String {
    if let sort, sort.isDistance, resolved(sort) == sort {
      return "Distance, \(sort.isDescending ? "farthest" : "nearest") first"
    }
    guard let sort, let field = field(named: sort.field) else { return "Relevance" }
    let isTitle = field.name == titleField
    let way =
      isTitle
      ? (sort.isDescending ? "Z–A" : "A–Z")
      : (sort.isDescending ? "highest first" : "lowest first")
    return "\(field.label), \(way)"
  }

  /// `sort` with the field's name as the schema spells it, when the schema can sort by it (any
  /// case); nil otherwise.
  public func resolved(_ sort: SearchSort) -> SearchSort? {
    let key = Self.fieldKey(sort.field)
    // "title" names the title field whatever it is called ("name"), unless a field is "title".
    let named =
      key == SearchSort.titleName && !allFields.contains(where: { Self.fieldKey($0.name) == key })
      ? Self.fieldKey(titleField) : key
    guard let field = sortableFields.first(where: { Self.fieldKey($0.name) == named }) else {
      // "distance" sorts by distance where no field takes the name.
      guard location != nil, key == SearchSort.distanceName,
        !allFields.contains(where: { Self.fieldKey($0.name) == key })
      else { return nil }
      return SearchSort(SearchSort.distanceName, descending: sort.isDescending)
    }
    return SearchSort(field.name, descending: sort.isDescending)
  }

  /// What a sort may name, for an error: the sortable fields, and `distance` with a location.
  public var sortChoiceNames: [String] {
    sortableFields.map(\.name) + (location == nil ? [] : [SearchSort.distanceName])
  }
}

extension SearchSchema {
  /// The sort by `keyPath`, a declared number field or the title.
  ///
  /// - Throws: `CatalogSchemaError.undeclaredKeyPath` when no such field is declared, or it is
  ///   neither a number nor the title.
  public func sort<Value>(
    by keyPath: any KeyPath<Element, Value> & Sendable, descending: Bool = false
  ) throws(CatalogSchemaError) -> SearchSort {
    guard
      let field = fields.first(where: { ($0.keyPath as AnyKeyPath) == (keyPath as AnyKeyPath) }),
      let sort = catalog.resolved(SearchSort(field.definition.name, descending: descending))
    else {
      throw .undeclaredKeyPath(String(describing: keyPath as AnyKeyPath), role: "sort")
    }
    return sort
  }

  /// The field name that groups results by `keyPath` (`model.distinct = try
  /// schema.distinct(by: \.author)`: the best book of each author).
  ///
  /// - Throws: `CatalogSchemaError.undeclaredKeyPath` when no such field is declared.
  public func distinct<Value>(
    by keyPath: any KeyPath<Element, Value> & Sendable
  ) throws(CatalogSchemaError) -> String {
    guard let field = field(for: keyPath), catalog.distinctField(named: field.name) != nil else {
      throw .undeclaredKeyPath(String(describing: keyPath as AnyKeyPath), role: "distinct")
    }
    return field.name
  }
}
