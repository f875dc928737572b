import Foundation
import Sift

extension SearchModel where Element == Item {
  /// A model of every item of the catalog file at `url` (a copy `CatalogSync` keeps, or any
  /// catalog file), searched with its schema and synonyms.
  public convenience init(catalogAt url: URL, backgroundThreshold: Int = 20_000) throws {
    let store = try CatalogStore.open(at: url)
    defer { try? store.close() }
    let document = try store.loadDocument()
    try self.init(
      document.items, schema: try SearchSchema<Item>(document.schema),
      backgroundThreshold: backgroundThreshold)
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
