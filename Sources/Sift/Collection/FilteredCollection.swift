/// A live, filtered and ranked view over an editable collection of items keyed by stable ids —
/// what the seeds' table views show while a search is active.
///
/// Edits address items by id (or by row of this view, resolved to an id at once), so a filtered
/// delete removes that item and no other even when titles repeat. Every edit returns the
/// `RowChanges` that turn the previous rows into the new ones, ready for a batch update:
/// an edited item that stops matching leaves the rows, an added item that matches enters at its
/// ranked place (FoodTracker's rules, seed 004).
public struct FilteredCollection: Sendable {
  public private(set) var index: SearchIndex
  /// The criteria in force, as read against the schema (with diagnostics).
  public private(set) var resolved: ResolvedCriteria
  /// The matching items' ids, best first.
  public private(set) var rows: [ItemID] = []
  /// Counts edits. A search run on a copy of this collection is only current while the copy's
  /// revision equals this one.
  public private(set) var revision = 0
  /// When near spellings are looked for; changing it searches again.
  public var typoTolerance: TypoTolerance {
    didSet {
      guard typoTolerance != oldValue else { return }
      setOutcome(index.search(request))
    }
  }
  /// The criteria in force as the index takes them.
  public var request: MatchRequest { resolved.request(typos: typoTolerance) }
  /// How many of the rows match every term as written.
  public private(set) var exactMatchCount = 0
  /// Whether the rows include near spellings: exact matches fell below the typo threshold.
  public private(set) var includesNearSpellings = false
  private var ranked: [RankedSlot] = []

  /// A view of `items` (in catalog order) showing everything.
  public init(
    schema: CatalogSchema, items: some Sequence<Item> = [],
    typoTolerance: TypoTolerance = .automatic
  ) throws(CatalogEditError) {
    self.init(index: try SearchIndex(schema: schema, items: items), typoTolerance: typoTolerance)
  }

  public init(index: SearchIndex, typoTolerance: TypoTolerance = .automatic) {
    self.index = index
    self.typoTolerance = typoTolerance
    resolved = ResolvedCriteria(.everything, schema: index.schema)
    setOutcome(index.search(request))
  }

  public var schema: CatalogSchema { index.schema }
  public var criteria: SearchCriteria { resolved.criteria }
  /// The number of items in the collection, shown or not.
  public var totalCount: Int { index.count }
  /// The items in catalog order, shown or not.
  public var allItems: [Item] { index.allItems }

  public func item(id: ItemID) -> Item? { index.item(id: id) }

  /// The item shown at `row`.
  public func item(atRow row: Int) -> Item? {
    rows.indices.contains(row) ? index.item(id: rows[row]) : nil
  }

  /// The row showing the item, if it is shown.
  ///
  /// - Complexity: O(log *n*): rows are in (tier, catalog order), so the item's own match
  ///   tells where it must be.
  public func row(of id: ItemID) -> Int? {
    guard let slot = index.slot(of: id),
      let placed = index.place(slot, request: request, nearSpellings: includesNearSpellings)
    else { return nil }
    let row = insertionRow(for: placed, in: ranked)
    return ranked.indices.contains(row) && ranked[row].slot == placed.slot ? row : nil
  }

  /// Where the item at `row` stands on the relevance rules before popularity.
  public func rank(atRow row: Int) -> MatchRank? {
    ranked.indices.contains(row) ? MatchRank(packed: ranked[row].rank) : nil
  }

  /// Filters by `criteria`. When they narrow the criteria in force (a letter typed at the end
  /// of a term, a term or token added) and few rows are shown, only those rows are searched;
  /// checking many rows one by one costs more than one scan of the whole buffer.
  public mutating func filter(by criteria: SearchCriteria) {
    guard criteria != resolved.criteria else { return }
    let next = ResolvedCriteria(criteria, schema: index.schema)
    let nextRequest = next.request(typos: typoTolerance)
    // Every exact match of narrower criteria is among the rows shown (which hold every exact
    // match of the criteria in force, and perhaps near spellings).
    if ranked.count <= Self.refinementLimit(slotCount: index.slotCount), next.narrows(resolved) {
      setOutcome(index.search(nextRequest, within: ranked.map(\.slot).sorted()))
    } else {
      setOutcome(index.search(nextRequest))
    }
    resolved = next
  }

  /// The most rows worth refining one by one rather than rescanning: an eighth of the slots.
  static func refinementLimit(slotCount: Int) -> Int { max(64, slotCount / 8) }

  /// Where the criteria in force matched in `text`, a displayed value of `field` of `item`.
  public func highlightRanges(in text: String, field: String, of item: Item) -> [Range<
    String.Index
  >] {
    index.highlightRanges(
      in: text, field: field, value: item[field], request: request,
      nearSpellings: includesNearSpellings)
  }

  // MARK: - Edits

  /// Adds an item at the end of catalog order; it shows if it matches, at its ranked place.
  @discardableResult
  public mutating func add(_ item: Item) throws(CatalogEditError) -> RowChanges {
    try index.add(item)
    return placeAfterEdit(item.id, changed: false)
  }

  /// Replaces the item that has `item.id`. It leaves the rows if it no longer matches.
  @discardableResult
  public mutating func update(_ item: Item) throws(CatalogEditError) -> RowChanges {
    try index.update(item)
    return placeAfterEdit(item.id, changed: true)
  }

  /// Deletes the item with `id`.
  @discardableResult
  public mutating func delete(id: ItemID) throws(CatalogEditError) -> RowChanges {
    try index.remove(id: id)
    return placeAfterEdit(id, changed: false)
  }

  /// Deletes the item shown at `row` of this view.
  @discardableResult
  public mutating func deleteRow(_ row: Int) throws(CatalogEditError) -> RowChanges {
    guard rows.indices.contains(row) else { throw .rowOutOfRange(row, rowCount: rows.count) }
    return try delete(id: rows[row])
  }

  /// Changes the item shown at `row` of this view (its id stays).
  @discardableResult
  public mutating func updateRow(
    _ row: Int, _ change: (inout Item) -> Void
  ) throws(CatalogEditError) -> RowChanges {
    guard rows.indices.contains(row), var item = index.item(id: rows[row]) else {
      throw .rowOutOfRange(row, rowCount: rows.count)
    }
    let id = item.id
    change(&item)
    item.id = id
    return try update(item)
  }

  /// Puts the edited item where the criteria in force rank it (or nowhere), and reports the
  /// row changes. Slots may have been renumbered by the edit, so rows are re-read by id.
  private mutating func placeAfterEdit(_ id: ItemID, changed: Bool) -> RowChanges {
    revision += 1
    let oldRows = rows
    var next: [RankedSlot] = []
    next.reserveCapacity(rows.count + 1)
    for (row, rowID) in rows.enumerated() where rowID != id {
      if let slot = index.slot(of: rowID) {
        next.append(RankedSlot(slot: Int32(slot), rank: ranked[row].rank))
      }
    }
    if let slot = index.slot(of: id),
      let placed = index.place(slot, request: request, nearSpellings: includesNearSpellings)
    {
      next.insert(placed, at: insertionRow(for: placed, in: next))
    }
    setRanked(next)
    return RowChanges(from: oldRows, to: rows, changed: changed ? [id] : [])
  }

  /// Where `placed` goes among `ranked` (sorted by rank, popularity, then catalog order): the
  /// first row that does not sort before it.
  private func insertionRow(for placed: RankedSlot, in ranked: [RankedSlot]) -> Int {
    var low = 0
    var high = ranked.count
    while low < high {
      let mid = (low + high) / 2
      if index.precedes(ranked[mid], placed) { low = mid + 1 } else { high = mid }
    }
    return low
  }

  private mutating func setOutcome(_ outcome: SearchOutcome) {
    includesNearSpellings = outcome.includesNearSpellings
    setRanked(outcome.ranked)
  }

  private mutating func setRanked(_ next: [RankedSlot]) {
    ranked = next
    exactMatchCount =
      includesNearSpellings ? next.count { MatchRank(packed: $0.rank).typos == 0 } : next.count
    // Through the buffer: copying each whole `Item` out of the array would retain its fields.
    rows = index.items.withUnsafeBufferPointer { items in next.map { items[Int($0.slot)].id } }
  }
}
