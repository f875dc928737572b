extension SearchController {
  // MARK: - Edits saved first

  /// Makes one edit through the collection's pipeline (`FilteredCollection.commit(_:to:)`:
  /// checked, written, then applied), then settles what the screen shows: the facets counted
  /// again and a selection the edit hid dropped. A refused edit or a failed write changes
  /// neither the catalog nor the rows.
  ///
  /// - Complexity: the write, plus the edit's cost in the collection (see `add(_:)`).
  @discardableResult
  public mutating func commit<Persistence: CatalogPersistence>(
    _ edit: CatalogEdit, to persistence: Persistence
  ) throws(CatalogEditFailure<Persistence.Failure>) -> CommittedEdit {
    let committed = try collection.commit(edit, to: persistence)
    return CommittedEdit(
      id: committed.id, edit: committed.edit, changes: settled(committed.changes))
  }

  // MARK: - Edits to the rows alone

  /// Adds an item to the rows (not to any file: see `commit(_:to:)`); see
  /// `FilteredCollection.add(_:)`.
  ///
  /// - Complexity: as `FilteredCollection.add(_:)`; when searches run elsewhere, plus a count of
  ///   the facets over the rows (O(*k*)).
  @discardableResult
  public mutating func add(_ item: Item) throws(CatalogEditError) -> RowChanges {
    settled(try collection.add(item))
  }

  /// Replaces the item with `item.id`; see `FilteredCollection.update(_:)`.
  ///
  /// - Complexity: as `add(_:)`.
  @discardableResult
  public mutating func update(_ item: Item) throws(CatalogEditError) -> RowChanges {
    settled(try collection.update(item))
  }

  /// Deletes the item with `id`.
  ///
  /// - Complexity: O(*k*) in the rows, as `add(_:)` for the facets.
  @discardableResult
  public mutating func delete(id: ItemID) throws(CatalogEditError) -> RowChanges {
    settled(try collection.delete(id: id))
  }

  /// Deletes the item shown at `row`.
  ///
  /// - Complexity: O(*k*) in the rows, as `add(_:)` for the facets.
  @discardableResult
  public mutating func deleteRow(_ row: Int) throws(CatalogEditError) -> RowChanges {
    settled(try collection.deleteRow(row))
  }

  /// After an edit: the facets shown are counted again (when searches run elsewhere nothing
  /// else would), and a selection the edit hid is dropped.
  private mutating func settled(_ changes: RowChanges) -> RowChanges {
    installedFacets = searchesImmediately ? nil : collection.facets
    dropSelectionIfHidden()
    return changes
  }
}
