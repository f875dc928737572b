import Foundation
import Sift

/// An open catalog and the search over it, kept in agreement: every edit is written to the file
/// in one transaction first, and only then applied to the `SearchController`'s filtered view,
/// so a failed write changes neither.
public struct CatalogSession: Sendable {
  public let store: CatalogStore
  public private(set) var controller: SearchController

  /// Loads the catalog's items and builds the search over them.
  public init(
    store: CatalogStore, typoTolerance: TypoTolerance = .automatic
  ) throws(StoreError) {
    self.store = store
    let document = try store.loadDocument()
    do {
      controller = SearchController(
        collection: try document.makeCollection(typoTolerance: typoTolerance))
    } catch {
      throw .edit(error)
    }
  }

  public var schema: CatalogSchema { controller.schema }

  /// Forwards a search event to the controller.
  @discardableResult
  public mutating func send(_ event: SearchController.Event) -> [SearchController.Action] {
    controller.send(event)
  }

  // MARK: - Edits

  /// Adds an item with a fresh id; returns the id and the row changes.
  public mutating func add(fields: [String: FieldValue]) throws(StoreError) -> (ItemID, RowChanges)
  {
    let id = try store.makeItemID()
    let changes = try add(Item(id: id, fields: fields))
    return (id, changes)
  }

  @discardableResult
  public mutating func add(_ item: Item) throws(StoreError) -> RowChanges {
    guard controller.collection.item(id: item.id) == nil else {
      throw .edit(.duplicateID(item.id))
    }
    try store.add(item)
    return try apply { (controller: inout SearchController) throws(CatalogEditError) in
      try controller.add(item)
    }
  }

  @discardableResult
  public mutating func update(_ item: Item) throws(StoreError) -> RowChanges {
    guard controller.collection.item(id: item.id) != nil else { throw .edit(.unknownID(item.id)) }
    try store.update(item)
    return try apply { (controller: inout SearchController) throws(CatalogEditError) in
      try controller.update(item)
    }
  }

  @discardableResult
  public mutating func delete(id: ItemID) throws(StoreError) -> RowChanges {
    guard controller.collection.item(id: id) != nil else { throw .edit(.unknownID(id)) }
    try store.delete(id: id)
    return try apply { (controller: inout SearchController) throws(CatalogEditError) in
      try controller.delete(id: id)
    }
  }

  /// Deletes the item shown at `row` of the current results.
  @discardableResult
  public mutating func deleteRow(_ row: Int) throws(StoreError) -> RowChanges {
    guard controller.rows.indices.contains(row) else {
      throw .edit(.rowOutOfRange(row, rowCount: controller.rows.count))
    }
    return try delete(id: controller.rows[row])
  }

  private mutating func apply(
    _ edit: (inout SearchController) throws(CatalogEditError) -> RowChanges
  ) throws(StoreError) -> RowChanges {
    do {
      return try edit(&controller)
    } catch {
      throw .edit(error)
    }
  }

  // MARK: - Search state

  /// Saves the search state (text, tokens, scope, active, focus, selection) into the catalog.
  public func saveSearchState() throws(StoreError) {
    try store.saveSearchState(controller.encodedSnapshot())
  }

  /// Restores the saved search state, if any; returns what could not be restored.
  @discardableResult
  public mutating func restoreSearchState() throws(StoreError) -> [SearchController
    .RestorationProblem]
  {
    guard let data = try store.loadSearchState() else { return [] }
    return controller.restore(from: data)
  }
}
