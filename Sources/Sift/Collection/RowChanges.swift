/// How one list of rows became another, in the shape a table view's batch update takes:
/// deletions and move sources at *old* indices, insertions and move destinations at *new*
/// indices, and reloads at new indices of rows that stayed but whose content changed (apply
/// those after the batch, as UIKit asks with `reconfigureRows`).
public struct RowChanges: Hashable, Sendable {
  public struct Move: Hashable, Sendable {
    public var from: Int
    public var to: Int
    public init(from: Int, to: Int) {
      self.from = from
      self.to = to
    }
  }

  /// Old indices of rows that left, ascending.
  public var deleted: [Int] = []
  /// New indices of rows that arrived, ascending.
  public var inserted: [Int] = []
  /// Rows that stayed but changed place relative to the others.
  public var moved: [Move] = []
  /// New indices of rows that stayed and whose item changed, ascending.
  public var reloaded: [Int] = []

  public init(
    deleted: [Int] = [], inserted: [Int] = [], moved: [Move] = [], reloaded: [Int] = []
  ) {
    self.deleted = deleted
    self.inserted = inserted
    self.moved = moved
    self.reloaded = reloaded
  }

  public var isEmpty: Bool {
    deleted.isEmpty && inserted.isEmpty && moved.isEmpty && reloaded.isEmpty
  }

  /// The changes from `old` to `new` rows (each list without repeated ids). Rows that keep
  /// their relative order stay put; the fewest others are reported as moves (the complement
  /// of a longest increasing subsequence).
  ///
  /// - Parameters:
  ///   - old: the rows before.
  ///   - new: the rows after.
  ///   - changed: ids whose items changed; those present in both lists are reloaded.
  /// - Complexity: O((*n* + *m*) log (*n* + *m*)).
  public init<ID: Hashable>(from old: [ID], to new: [ID], changed: Set<ID> = []) {
    var newIndex: [ID: Int] = [:]
    newIndex.reserveCapacity(new.count)
    for (index, id) in new.enumerated() { newIndex[id] = index }
    var oldIDs = Set<ID>()
    oldIDs.reserveCapacity(old.count)
    // Rows in both lists, in old order, with their positions in each.
    var kept: [(from: Int, to: Int)] = []
    for (index, id) in old.enumerated() {
      oldIDs.insert(id)
      if let to = newIndex[id] {
        kept.append((index, to))
      } else {
        deleted.append(index)
      }
    }
    inserted = new.indices.filter { !oldIDs.contains(new[$0]) }
    let staying = Self.longestIncreasingSubsequence(kept.map(\.to))
    moved = kept.indices.filter { !staying.contains($0) }.map {
      Move(from: kept[$0].from, to: kept[$0].to)
    }
    reloaded = changed.compactMap { id in oldIDs.contains(id) ? newIndex[id] : nil }.sorted()
  }

  /// The changes when one row's item was edited and nothing else moved: it was at `old` (nil:
  /// not shown), it is at `new` now.
  ///
  /// - Complexity: O(1).
  public init(row old: Int?, becoming new: Int?, changed: Bool) {
    switch (old, new) {
    case (nil, nil): break
    case (let old?, nil): deleted = [old]
    case (nil, let new?): inserted = [new]
    case (let old?, let new?):
      if old != new { moved = [Move(from: old, to: new)] }
      if changed { reloaded = [new] }
    }
  }

  /// Applies the changes to `old` rows the way a table view does: removes deleted rows and move
  /// sources, then places move destinations and inserted rows (asking `inserting` for the row
  /// at a new index).
  public func applied<Row>(to old: [Row], inserting: (Int) -> Row) -> [Row] {
    let removed = Set(deleted).union(moved.map(\.from))
    var remaining = old.indices.filter { !removed.contains($0) }.map { old[$0] }[...]
    var placed: [Int: Row] = [:]
    for index in inserted { placed[index] = inserting(index) }
    for move in moved { placed[move.to] = old[move.from] }
    var result: [Row] = []
    result.reserveCapacity(remaining.count + placed.count)
    while !remaining.isEmpty || !placed.isEmpty {
      if let row = placed.removeValue(forKey: result.count) {
        result.append(row)
      } else if let row = remaining.popFirst() {
        result.append(row)
      } else {
        break  // inconsistent changes: a destination beyond the end
      }
    }
    return result
  }

  /// Indices (into `values`) of one longest strictly increasing subsequence.
  static func longestIncreasingSubsequence(_ values: [Int]) -> Set<Int> {
    var tails: [Int] = []  // index into values of the smallest tail of each length
    var previous = [Int](repeating: -1, count: values.count)
    for (index, value) in values.enumerated() {
      var low = 0
      var high = tails.count
      while low < high {
        let mid = (low + high) / 2
        if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
      }
      if low > 0 { previous[index] = tails[low - 1] }
      if low == tails.count { tails.append(index) } else { tails[low] = index }
    }
    var result = Set<Int>()
    var index = tails.last ?? -1
    while index >= 0 {
      result.insert(index)
      index = previous[index]
    }
    return result
  }
}
