import Foundation
import Sift

extension SearchModel where Element == Item {
  /// A model of every item of the catalog file at `url` (a copy `CatalogSync` keeps, or any
  /// catalog file), searched with its schema and synonyms. The index is the one saved beside
  /// the file (a sync saves it, brought up to date from the file's log if changes came since),
  /// so opening reads the items and folds nothing; without one it is built, and saved.
  public convenience init(catalogAt url: URL, backgroundThreshold: Int = 20_000) throws {
    let store = try CatalogStore.open(at: url)
    defer { try? store.close() }
    let opened = try store.openCollection().collection
    let document = try store.loadDocument()
    let collection: FilteredCollection
    if opened.schema == document.schema,
      let overIndex = try? FilteredCollection(
        document.items, schema: opened.searchSchema, index: opened.index)
    {
      collection = overIndex
    } else {
      // Another writer changed the file between the two reads: the index of what was read.
      collection = try FilteredCollection(
        document.items, schema: try SearchSchema<Item>(document.schema))
    }
    self.init(collection, backgroundThreshold: backgroundThreshold)
  }

  /// Makes the changes a sync brought in place, so that the search, scope and tokens the person
  /// has stay as they are; returns false when they cannot be (a whole copy, new synonyms): open
  /// the file again with `init(catalogAt:)`. An item that took a new place on the server comes
  /// as a delete and a put, and joins the end of the model as it joined the end of the copy.
  @discardableResult
  public func apply(_ report: SyncReport) -> Bool {
    guard !report.isFirstCopy, report.startedOver == nil, !report.synonymsChanged else {
      return false
    }
    for change in report.changes {
      if let item = change.put {
        do {
          try update(item)
        } catch {
          do { try add(item) } catch { return false }
        }
      } else if let id = change.delete {
        _ = try? delete(id: id)
      }
    }
    return true
  }
}
