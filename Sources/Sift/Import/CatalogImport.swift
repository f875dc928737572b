/// One record read from an import file, checked against the spec.
public struct ImportRecord: Hashable, Sendable {
  /// Where the record starts in the file (1-based).
  public var line: Int
  /// The id it gives its item; nil: the next free number.
  public var id: ItemID?
  public var fields: [String: FieldValue]

  public init(line: Int, id: ItemID?, fields: [String: FieldValue]) {
    self.line = line
    self.id = id
    self.fields = fields
  }
}

/// The rules of an import, the same whichever store keeps the catalog: how the import's
/// fields join the catalog's schema, how records become items (a known id updates its item in
/// place, a new one is added at the end, a record without one gets the next free number), and
/// when the category makes a scope bar. A .sqlite catalog applies them in SQL, a record at a
/// time; a catalog in PostgreSQL to its items in memory (`apply(_:spec:to:)`), then writes them
/// back in one transaction.
public enum CatalogImport {
  /// How many records added items and how many updated one.
  public struct Summary: Hashable, Sendable {
    public var added: Int
    public var updated: Int
    public var total: Int { added + updated }

    public init(added: Int = 0, updated: Int = 0) {
      self.added = added
      self.updated = updated
    }
  }

  /// The most category values that still make a scope bar; more are offered as tokens only.
  public static let maximumScopeCategories = 8

  /// The schema of a catalog an import creates: the import's fields, with an "All" scope when
  /// it has a category.
  public static func newSchema(name: String, spec: ImportSpec) -> CatalogSchema {
    CatalogSchema(
      name: name, fields: spec.fields, titleField: spec.titleField,
      categoryField: spec.categoryField, scopes: spec.categoryField == nil ? [] : [.all()],
      rankingField: spec.rankingField)
  }

  /// `schema` with the import's fields added. The title and category must be the catalog's,
  /// and a field the catalog has must keep its kind.
  public static func merged(
    _ schema: CatalogSchema, with spec: ImportSpec
  ) throws(ImportSchemaError) -> CatalogSchema {
    var schema = schema
    guard schema.titleField == spec.titleField else {
      throw .incompatible(
        "the catalog's title field is \"\(schema.titleField)\", not \"\(spec.titleField)\"")
    }
    if let category = spec.categoryField, let existing = schema.categoryField, existing != category
    {
      throw .incompatible(
        "the catalog's category field is \"\(existing)\", not \"\(category)\"")
    }
    for field in spec.fields {
      if let existing = schema.fields.first(where: { $0.name == field.name }) {
        guard existing.kind == field.kind else {
          throw .incompatible(
            "field \"\(field.name)\" is a \(existing.kind.rawValue) field in the catalog, not \(field.kind.rawValue)"
          )
        }
      } else {
        schema.fields.append(field)
      }
    }
    if let ranking = spec.rankingField { schema.rankingField = ranking }
    if schema.categoryField == nil, let category = spec.categoryField {
      schema.categoryField = category
      if schema.scopes.isEmpty { schema.scopes = [.all()] }
    }
    do {
      try schema.validate()
    } catch {
      throw .invalid(error)
    }
    return schema
  }

  /// A scope per category value when there are few (CandySearch's bar), else every value as a
  /// token suggestion; scopes the catalog already had keep their order and icons.
  /// `values`: the category's distinct non-empty values, in the order of the items that first
  /// hold them.
  public static func withCategoryScopes(
    _ schema: CatalogSchema, values: [String]
  ) -> CatalogSchema {
    guard schema.categoryField != nil else { return schema }
    var schema = schema
    if values.count <= maximumScopeCategories {
      let known = Set(schema.scopeCategories)
      if schema.scopes.isEmpty { schema.scopes = [.all()] }
      schema.scopes += values.filter { !known.contains($0) }.map { Scope.category($0) }
      schema.categories = []
    } else {
      schema.scopes = schema.scopes.filter {
        if case .category = $0.filter { return false }
        return true
      }
      if schema.scopes.count == 1, case .all = schema.scopes[0].filter { schema.scopes = [] }
      schema.categories = values.sorted()
    }
    return schema
  }

  /// `document` with `records` imported: its schema merged with the import's, known ids'
  /// items given the import's fields in place (their other fields kept), new ones added at
  /// the end, and the scopes or tokens of the category as the items now have them.
  public static func apply(
    _ records: [ImportRecord], spec: ImportSpec, to document: CatalogDocument
  ) throws(ImportSchemaError) -> (document: CatalogDocument, summary: Summary) {
    var schema = try merged(document.schema, with: spec)
    var items = document.items
    var rowOfID: [ItemID: Int] = [:]
    for (row, item) in items.enumerated() { rowOfID[item.id] = row }
    var allocator = ItemIDAllocator(ids: items.lazy.map(\.id.rawValue))
    var summary = Summary()
    let fields = spec.fields.map(\.name)
    for record in records {
      let id = record.id ?? allocator.next { rowOfID[ItemID($0)] != nil }
      if let row = rowOfID[id] {
        for field in fields { items[row].fields[field] = record.fields[field] }
        summary.updated += 1
      } else {
        rowOfID[id] = items.count
        items.append(Item(id: id, fields: record.fields.filter { fields.contains($0.key) }))
        summary.added += 1
      }
    }
    if let category = schema.categoryField {
      var seen: Set<String> = []
      var values: [String] = []
      for item in items {
        guard case .text(let value)? = item[category], !value.isEmpty,
          seen.insert(value).inserted
        else { continue }
        values.append(value)
      }
      schema = withCategoryScopes(schema, values: values)
    }
    return (CatalogDocument(schema: schema, items: items), summary)
  }
}

/// Why an import's fields do not fit the catalog; the message names the field.
public enum ImportSchemaError: Error, Hashable, Sendable, CustomStringConvertible {
  /// A title, category or field kind other than the catalog's.
  case incompatible(String)
  /// The merged schema is not a valid one.
  case invalid(CatalogSchemaError)

  public var description: String {
    switch self {
    case .incompatible(let reason): reason
    case .invalid(let error): "invalid catalog schema: \(error)"
    }
  }
}

/// The catalog's one rule for naming new items, for edits and imports alike: the next integer
/// after the largest numeric id, skipping any id already taken (say, "12" given by an import
/// while the largest number was 11).
package struct ItemIDAllocator {
  private var candidate: Int64

  /// Starts after `largest`, the largest number an id starts with (nil: none does).
  package init(largestNumber largest: Int64?) {
    candidate = (largest ?? 0) + 1
  }

  /// Starts after the largest number any of `ids` starts with.
  package init(ids: some Sequence<String>) {
    var largest: Int64?
    for id in ids {
      let digits = id.utf8.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
      guard !digits.isEmpty, let number = Int64(String(decoding: digits, as: UTF8.self)) else {
        continue
      }
      largest = max(largest ?? number, number)
    }
    self.init(largestNumber: largest)
  }

  /// The next id for which `isTaken` is false; it is then taken for this allocator.
  package mutating func next(isTaken: (String) throws -> Bool) rethrows -> ItemID {
    while try isTaken(String(candidate)) { candidate += 1 }
    defer { candidate += 1 }
    return ItemID(String(candidate))
  }
}
