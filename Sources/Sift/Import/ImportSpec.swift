/// Which fields of the records in a file become which fields of a catalog
/// (`sift import --title name --text alternates --number population --category country --id id`).
public struct ImportSpec: Hashable, Sendable {
  public var titleField: String
  /// More text fields; each may hold a string or (JSON Lines) an array of strings.
  public var textFields: [String]
  public var numberFields: [String]
  public var categoryField: String?
  /// The field whose value becomes each item's id; without it, items get the next free numbers.
  public var idField: String?
  /// The number field that orders ties (popularity); it is imported as a number field even
  /// when `numberFields` does not name it. Nil keeps the catalog's.
  public var rankingField: RankingField?

  public init(
    titleField: String, textFields: [String] = [], numberFields: [String] = [],
    categoryField: String? = nil, idField: String? = nil, rankingField: RankingField? = nil
  ) {
    self.titleField = titleField
    self.textFields = textFields
    self.numberFields = numberFields
    self.categoryField = categoryField
    self.idField = idField
    self.rankingField = rankingField
  }

  /// The number fields, the ranking field among them.
  package var allNumberFields: [String] {
    guard let ranking = rankingField?.field, !numberFields.contains(ranking) else {
      return numberFields
    }
    return numberFields + [ranking]
  }

  /// The catalog fields this import fills, title first.
  public var fields: [FieldDefinition] {
    var fields: [FieldDefinition] = [.text(titleField)]
    var names: Set<String> = [titleField]
    for name in textFields where names.insert(name).inserted { fields.append(.text(name)) }
    for name in allNumberFields where names.insert(name).inserted { fields.append(.number(name)) }
    if let categoryField, names.insert(categoryField).inserted {
      fields.append(.category(categoryField))
    }
    return fields
  }

  /// A field named with two kinds (`--text year --number year`).
  package var conflictingField: String? {
    var kinds: [String: FieldDefinition.Kind] = [titleField: .text]
    let all: [(String, FieldDefinition.Kind)] =
      textFields.map { ($0, .text) } + allNumberFields.map { ($0, .number) }
      + (categoryField.map { [($0, .category)] } ?? [])
    for (name, kind) in all {
      if let existing = kinds[name], existing != kind { return name }
      kinds[name] = kind
    }
    return nil
  }
}
