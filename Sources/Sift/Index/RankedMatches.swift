/// The items that match one request, best first: what an index answers. Callers read ids and
/// ranks; which slots they sit in stays the index's business, so an index may renumber its
/// slots (compaction) without its callers knowing.
public struct RankedMatches<ID: Hashable & Sendable>: Sendable {
  /// The matching ids, best first.
  public var ids: MatchedIDs<ID> { MatchedIDs(entries: entries, idsBySlot: idsBySlot) }
  /// The index's id column when these matches were made: `ids` reads it row by row.
  private let idsBySlot: [ID]
  /// Whether near spellings were looked for, because exact matches fell below the threshold.
  public private(set) var includesNearSpellings: Bool
  /// How many of the matches have every term as written.
  public private(set) var exactCount: Int
  var entries: [RankedSlot]
  /// The index layout the slots refer to.
  var layout: Int

  init(entries: [RankedSlot], idsBySlot: [ID], includesNearSpellings: Bool, layout: Int) {
    self.entries = entries
    self.idsBySlot = idsBySlot
    self.includesNearSpellings = includesNearSpellings
    self.layout = layout
    exactCount =
      includesNearSpellings
      ? entries.count { MatchRank(packed: $0.rank).typos == 0 } : entries.count
  }

  public var count: Int { entries.count }

  /// The id at `row`.
  public func id(at row: Int) -> ID { idsBySlot[Int(entries[row].slot)] }

  /// Where the match at `row` stands on the relevance rules before popularity.
  public func rank(at row: Int) -> MatchRank? {
    entries.indices.contains(row) ? MatchRank(packed: entries[row].rank) : nil
  }
}

extension SearchIndex {
  /// The live items that match `request`, best first (DESIGN §3's rules, then popularity, then
  /// catalog order).
  ///
  /// - Parameters:
  ///   - request: the folded terms, tokens and scope to match.
  ///   - previous: the matches of criteria that these narrow (a letter typed at the end of a
  ///     term, a term or token added), or nil. When few of them are shown, only those are
  ///     checked: testing many one by one costs more than one scan of the whole buffer.
  /// - Complexity: one scan of the searched columns for the first text term and a check per
  ///   candidate for each other term; O(*k*) in the previous matches when refining.
  public func search(
    _ request: MatchRequest, narrowing previous: RankedMatches<ID>? = nil
  ) -> RankedMatches<ID> {
    let outcome: SearchOutcome
    if let previous, previous.layout == layout,
      previous.count <= Self.refinementLimit(slotCount: slotCount)
    {
      // Every exact match of narrower criteria is among the previous matches.
      outcome = searchSlots(request, within: previous.entries.map(\.slot).sorted())
    } else {
      outcome = searchSlots(request, within: nil)
    }
    return matches(outcome.ranked, includesNearSpellings: outcome.includesNearSpellings)
  }

  /// The most matches worth refining one by one rather than rescanning: an eighth of the slots.
  static func refinementLimit(slotCount: Int) -> Int { max(64, slotCount / 8) }

  /// Ranked slots as matches, reading ids from the id column as they are asked for: a first
  /// keystroke matches most of the catalog, and copying every id cost a quarter of its time.
  private func matches(_ entries: [RankedSlot], includesNearSpellings: Bool) -> RankedMatches<ID> {
    RankedMatches(
      entries: entries, idsBySlot: ids, includesNearSpellings: includesNearSpellings,
      layout: layout)
  }

  /// `matches` after an edit of the item `id` (added, updated or removed): its old entry gone,
  /// its new one — if it matches `request` — at its ranked place. Other items keep their rows.
  ///
  /// - Complexity: O(*k*) in the matches; O(*k*) id lookups after a compaction.
  public func replacing(
    _ id: ID, in matches: RankedMatches<ID>, request: MatchRequest
  ) -> RankedMatches<ID> {
    var entries: [RankedSlot] = []
    entries.reserveCapacity(matches.count + 1)
    if matches.layout == layout {
      // The edited item's old slot, if any, is dead now; every other slot is as it was.
      for entry in matches.entries where isLive[Int(entry.slot)] { entries.append(entry) }
    } else {
      for (row, rowID) in matches.ids.enumerated() where rowID != id {
        if let slot = slotByID[rowID] {
          entries.append(RankedSlot(slot: Int32(slot), rank: matches.entries[row].rank))
        }
      }
    }
    if let slot = slotByID[id],
      let placed = place(slot, request: request, nearSpellings: matches.includesNearSpellings)
    {
      entries.insert(placed, at: insertionRow(for: placed, in: entries))
    }
    return self.matches(entries, includesNearSpellings: matches.includesNearSpellings)
  }

  /// The row of `matches` that shows `id`, if it is shown.
  ///
  /// - Complexity: O(log *k*): matches are sorted, so the item's own rank tells where it must be.
  public func row(of id: ID, in matches: RankedMatches<ID>, request: MatchRequest) -> Int? {
    guard matches.layout == layout, let slot = slotByID[id],
      let placed = place(slot, request: request, nearSpellings: matches.includesNearSpellings)
    else { return nil }
    let row = insertionRow(for: placed, in: matches.entries)
    return matches.entries.indices.contains(row) && matches.entries[row].slot == placed.slot
      ? row : nil
  }

  /// Where `placed` goes among `ranked` (sorted by rank, popularity, then catalog order): the
  /// first row that does not sort before it.
  private func insertionRow(for placed: RankedSlot, in ranked: [RankedSlot]) -> Int {
    var low = 0
    var high = ranked.count
    while low < high {
      let mid = (low + high) / 2
      if precedes(ranked[mid], placed) { low = mid + 1 } else { high = mid }
    }
    return low
  }
}

/// The ids of ranked matches, best first: a view that reads each row's id from the index's id
/// column (as it was when the matches were made) when asked, rather than a copy of them all.
public struct MatchedIDs<ID: Hashable & Sendable>: RandomAccessCollection, Sendable {
  let entries: [RankedSlot]
  let idsBySlot: [ID]

  public var startIndex: Int { 0 }
  public var endIndex: Int { entries.count }
  public subscript(row: Int) -> ID { idsBySlot[Int(entries[row].slot)] }
}

extension MatchedIDs: Equatable {
  public static func == (a: MatchedIDs, b: MatchedIDs) -> Bool { a.elementsEqual(b) }

  /// The same ids in the same order as `b`.
  public static func == (a: MatchedIDs, b: [ID]) -> Bool { a.elementsEqual(b) }
  public static func == (a: [ID], b: MatchedIDs) -> Bool { a.elementsEqual(b) }
  public static func != (a: MatchedIDs, b: [ID]) -> Bool { !(a == b) }
}

extension MatchedIDs: CustomStringConvertible {
  public var description: String { Array(self).description }
}
