/// A whole catalog as one Codable value: its schema and its items in catalog order.
/// The built-in catalogs ship in this form.
public struct CatalogDocument: Hashable, Sendable, Codable {
  public var schema: CatalogSchema
  public var items: [Item]

  public init(schema: CatalogSchema, items: [Item]) {
    self.schema = schema
    self.items = items
  }

  /// A filtered collection of the items, showing everything.
  public func makeCollection(
    typoTolerance: TypoTolerance = .automatic
  ) throws(CatalogEditError) -> FilteredCollection {
    try FilteredCollection(schema: schema, items: items, typoTolerance: typoTolerance)
  }
}
