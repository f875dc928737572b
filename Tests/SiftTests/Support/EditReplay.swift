import SiftTestSupport
import Testing

@testable import Sift

/// Edits under some criteria checked against a search from scratch: the reference the sort and
/// near-a-place tests share.
enum EditReplay {
  /// Twenty random adds and updates of `items` (new ones from `newItem`) while `criteria`
  /// filter them: after each, the rows equal a fresh search of the items, the row changes
  /// replay the old rows into the new, and every item's row is where it shows.
  static func check(
    _ items: [Item], schema: CatalogSchema, criteria: SearchCriteria, round: Int,
    newItem: (Int, inout SplitMix64) -> Item, using random: inout SplitMix64
  ) throws {
    var items = items
    var collection = try FilteredCollection(schema: schema, items: items)
    collection.filter(by: criteria)
    var nextID = 1_000
    for _ in 0..<20 {
      let before = Array(collection.rows)
      let changes: RowChanges
      if Bool.random(using: &random) || items.isEmpty {
        let item = newItem(nextID, &random)
        nextID += 1
        items.append(item)
        changes = try collection.add(item)
      } else {
        let position = Int.random(in: 0..<items.count, using: &random)
        var item = newItem(0, &random)
        item.id = items[position].id
        items[position] = item
        changes = try collection.update(item)
      }
      var fresh = try FilteredCollection(schema: schema, items: items)
      fresh.filter(by: criteria)
      #expect(Array(collection.rows) == Array(fresh.rows), "round \(round) \(criteria)")
      #expect(changes.applied(to: before) { collection.rows[$0] } == Array(collection.rows))
      for item in items {
        #expect(collection.row(of: item.id) == collection.rows.firstIndex(of: item.id))
      }
    }
  }
}
