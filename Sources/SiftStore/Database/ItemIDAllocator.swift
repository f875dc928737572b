import GRDB
import Sift

extension ItemIDAllocator {
  /// Starts after the largest numeric id in the items table (read from `items_by_number`: the
  /// expression and the condition are the index's own).
  init(_ db: Database) throws {
    self.init(
      largestNumber: try Int64.fetchOne(
        db, sql: "SELECT max(CAST(id AS INTEGER)) FROM items WHERE id GLOB '[0-9]*'"))
  }
}
