import Foundation

/// The items that match one request, best first: what an index answers. Callers read ids and
/// ranks; which slots they sit in stays the index's business, so an index may renumber its
/// slots (compaction) without its callers knowing.
///
/// Only the first rows are put in order when the search runs — a page, not the 190,000 matches
/// of a first keystroke. The count is exact at once; a row past the ordered ones is ranked when
/// first asked for, and always lands where a full sort would have put it.
package struct RankedMatches<ID: Hashable & Sendable>: Sendable {
  /// The matching ids, best first.
  package var ids: MatchedIDs<ID> {
    MatchedIDs(order: order, idsBySlot: idsBySlot, count: count)
  }
  /// The index's id column when these matches were made: `ids` reads it row by row.
  private let idsBySlot: SlotIDs<ID>
  /// Whether near spellings were looked for, because exact matches fell below the threshold.
  package private(set) var includesNearSpellings: Bool
  /// How many of the matches have every term as written.
  package private(set) var exactCount: Int
  /// Every match, in slot order: what facets and a narrower search read.
  let slots: [Int32]
  /// How many rows there are: every match, or under `MatchRequest.distinct` one per group.
  package let count: Int
  /// The rows in order, as far as they have been asked for.
  let order: MatchOrder<ID>
  /// The index layout the slots refer to.
  var layout: Int
  /// In a search by meaning, where each row stood in the lists that were fused (`MeaningPlace`),
  /// by slot; empty otherwise.
  var meaning: [Int32: MeaningPlace] = [:]
  /// In a search by meaning with words whose text's later matches were not fused, how many of
  /// the text's first matches were: a row without a place in `meaning` is a text match past
  /// them.
  var fusedTextDepth: Int?

  init(
    slots: [Int32], order: MatchOrder<ID>, idsBySlot: SlotIDs<ID>, includesNearSpellings: Bool,
    exactCount: Int, layout: Int, count: Int? = nil
  ) {
    self.slots = slots
    self.count = count ?? slots.count
    self.order = order
    self.idsBySlot = idsBySlot
    self.includesNearSpellings = includesNearSpellings
    self.exactCount = exactCount
    self.layout = layout
  }

  /// The id at `row`.
  package func id(at row: Int) -> ID { idsBySlot[Int(order.entry(at: row).slot)] }

  /// Where the match at `row` stands on the relevance rules before popularity.
  package func rank(at row: Int) -> MatchRank? {
    (0..<count).contains(row) ? MatchRank(packed: order.entry(at: row).rank) : nil
  }

  /// Every row in order (ranking the rest if they are not yet): for tests and whole listings.
  var entries: [RankedSlot] { order.entries(through: count - 1) }

  /// How many rows are in order now, without ranking more (what a test of laziness reads).
  var orderedCount: Int { order.orderedCount }

  /// The same matches with no way to rank more rows than are ordered: drops the index copy a
  /// lazy order holds, so an edit of the index right after changes it in place, not a copy.
  func detached() -> RankedMatches {
    var detached = RankedMatches(
      slots: slots, order: order.detached(), idsBySlot: idsBySlot,
      includesNearSpellings: includesNearSpellings, exactCount: exactCount, layout: layout,
      count: count)
    detached.meaning = meaning
    detached.fusedTextDepth = fusedTextDepth
    return detached
  }
}

/// The ranked order of one search's matches, made as far as it is read: the first rows at once,
/// more when a row past them is asked for (scrolling, a later page), by the same rules.
final class MatchOrder<ID: Hashable & Sendable>: Sendable {
  private struct State {
    var ordered: [RankedSlot]
    var isComplete: Bool
    /// What ranks more rows: the index as it was searched, the request and every match. Nil
    /// once the order is whole (so the index copy goes), or when it was detached from its index.
    var ranker: Ranker?
    /// How many rows of the order of every match `ordered` holds or, under a grouping, was
    /// kept from.
    var read: Int

    /// Ranks enough further rows that `row` is among them: at least twice as many as before,
    /// and every one once a quarter of the matches is asked for. Under a grouping, as many
    /// more again until the first of that many groups is among them.
    mutating func extend(through row: Int) {
      guard row >= ordered.count, !isComplete, let ranker else { return }
      var wanted = max(2 * (row + 1), 2 * read)
      while true {
        let (entries, complete) = ranker.index.firstRows(
          of: ranker.request, ranker.slots,
          rows: wanted * 4 >= ranker.slots.count ? .max : wanted)
        let rows = ranker.fusion.map { $0.rows(followedBy: entries) } ?? entries
        ordered = ranker.grouping.map { ranker.index.firstOfEachGroup(rows, by: $0) } ?? rows
        if let pins = ranker.pins { ordered = pins.apply(ordered, isComplete: complete) }
        read = entries.count
        isComplete = complete
        if complete { self.ranker = nil }
        // A stopped search ranks no more: its caller drops what it has.
        if complete || row < ordered.count || SearchStop.shouldStop { return }
        wanted *= 2
      }
    }
  }

  struct Ranker: Sendable {
    let index: SearchIndex<ID>
    let request: MatchRequest
    let slots: [Int32]
    /// One row per group of this field's values (`MatchRequest.distinct`); nil: every match.
    var grouping: SearchIndex<ID>.Grouping? = nil
    /// The pinned rows and the hidden items of the query (`Pins`); nil: none.
    var pins: PinPlacement? = nil
    /// In a search by meaning with words, the fused first rows the text's later rows follow;
    /// nil: the text's order alone.
    var fusion: FusedRows? = nil
  }

  /// The first rows of a search by meaning with words (`SearchIndex.searchByMeaning`): the
  /// text's first `textDepth` matches and the nearest, fused. The text's later matches follow
  /// them in the text's order, less those already among them.
  struct FusedRows: Sendable {
    let rows: [RankedSlot]
    let textDepth: Int
    /// The slots of `rows`.
    let placed: Set<Int32>

    init(rows: [RankedSlot], textDepth: Int) {
      self.rows = rows
      self.textDepth = textDepth
      placed = Set(rows.map(\.slot))
    }

    /// The fused rows, then `text` (the text's order, from its first row) past the depth.
    func rows(followedBy text: [RankedSlot]) -> [RankedSlot] {
      rows + text.dropFirst(textDepth).filter { !placed.contains($0.slot) }
    }
  }

  private let state: Locked<State>

  /// The first `entries` of an order, and what ranks the rest. Under the ranker's grouping,
  /// `entries` were kept from the first `read` rows of the order of every match.
  init(first entries: [RankedSlot], isComplete: Bool, ranker: Ranker?, read: Int? = nil) {
    state = Locked(
      State(
        ordered: entries, isComplete: isComplete, ranker: isComplete ? nil : ranker,
        read: read ?? entries.count))
  }

  /// The same rows in order, without the means to rank more: only for the moment an edit of
  /// the index takes (`SearchIndex.replacing` gives the edited matches a ranker again).
  func detached() -> MatchOrder {
    let (entries, complete) = snapshot
    return MatchOrder(first: entries, isComplete: complete, ranker: nil)
  }

  /// Whether rows past those in order can be ranked.
  var canRankMore: Bool { state.withLock { !$0.isComplete && $0.ranker != nil } }

  var orderedCount: Int { state.withLock { $0.ordered.count } }

  /// The rows in order so far and whether they are all of them.
  var snapshot: (entries: [RankedSlot], isComplete: Bool) {
    state.withLock { ($0.ordered, $0.isComplete) }
  }

  /// The entry at `row`, ranking more rows first when it is past those in order.
  func entry(at row: Int) -> RankedSlot {
    state.withLock { state in
      state.extend(through: row)
      // Short only when the search was stopped (`SearchStop`): its caller drops its rows, so
      // any row stands in for the ones it did not rank.
      guard state.ordered.indices.contains(row) else {
        return state.ordered.last ?? RankedSlot(slot: 0, rank: .max)
      }
      return state.ordered[row]
    }
  }

  /// The rows `0...row` in order.
  func entries(through row: Int) -> [RankedSlot] {
    state.withLock { state in
      state.extend(through: row)
      return row < 0 ? [] : Array(state.ordered[...min(row, state.ordered.count - 1)])
    }
  }
}

extension SearchIndex {
  /// The live items that match `request`, best first (docs/ranking.md: the rules, then popularity, then
  /// catalog order).
  ///
  /// - Parameters:
  ///   - request: the folded terms, tokens and scope to match.
  ///   - previous: the matches of criteria that these narrow (a letter typed at the end of a
  ///     term, a term or token added), or nil. When few of them are shown, only those are
  ///     checked: testing many one by one costs more than one scan of the whole buffer.
  ///   - reading: the terms that may find by a reading items the previous matches lack
  ///     (`ResolvedCriteria.narrowing`): the items they read are checked too.
  ///   - rows: how many rows to put in order now; the rest are ordered when first read.
  /// - Complexity: one scan of the searched columns for the first text term and a check per
  ///   candidate for each other term; O(*k*) in the previous matches when refining. Ranking
  ///   costs a cheap bound per match and a full rank only for those that can reach `rows`.
  package func search(
    _ request: MatchRequest, narrowing previous: RankedMatches<ID>? = nil,
    reading: [QueryTerm] = [], rows: Int = RankedMatches<ID>.firstRows
  ) -> RankedMatches<ID> {
    if let plan = request.vector { return searchByMeaning(request, plan) }
    let outcome: SearchOutcome
    if let previous, previous.layout == layout,
      previous.count <= Self.refinementLimit(slotCount: slotCount),
      let candidates = refinementCandidates(previous.slots, request, reading: reading)
    {
      // Every exact match of narrower criteria is among the previous matches, or read.
      outcome = searchSlots(request, within: candidates, rows: rows)
    } else {
      outcome = searchSlots(request, within: nil, rows: rows)
    }
    let matches: RankedMatches<ID>
    if let field = request.distinct, let grouping = grouping(of: field) {
      matches = distinctMatches(outcome, request: request, grouping: grouping)
    } else {
      let order = MatchOrder<ID>(
        first: outcome.ordered, isComplete: outcome.isComplete,
        ranker: .init(index: self, request: request, slots: outcome.slots))
      matches = RankedMatches(
        slots: outcome.slots, order: order, idsBySlot: ids,
        includesNearSpellings: outcome.includesNearSpellings, exactCount: outcome.exactCount,
        layout: layout)
    }
    guard let pins = request.pins else { return matches }
    return pinned(matches, pins, request: request)
  }

  /// `outcome` with one row per group: the first row of a group in the order of every match
  /// is where the group stands, so the rows in order so far give the first groups, and more
  /// are ranked as later rows are read.
  ///
  /// - Complexity: O(*m*) to count the groups; ranking as the rows read need.
  private func distinctMatches(
    _ outcome: SearchOutcome, request: MatchRequest, grouping: Grouping
  ) -> RankedMatches<ID> {
    let kept = firstOfEachGroup(outcome.ordered, by: grouping)
    let count = outcome.isComplete ? kept.count : groupCount(outcome.slots, by: grouping)
    let order = MatchOrder<ID>(
      first: kept, isComplete: outcome.isComplete,
      ranker: .init(index: self, request: request, slots: outcome.slots, grouping: grouping),
      read: outcome.ordered.count)
    return RankedMatches(
      slots: outcome.slots, order: order, idsBySlot: ids,
      includesNearSpellings: outcome.includesNearSpellings,
      exactCount: outcome.includesNearSpellings
        ? kept.count { MatchRank(packed: $0.rank).typos == 0 } : count,
      layout: layout, count: count)
  }

  /// The slots a refinement checks: the previous matches, and the live slots whose readings
  /// start a word with a term of `reading`. Nil when those are too many to check one by one,
  /// or cannot be listed (no trigram index yet).
  private func refinementCandidates(
    _ previous: [Int32], _ request: MatchRequest, reading: [QueryTerm]
  ) -> [Int32]? {
    guard !reading.isEmpty else { return previous }
    let needles = reading.compactMap { term -> [UInt8]? in
      guard case .text(let text) = term.condition else { return nil }
      return Array(text.needle.utf8)
    }
    let probes = plan(request).rankProbes
    var candidates = previous
    for (index, probe) in probes.enumerated()
    where probe.readings && needles.contains(probe.needle) {
      guard var read = readingMatches(probe) else { return nil }
      // A slot read so must hold the other terms too: keep those the trigram index lists
      // for them, as letters or readings ("saint pe" checks the Chinese names read "pe..."
      // that hold "saint", not every one).
      for (other, term) in probes.enumerated() where other != index {
        guard let listed = possibleHolders(term) else { continue }
        read = Self.merging(read, with: listed.letters, or: listed.readings, keepingCommon: true) {
          Int($0) >= listed.below ? true : nil
        }
      }
      candidates = Self.union(candidates, read)
    }
    return candidates.count <= Self.refinementLimit(slotCount: slotCount) ? candidates : nil
  }

  /// The most matches worth refining one by one rather than rescanning: an eighth of the slots.
  static func refinementLimit(slotCount: Int) -> Int { max(64, slotCount / 8) }

  /// `matches` after an edit of the item `id` (added, updated or removed): its old entry gone,
  /// its new one — if it matches `request` — at its ranked place. Other items keep their rows.
  /// With no id, the same matches, able again to rank the rows not yet in order.
  ///
  /// - Complexity: O(*k*) in the matches; O(*k*) id lookups after a compaction. Rows not yet in
  ///   order stay unranked.
  package func replacing(
    _ id: ID?, in matches: RankedMatches<ID>, request: MatchRequest
  ) -> RankedMatches<ID> {
    // Under `distinct` an edit may change which item leads its group, and a pinned row stays
    // where it is pinned: search again.
    if request.distinct != nil || request.pins != nil || request.vector != nil {
      return search(request)
    }
    let (ordered, wasComplete) = matches.order.snapshot
    var entries: [RankedSlot] = []
    entries.reserveCapacity(ordered.count + 1)
    var slots: [Int32] = []
    slots.reserveCapacity(matches.count + 1)
    if matches.layout == layout {
      // The edited item's old slot, if any, is dead now; every other slot is as it was.
      for entry in ordered where isLive[Int(entry.slot)] { entries.append(entry) }
      for slot in matches.slots where isLive[Int(slot)] { slots.append(slot) }
    } else {
      // Compacted: the same items under new slot numbers (ranks do not depend on slots).
      for entry in ordered {
        let rowID = matches.idsBySlot(Int(entry.slot))
        if rowID != id, let slot = slotByID[rowID] {
          entries.append(RankedSlot(slot: Int32(slot), rank: entry.rank))
        }
      }
      for old in matches.slots {
        let rowID = matches.idsBySlot(Int(old))
        if rowID != id, let slot = slotByID[rowID] { slots.append(Int32(slot)) }
      }
      slots.sort()
    }
    if let id, let slot = slotByID[id],
      let placed = place(slot, request: request, nearSpellings: matches.includesNearSpellings)
    {
      // A new slot is the highest one (appending keeps slot order) unless the index was
      // compacted meanwhile.
      if let last = slots.last, last > placed.slot {
        slots.insert(placed.slot, at: slots.lowerBound(of: placed.slot))
      } else {
        slots.append(placed.slot)
      }
      let row = insertionRow(for: placed, in: entries, sort: sortPlan(request))
      // Past the ordered rows of an unfinished order, it is among the rows still unranked.
      if row < entries.count || wasComplete { entries.insert(placed, at: row) }
    }
    let order = MatchOrder<ID>(
      first: entries, isComplete: wasComplete,
      ranker: .init(index: self, request: request, slots: slots))
    return RankedMatches(
      slots: slots, order: order, idsBySlot: ids,
      includesNearSpellings: matches.includesNearSpellings,
      // Near spellings are ordered whole: their ranks say which have no typos.
      exactCount: matches.includesNearSpellings
        ? entries.count { MatchRank(packed: $0.rank).typos == 0 } : slots.count,
      layout: layout)
  }

  /// The row of `matches` that shows `id`, if it is shown.
  ///
  /// - Complexity: O(log *k*) when its row is among those in order: matches are sorted, so the
  ///   item's own rank tells where it must be. Otherwise the rows up to it are ranked first.
  package func row(of id: ID, in matches: RankedMatches<ID>, request: MatchRequest) -> Int? {
    guard matches.layout == layout, let slot = slotByID[id] else { return nil }
    if request.pins != nil || request.vector != nil {
      // Pinned rows and rows by meaning are not in rank order: read the rows, ranking more until it is among them.
      while true {
        let (ordered, complete) = matches.order.snapshot
        if let row = ordered.firstIndex(where: { $0.slot == Int32(slot) }) { return row }
        guard !complete, matches.order.canRankMore, ordered.count < matches.count else {
          return nil
        }
        _ = matches.order.entry(at: ordered.count)
      }
    }
    guard let placed = place(slot, request: request, nearSpellings: matches.includesNearSpellings)
    else { return nil }
    var (ordered, complete) = matches.order.snapshot
    let sort = sortPlan(request)
    // Rank further until the ordered rows reach past where the item would be.
    while !complete, matches.order.canRankMore, ordered.count < matches.count,
      ordered.last.map({ !precedes(placed, $0, sort: sort) }) ?? true
    {
      _ = matches.order.entry(at: ordered.count)
      (ordered, complete) = matches.order.snapshot
    }
    let row = insertionRow(for: placed, in: ordered, sort: sort)
    return ordered.indices.contains(row) && ordered[row].slot == placed.slot ? row : nil
  }

  /// Where `placed` goes among `ranked` (sorted by the sort's value, rank, popularity, then
  /// catalog order): the first row that does not sort before it.
  private func insertionRow(
    for placed: RankedSlot, in ranked: [RankedSlot], sort: SortPlan?
  ) -> Int {
    var low = 0
    var high = ranked.count
    while low < high {
      let mid = (low + high) / 2
      if precedes(ranked[mid], placed, sort: sort) { low = mid + 1 } else { high = mid }
    }
    return low
  }
}

extension RankedMatches {
  /// How many rows a search puts in order before they are read: a screen, a page and more.
  package static var firstRows: Int { 128 }

  /// The id that slot `slot` held when these matches were made.
  fileprivate func idsBySlot(_ slot: Int) -> ID { idsBySlot[slot] }
}

/// The ids of ranked matches, best first: a view that reads each row's id from the index's id
/// column (as it was when the matches were made) when asked, rather than a copy of them all.
public struct MatchedIDs<ID: Hashable & Sendable>: RandomAccessCollection, Sendable {
  let order: MatchOrder<ID>
  let idsBySlot: SlotIDs<ID>
  public let endIndex: Int

  init(order: MatchOrder<ID>, idsBySlot: SlotIDs<ID>, count: Int) {
    self.order = order
    self.idsBySlot = idsBySlot
    endIndex = count
  }

  public var startIndex: Int { 0 }
  public subscript(row: Int) -> ID { idsBySlot[Int(order.entry(at: row).slot)] }

  /// The index slot of the item at `row`: what highlighting reads, without looking the id up
  /// (a one-shot `sift search` never builds the id-to-slot table).
  func slot(at row: Int) -> Int { Int(order.entry(at: row).slot) }
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
