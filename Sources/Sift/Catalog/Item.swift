/// One entry of a catalog: a stable id and its field values by field name.
public struct Item: Identifiable, Hashable, Sendable, Codable {
  public var id: ItemID
  public var fields: [String: FieldValue]

  public init(id: ItemID, fields: [String: FieldValue]) {
    self.id = id
    self.fields = fields
  }

  public subscript(field: String) -> FieldValue? {
    get { fields[field] }
    set { fields[field] = newValue }
  }
}
