extension SearchController {
  // MARK: - Edits saved first (the one edit pipeline)

  /// Makes one edit the way every catalog editor in Sift does — the terminal app's form and
  /// `CatalogSession` alike: check it against the items, name a new item
  /// (`persistence.makeItemID()`), write it (`persistence.persist(_:)`), and only then apply it
  /// to the rows shown. A refused edit or a failed write changes neither the catalog nor the rows.
  ///
  /// - Complexity: the write, plus the edit's cost in the collection (see `add(_:)`).
  @discardableResult
  public mutating func commit<Persistence: CatalogPersistence>(
    _ edit: CatalogEdit, to persistence: Persistence
  ) throws(CatalogEditFailure<Persistence.Failure>) -> CommittedEdit {
    let resolved: CatalogEdit
    let id: ItemID
    switch edit {
    case .add(let given, let fields):
      if let given {
        guard !collection.contains(id: given) else { throw .refused(.duplicateID(given)) }
        id = given
      } else {
        do {
          id = try persistence.makeItemID()
        } catch {
          throw .notSaved(error)
        }
        // The catalog and the rows agree, so a fresh id is free here too; refuse if not.
        guard !collection.contains(id: id) else { throw .refused(.duplicateID(id)) }
      }
      resolved = .add(id, fields: fields)
    case .update(let item):
      guard collection.contains(id: item.id) else { throw .refused(.unknownID(item.id)) }
      (resolved, id) = (edit, item.id)
    case .delete(let given):
      guard collection.contains(id: given) else { throw .refused(.unknownID(given)) }
      (resolved, id) = (edit, given)
    }
    do {
      try persistence.persist(resolved)
    } catch {
      throw .notSaved(error)
    }
    do {
      let changes = settled(try collection.apply(resolved))
      return CommittedEdit(id: id, edit: resolved, changes: changes)
    } catch {
      // Unreachable: the edit was checked against these items above.
      throw .refused(error)
    }
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
