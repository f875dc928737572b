import GRDB
import Sift

/// The catalog's one rule for naming new items, used by edits and imports alike: the next
/// integer after the largest numeric id, skipping any id already taken (say, "12" given by an
/// import while the largest number was 11).
struct ItemIDAllocator {
  private var candidate: Int64

  /// Starts after the largest numeric id in the items table (read from `items_by_number`: the
  /// expression and the condition are the index's own).
  init(_ db: Database) throws {
    let largest = try Int64.fetchOne(
      db, sql: "SELECT max(CAST(id AS INTEGER)) FROM items WHERE id GLOB '[0-9]*'")
    candidate = (largest ?? 0) + 1
  }

  /// The next id for which `isTaken` is false; it is then taken for this allocator.
  mutating func next(isTaken: (String) throws -> Bool) rethrows -> ItemID {
    while try isTaken(String(candidate)) { candidate += 1 }
    defer { candidate += 1 }
    return ItemID(String(candidate))
  }
}
