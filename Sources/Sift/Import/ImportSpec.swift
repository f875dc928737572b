/// Which fields of the records in a file become which fields of a catalog
/// (`sift import --title name --text alternates --number population --category country --id id`).
///
/// Every other field of a record is kept too, as a stored field (`CatalogSchema.storedFields`):
/// shown and returned, not searched. A later import of the same catalog needs none of the flags
/// again (`continuing(_:)`).
public struct ImportSpec: Hashable, Sendable {
  /// The title field; empty: the catalog's (an import into a catalog that exists).
  public var titleField: String
  /// More text fields; each may hold a string or (JSON Lines) an array of strings.
  public var textFields: [String]
  /// The text fields that hold each item's other names (`--other-names alternates`), ranked
  /// like the title (`FieldDefinition.namesItem`); each is one of `textFields` too.
  public var otherNameFields: [String] = [] {
    didSet {
      for name in otherNameFields where !textFields.contains(name) { textFields.append(name) }
    }
  }
  public var numberFields: [String]
  public var categoryField: String?
  /// Whether plain terms search the category's values as text, after every other field
  /// (`FieldDefinition.isSearchable`): `goat` finds the goats. Nil: a new catalog's category
  /// is searched, a catalog that has one keeps what it says.
  public var searchesCategory: Bool?
  /// The field whose value becomes each item's id; without it, items get the next free numbers.
  public var idField: String?
  /// The number field that orders ties (popularity); it is imported as a number field even
  /// when `numberFields` does not name it. Nil keeps the catalog's.
  public var rankingField: RankingField?
  /// How a record whose id the catalog holds changes its item: false replaces the item whole
  /// (a field the record lacks is gone); true sets the fields the record has and keeps the rest.
  public var merges: Bool
  /// What people read for a field (`--label population=Inhabitants`), by field name: a searched
  /// or a stored one.
  public var labels: [String: String]
  /// A record without a value in `idField` gets the next free number instead of failing: the
  /// id field was the catalog's (`continuing(_:)`), not named for this file.
  public var numbersRecordsWithoutID = false
  /// The latitude and longitude fields (`--location lat,lon`): imported as number fields that
  /// plain terms do not search, each value checked to be on the earth. Nil keeps the catalog's.
  public var location: LocationFields?
  /// The field that holds each record's vector (`--vector FIELD`): an array of numbers, the
  /// same length in every record (`VectorField`); kept with the item, not searched as text.
  public var vectorField: String?
  /// The length the catalog's vectors have already; nil for a catalog without vectors, whose
  /// first vector sets it.
  public var vectorDimensions: Int?
  /// What people read as the catalog's name (`--name Airports`): the page's "Search Airports",
  /// the app's title. Nil keeps the catalog's (a new one's is its file name, capitalised).
  public var catalogTitle: String?

  public init(
    titleField: String, textFields: [String] = [], numberFields: [String] = [],
    categoryField: String? = nil, idField: String? = nil, rankingField: RankingField? = nil,
    merges: Bool = false, labels: [String: String] = [:], location: LocationFields? = nil
  ) {
    self.titleField = titleField
    self.textFields = textFields
    self.numberFields = numberFields
    self.categoryField = categoryField
    self.idField = idField
    self.rankingField = rankingField
    self.merges = merges
    self.labels = labels
    self.location = location
  }

  /// This import into a catalog that has `schema`: its title, searched fields, category and id
  /// field as they are, with what this spec adds. A field the catalog keeps unsearched becomes
  /// searched when this spec names it.
  public func continuing(_ schema: CatalogSchema) -> ImportSpec {
    var spec = self
    if spec.titleField.isEmpty { spec.titleField = schema.titleField }
    // A field this spec names with another kind is the merge's to refuse, by name.
    let named = Set(
      [spec.titleField] + textFields + otherNameFields + numberFields
        + [categoryField].compactMap { $0 })
    for field in schema.fields where !named.contains(field.name) {
      switch field.kind {
      case .text where !spec.textFields.contains(field.name):
        spec.textFields.append(field.name)
      case .number where !spec.numberFields.contains(field.name):
        spec.numberFields.append(field.name)
      default: break
      }
    }
    for field in schema.fields where field.namesItem && !spec.otherNameFields.contains(field.name) {
      spec.otherNameFields.append(field.name)
    }
    if spec.categoryField == nil, let category = schema.categoryField, !named.contains(category) {
      spec.categoryField = category
    }
    if spec.location == nil { spec.location = schema.location }
    if let vector = schema.vector {
      if spec.vectorField == nil { spec.vectorField = vector.field }
      if spec.vectorField == vector.field { spec.vectorDimensions = vector.dimensions }
    }
    if spec.idField == nil, let remembered = schema.idField {
      spec.idField = remembered
      spec.numbersRecordsWithoutID = true
    }
    return spec
  }

  /// Takes the length of `record`'s vector (`vectorField`): the first vector of a catalog
  /// without any sets `vectorDimensions`; every other must have it.
  ///
  /// - Returns: whether this record set the length.
  /// - Throws: `ImportSchemaError.unfitting` for a vector of another length.
  public mutating func takeVectorLength(of record: ImportRecord) throws(ImportSchemaError) -> Bool {
    guard let field = vectorField, case .vector(let floats)? = record.fields[field] else {
      return false
    }
    guard let dimensions = vectorDimensions else {
      vectorDimensions = floats.count
      return true
    }
    guard floats.count != dimensions else { return false }
    throw .unfitting(
      line: record.line,
      reason: "field \"\(field)\" \(VectorProblem.wrongLength(floats.count, expected: dimensions))")
  }

  /// Every field name a record's value is read for by name: the fields, and the id field.
  package var namedFields: Set<String> {
    var names = Set(fields.map(\.name))
    if let idField { names.insert(idField) }
    return names
  }

  /// The number fields, the ranking field and the location among them.
  package var allNumberFields: [String] {
    var all = numberFields
    for name in [rankingField?.field, location?.latitude, location?.longitude].compactMap({ $0 })
    where !all.contains(name) {
      all.append(name)
    }
    return all
  }

  /// The catalog fields this import fills, title first.
  public var fields: [FieldDefinition] {
    var fields: [FieldDefinition] = [.text(titleField)]
    var names: Set<String> = [titleField]
    for name in textFields + otherNameFields where names.insert(name).inserted {
      fields.append(.text(name, names: otherNameFields.contains(name)))
    }
    for name in allNumberFields where names.insert(name).inserted {
      // A coordinate is not a number anyone types to find an item: `lat:>40` filters by it.
      let isCoordinate = !numberFields.contains(name) && name != rankingField?.field
      fields.append(.number(name, searchable: !isCoordinate))
    }
    if let categoryField, names.insert(categoryField).inserted {
      fields.append(.category(categoryField, searchable: searchesCategory ?? true))
    }
    return fields
  }

  /// A field named with two kinds (`--text year --number year`).
  package var conflictingField: String? {
    var kinds: [String: FieldDefinition.Kind] = [titleField: .text]
    let all: [(String, FieldDefinition.Kind)] =
      (textFields + otherNameFields).map { ($0, .text) } + allNumberFields.map { ($0, .number) }
      + (categoryField.map { [($0, .category)] } ?? [])
    for (name, kind) in all {
      if let existing = kinds[name], existing != kind { return name }
      kinds[name] = kind
    }
    return nil
  }
}
