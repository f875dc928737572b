extension SearchIndex {
  /// Brings an index read back from an archive up to date with the few elements changed since
  /// it was saved, instead of folding every element again: `removed` ids leave, `updated`
  /// elements keep their place in catalog order, `appended` ones join its end in the order
  /// given.
  ///
  /// - Throws: `CatalogEditError.unknownID` or `.duplicateID` when the changes do not fit the
  ///   index (the caller then builds it afresh).
  /// - Complexity: O(*m*) in the changed elements' text, plus O(*n*) per added or updated
  ///   element to place it in popularity order when the schema ranks by a field.
  package mutating func replay<Element: Identifiable & Sendable>(
    removing removed: [ID], updating updated: [Element], appending appended: [Element],
    schema: SearchSchema<Element>
  ) throws(CatalogEditError) where Element.ID == ID {
    for id in removed { try remove(id: id) }
    for element in updated { try update(element.id, schema.indexedValues(of: element)) }
    for element in appended { try add(element.id, schema.indexedValues(of: element)) }
  }
}
