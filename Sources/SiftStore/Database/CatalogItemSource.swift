import GRDB
import Sift

/// A catalog file's items table as the `ElementSource` of a search over it: the collection
/// keeps only its index, and the rows a screen shows (or `sift search` writes) are read here
/// when needed, by id, in one read transaction.
///
/// The fields are those of the schema the catalog was opened with (the schema changes only by
/// an import, which a running search learns of through the items' generation).
public struct CatalogItemSource: ElementSource {
  public let store: CatalogStore
  let fields: [FieldDefinition]

  public init(store: CatalogStore, schema: CatalogSchema) {
    self.store = store
    fields = schema.allFields
  }

  /// The items with these ids, in any order. A read that fails (the file gone, a disk error)
  /// returns none: the rows are then shown without their fields, and the next read tries again.
  public func elements(withIDs ids: [ItemID]) -> [Item] {
    (try? store.read { db in try CatalogStore.items(withIDs: ids, fields: fields, db) }) ?? []
  }
}
