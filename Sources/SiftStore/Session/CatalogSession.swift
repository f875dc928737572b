import Foundation
import Sift

/// An open catalog file and its items in memory, kept in agreement: every edit goes through the
/// collection's pipeline (`FilteredCollection.commit(_:to:)`), written to the file in one
/// transaction first and only then applied, so a failed write changes neither. What a screen
/// shows of it (a search field, tokens, a selection) is the caller's own controller over
/// `collection`: this keeps only the items and the file.
public struct CatalogSession: Sendable {
  public let store: CatalogStore
  /// The items, filtered by the last `filter(by:)`.
  public private(set) var collection: FilteredCollection

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
    self.collection = collection
    openReport = report
    indexGeneration = report.generation
  }

  public var schema: CatalogSchema { collection.schema }

  /// Shows the items that match `criteria`: the rows later edits report their changes in.
  public mutating func filter(by criteria: SearchCriteria) {
    collection.filter(by: criteria)
  }

  // MARK: - Edits

  /// Makes one edit through the pipeline every editor uses (`FilteredCollection.commit(_:to:)`):
  /// checked, written to the file, then applied.
  @discardableResult
  public mutating func commit(_ edit: CatalogEdit) throws(StoreError) -> CommittedEdit {
    let tracked = TrackedStore(store: store, generation: indexGeneration)
    defer { indexGeneration = tracked.generation }
    do {
      return try collection.commit(edit, to: tracked)
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
    guard collection.rows.indices.contains(row) else {
      throw .edit(.rowOutOfRange(row, rowCount: collection.rows.count))
    }
    return try delete(id: collection.rows[row])
  }

  // MARK: - The index in the file

  /// Saves the search's index in the file, so the next open reads it instead of folding every
  /// item; only when no other writer changed the items since (returns whether it was saved).
  @discardableResult
  public func saveIndex() throws(StoreError) -> Bool {
    guard let indexGeneration else { return false }
    return try store.saveIndex(collection.index, builtAtGeneration: indexGeneration)
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
