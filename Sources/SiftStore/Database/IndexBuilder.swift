import CHeapUsage
import GRDB
import Sift

/// An index built while its items are written, a batch at a time: each batch is folded on
/// other threads while the caller reads and writes the next, so memory holds the index and a
/// batch, never every item. What an import and a copy (`sift sync`'s first copy, a PostgreSQL
/// node's load) leave beside their items, so that the first search reads an index rather than
/// builds one.
struct IndexBuilder {
  /// Items given and not yet handed to the index: it folds them in batches of this size, on
  /// every core.
  static let batchSize = 32_768

  private var build: Background<Build>
  private var unindexed: [Item] = []
  private let schema: SearchSchema<Item>

  /// A build of an index of `schema`'s fields, empty until items are appended.
  init(schema: SearchSchema<Item>) {
    self.schema = schema
    let empty = Build(SearchIndex(empty: schema.catalog))
    build = Background { empty }
  }

  /// Appends `item` at the end of catalog order.
  mutating func append(_ item: Item) {
    unindexed.append(item)
    if unindexed.count >= Self.batchSize { handOver() }
  }

  /// Appends `items` at the end of catalog order, in their order.
  mutating func append(contentsOf items: some Sequence<Item>) {
    for item in items { append(item) }
  }

  /// The index of every item appended, in their order: waits for the batches in flight.
  ///
  /// - Throws: `CatalogEditError.duplicateID` when two items shared an id.
  consuming func finish() throws(CatalogEditError) -> SearchIndex<ItemID> {
    handOver()
    let built = build.take()
    if let error = built.error { throw error }
    built.index.finishBuilding()
    return built.index
  }

  /// `finish()`, its failure a store's (a copy whose items share an id).
  consuming func finishIndex() throws(StoreError) -> SearchIndex<ItemID> {
    do throws(CatalogEditError) {
      return try finish()
    } catch {
      throw .edit(error)
    }
  }

  /// Hands the items not yet indexed to the index, after the batch before them.
  private mutating func handOver() {
    guard !unindexed.isEmpty else { return }
    let (before, batch, schema) = (build, unindexed, schema)
    unindexed = []
    build = Background {
      let built = before.take()
      guard built.error == nil else { return built }
      do throws(CatalogEditError) {
        try built.index.appendBuilding(batch, schema: schema)
      } catch {
        built.error = error
      }
      // What the batch before freed on other threads' arenas, back to the system.
      sift_release_free_heap()
      return built
    }
  }

  /// The index of the items `db` holds, read in catalog order a batch at a time: what an
  /// import into a catalog that had items, or a copy whose items changed after they came,
  /// builds once they are written.
  static func index(
    ofItemsIn db: Database, schema: CatalogSchema, searchSchema: SearchSchema<Item>
  ) throws -> SearchIndex<ItemID> {
    var builder = IndexBuilder(schema: searchSchema)
    let columns = schema.indexedFields.map { ", " + CatalogStore.column($0.name) }.joined()
    let rows = try Row.fetchCursor(db, sql: "SELECT id\(columns) FROM items ORDER BY position")
    while let row = try rows.next() {
      builder.append(CatalogStore.item(row, fields: schema.indexedFields))
    }
    return try builder.finish()
  }
}

/// An index being built a batch at a time on other threads: one batch's work hands it to the
/// next, and changes it in place (no copy of its buffers).
private final class Build: @unchecked Sendable {
  // `@unchecked`: each batch's work takes it from the one before (`Background.take`), so one
  // thread at a time has it.
  var index: SearchIndex<ItemID>
  var error: CatalogEditError?

  init(_ index: SearchIndex<ItemID>) {
    self.index = index
  }
}

extension CatalogStore {
  /// The index of the items the file holds now, read in catalog order a batch at a time.
  func indexOfItems() throws(StoreError) -> SearchIndex<ItemID> {
    let schema = try loadSchema()
    let searchSchema = try searchSchema(schema)
    return try read { db in
      try IndexBuilder.index(ofItemsIn: db, schema: schema, searchSchema: searchSchema)
    }
  }
}
