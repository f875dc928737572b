/// One change to a catalog's items, as every editor of a catalog makes it: the terminal app's
/// form, a served catalog, an app's own screens. See `SearchCollection.commit(_:to:)`.
public enum CatalogEdit: Hashable, Sendable {
  /// Adds an item. With a nil id, the catalog names it (`CatalogPersistence.makeItemID()`).
  case add(ItemID?, fields: [String: FieldValue])
  /// Replaces the fields of the item with `item.id`; it keeps its place in catalog order.
  case update(Item)
  case delete(ItemID)

  /// Adds `item` under its own id.
  public static func add(_ item: Item) -> CatalogEdit { .add(item.id, fields: item.fields) }

  /// The item the edit concerns, when it names one.
  public var id: ItemID? {
    switch self {
    case .add(let id, _): id
    case .update(let item): item.id
    case .delete(let id): id
    }
  }
}

/// Where a catalog's edits are kept — the catalog file, a server — written before the search
/// shows them, so what is shown was saved.
public protocol CatalogPersistence {
  associatedtype Failure: Error

  /// An id no item has, by the catalog's rule for new items.
  func makeItemID() throws(Failure) -> ItemID
  /// Writes one edit, all or nothing. An edit arrives checked against the items searched
  /// (no duplicate id on add, a known id on update and delete) and with its id.
  func persist(_ edit: CatalogEdit) throws(Failure)
}

/// Why an edit was not made; in both cases neither the catalog nor the search changed.
public enum CatalogEditFailure<StorageFailure: Error>: Error, CustomStringConvertible {
  /// The edit does not fit the items (an id that exists already, or no longer exists).
  case refused(CatalogEditError)
  /// The persistence could not write it (disk full, read-only file…).
  case notSaved(StorageFailure)

  public var description: String {
    switch self {
    case .refused(let error): "\(error)"
    case .notSaved(let error): "\(error)"
    }
  }
}

/// What a committed edit did.
public struct CommittedEdit: Hashable, Sendable {
  /// The id of the item added, updated or deleted (for an add with a nil id, the new one).
  public let id: ItemID
  /// The edit as written, with its id.
  public let edit: CatalogEdit
  /// How the rows shown changed.
  public let changes: RowChanges
}

extension SearchCollection where Element == Item {
  // MARK: - The one edit pipeline

  /// Makes one edit the way every catalog editor in Sift does — the terminal app's form
  /// (through `SearchController.commit(_:to:)`), a served catalog and a PostgreSQL node's
  /// copy alike: check it against the items, name a new item (`persistence.makeItemID()`),
  /// write it (`persistence.persist(_:)`, which logs it where the store keeps a log), and only
  /// then apply it to the items in memory. A refused edit or a failed write changes neither the
  /// catalog nor the items.
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
        guard !contains(id: given) else { throw .refused(.duplicateID(given)) }
        id = given
      } else {
        do {
          id = try persistence.makeItemID()
        } catch {
          throw .notSaved(error)
        }
        // The catalog and the items agree, so a fresh id is free here too; refuse if not.
        guard !contains(id: id) else { throw .refused(.duplicateID(id)) }
      }
      resolved = .add(id, fields: fields)
    case .update(let item):
      guard contains(id: item.id) else { throw .refused(.unknownID(item.id)) }
      (resolved, id) = (edit, item.id)
    case .delete(let given):
      guard contains(id: given) else { throw .refused(.unknownID(given)) }
      (resolved, id) = (edit, given)
    }
    do {
      try persistence.persist(resolved)
    } catch {
      throw .notSaved(error)
    }
    do {
      return CommittedEdit(id: id, edit: resolved, changes: try apply(resolved))
    } catch {
      // Unreachable: the edit was checked against these items above.
      throw .refused(error)
    }
  }

  /// Makes an edit already written (`CommittedEdit.edit`: an add carries its id) to the items
  /// in memory: what `commit(_:to:)` does once the write succeeded, and what a second copy of
  /// the items replays to catch up.
  @discardableResult
  public mutating func apply(_ edit: CatalogEdit) throws(CatalogEditError) -> RowChanges {
    switch edit {
    case .add(let id, let fields): try add(Item(id: id ?? ItemID(""), fields: fields))
    case .update(let item): try update(item)
    case .delete(let id): try delete(id: id)
    }
  }
}
