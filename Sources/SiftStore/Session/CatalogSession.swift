import Foundation
import Sift

/// An open catalog and the search over it, kept in agreement: every edit is written to the file
/// in one transaction first, and only then applied to the `SearchController`'s filtered view,
/// so a failed write changes neither.
public struct CatalogSession: Sendable {
  public let store: CatalogStore
  public private(set) var controller: SearchController

  /// How the catalog was opened: where its index came from and what it cost.
  public let openReport: CatalogStore.OpenReport
  /// The generation of the items the search's index answers; nil once unknown (another writer).
  private var indexGeneration: Int64?

  /// Loads the catalog's items and its search, the index read from the file when it is current
  /// (`CatalogStore.openCollection(typoTolerance:)`).
  public init(
    store: CatalogStore, typoTolerance: TypoTolerance = .automatic
  ) throws(StoreError) {
    self.store = store
    let (collection, report) = try store.openCollection(typoTolerance: typoTolerance)
    controller = SearchController(collection: collection)
    openReport = report
    indexGeneration = report.generation
  }

  public var schema: CatalogSchema { controller.schema }

  /// Activates the search and applies a scope by title, tokens by identifier and the text, as
  /// `sift search` and `sift serve` receive them (`SearchController.apply(_:)`).
  public mutating func apply(_ input: SearchRequestInput) throws(SearchRequestError) {
    try controller.apply(input)
  }

  /// Forwards a search event to the controller.
  @discardableResult
  public mutating func send(_ event: SearchController.Event) -> [SearchController.Action] {
    controller.send(event)
  }

  // MARK: - Edits

  /// Makes one edit through the pipeline the terminal app uses too
  /// (`SearchController.commit(_:to:)`): checked, written to the file, then shown.
  @discardableResult
  public mutating func commit(_ edit: CatalogEdit) throws(StoreError) -> CommittedEdit {
    let tracked = TrackedStore(store: store, generation: indexGeneration)
    defer { indexGeneration = tracked.generation }
    do {
      return try controller.commit(edit, to: tracked)
    } catch {
      switch error {
      case .refused(let refusal): throw .edit(refusal)
      case .notSaved(let failure): throw failure
      }
    }
  }

  /// Adds an item with a fresh id; returns the id and the row changes.
  public mutating func add(fields: [String: FieldValue]) throws(StoreError) -> (ItemID, RowChanges)
  {
    let committed = try commit(.add(nil, fields: fields))
    return (committed.id, committed.changes)
  }

  @discardableResult
  public mutating func add(_ item: Item) throws(StoreError) -> RowChanges {
    try commit(.add(item)).changes
  }

  @discardableResult
  public mutating func update(_ item: Item) throws(StoreError) -> RowChanges {
    try commit(.update(item)).changes
  }

  @discardableResult
  public mutating func delete(id: ItemID) throws(StoreError) -> RowChanges {
    try commit(.delete(id)).changes
  }

  /// Deletes the item shown at `row` of the current results.
  @discardableResult
  public mutating func deleteRow(_ row: Int) throws(StoreError) -> RowChanges {
    guard controller.rows.indices.contains(row) else {
      throw .edit(.rowOutOfRange(row, rowCount: controller.rows.count))
    }
    return try delete(id: controller.rows[row])
  }

  // MARK: - The index in the file

  /// Saves the search's index in the file, so the next open reads it instead of folding every
  /// item; only when no other writer changed the items since (returns whether it was saved).
  @discardableResult
  public func saveIndex() throws(StoreError) -> Bool {
    guard let indexGeneration else { return false }
    return try store.saveIndex(controller.collection.index, builtAtGeneration: indexGeneration)
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

/// The catalog file as the edit pipeline's persistence, following the items' generation through
/// the edits (`CatalogStore.persist(_:tracking:)`).
public final class TrackedStore: CatalogPersistence {
  public let store: CatalogStore
  /// The generation the caller's index answers after the edits made through this; nil: unknown.
  public private(set) var generation: Int64?

  public init(store: CatalogStore, generation: Int64?) {
    self.store = store
    self.generation = generation
  }

  public func makeItemID() throws(StoreError) -> ItemID { try store.makeItemID() }

  public func persist(_ edit: CatalogEdit) throws(StoreError) {
    try store.persist(edit, tracking: &generation)
  }
}
