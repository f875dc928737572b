/// A search by meaning (`SearchVector`): the nearest items by cosine similarity, computed
/// exactly over every item the filters keep, and — with text — one ranking that fuses the text
/// rules' order with nearness.
///
/// 1. The candidates are the items every filter keeps: tokens, the scope, the base (a
///    tenant's rows), an area, a radius, a `year:>2000` typed with the words. Nothing is cut
///    before they are measured, so a filter never empties a page of neighbours.
/// 2. The `neighbors` nearest of them (ties: popularity, then catalog order).
/// 3. Without words, those are the results, nearest first. With words, the results are the
///    text's matches and the nearest together, ordered by rank fusion as Typesense does it:
///    `(1 - ratio) / textRank + ratio / nearRank`, each rank counted from 1 in its own list
///    and a list an item is not in adding nothing. An item whose name equals the query
///    comes first all the same, in the text's order: a name typed whole is what is meant.
/// 4. The text's list is fused as deep as the nearest can reach: its first `neighbors`
///    matches, or `neighbors · (1 - ratio) / ratio` when that is more. A later match's
///    `(1 - ratio) / textRank` is below every neighbour's score, so the later matches follow
///    the fused rows in the text's order, ranked only as they are read — a broad query does
///    not rank all its matches to show ten.
extension SearchIndex {
  /// The matches of `request` (which has `vector`), best first.
  ///
  /// - Complexity: O(*n* · *d*) for the similarity of every candidate, on every core;
  ///   O(*n* log *k*) to keep the nearest; with words, the text's search, ranked as deep as
  ///   the fusion needs (in full under `distinct` or pins, or with a ratio of 0).
  func searchByMeaning(_ request: MatchRequest, _ plan: VectorPlan) -> RankedMatches<ID> {
    var filter = request
    filter.terms = plan.filterTerms
    filter.vector = nil
    filter.pins = nil
    filter.distinct = nil
    filter.sort = nil
    filter.typos = .off
    let candidates = searchSlots(filter, rows: 0).slots
    let nearest: [(slot: Int32, similarity: Float)] =
      queryVector(plan.search.source, base: request).map {
        self.nearest(candidates, to: $0, count: plan.search.neighbors)
      } ?? []
    var textRequest = request
    textRequest.vector = nil
    textRequest.pins = nil
    textRequest.distinct = nil
    let ratio = plan.search.semanticRatio
    let namedAsTyped = { self.hasName(plan.foldedText, slot: $0) }
    var places: [Int32: MeaningPlace] = [:]
    let matches: RankedMatches<ID>
    if plan.hasText, request.distinct == nil, request.pins == nil,
      let depth = Self.fusedTextDepth(neighbors: plan.search.neighbors, ratio: ratio)
    {
      matches = fusedInPart(
        textRequest, nearest: nearest, depth: depth, ratio: ratio, places: &places,
        namedAsTyped: namedAsTyped)
    } else {
      let text = plan.hasText ? searchSlots(textRequest, rows: .max) : nil
      var entries = fused(
        text: text.map { wholeOrder($0, textRequest) } ?? [], nearest: nearest,
        ratio: ratio, places: &places, namedAsTyped: namedAsTyped)
      let slots = entries.map(\.slot).sorted()
      var count = slots.count
      if let field = request.distinct, let grouping = grouping(of: field) {
        entries = firstOfEachGroup(entries, by: grouping)
        count = entries.count
      }
      matches = RankedMatches(
        slots: slots, order: MatchOrder<ID>(first: entries, isComplete: true, ranker: nil),
        idsBySlot: ids, includesNearSpellings: text?.includesNearSpellings ?? false,
        exactCount: text.map { _ in entries.count { MatchRank(packed: $0.rank).typos == 0 } }
          ?? count,
        layout: layout, count: count)
    }
    var answered = request.pins.map { pinned(matches, $0, request: request) } ?? matches
    answered.meaning = places
    return answered
  }

  /// How many of the text's first matches a fusion needs: past them, a match's score
  /// `(1 - ratio) / textRank` is below every one of the nearest's `ratio / nearRank`, so the
  /// later matches follow the fused rows in the text's order. At least `neighbors`, so the two
  /// lists are fused as deep; nil when the text's order must be whole (a ratio of 0, where the
  /// nearest count for nothing and come last).
  static func fusedTextDepth(neighbors: Int, ratio: Double) -> Int? {
    guard ratio > 0 else { return nil }
    let depth = (Double(neighbors) * (1 - ratio) / ratio).rounded(.up)
    return depth < 1e9 ? max(neighbors, Int(depth)) : nil
  }

  /// A search by meaning with words whose text's matches are ranked only as far as they are
  /// read: its first `depth` fused with the nearest, the rest after them in the text's order.
  private func fusedInPart(
    _ textRequest: MatchRequest, nearest: [(slot: Int32, similarity: Float)], depth: Int,
    ratio: Double, places: inout [Int32: MeaningPlace], namedAsTyped: (Int32) -> Bool
  ) -> RankedMatches<ID> {
    let text = searchSlots(textRequest, rows: depth)
    let (first, isComplete) =
      text.isComplete || text.ordered.count >= depth
      ? (text.ordered, text.isComplete) : firstRows(of: textRequest, text.slots, rows: depth)
    let head = fused(
      text: Array(first.prefix(depth)), nearest: nearest, ratio: ratio, places: &places,
      namedAsTyped: namedAsTyped)
    let fusion = MatchOrder<ID>.FusedRows(rows: head, textDepth: depth)
    var slots = text.slots
    var nearOnly = 0
    for neighbour in nearest {
      let at = text.slots.lowerBound(of: neighbour.slot)
      guard at == text.slots.count || text.slots[at] != neighbour.slot else { continue }
      slots.append(neighbour.slot)
      nearOnly += 1
    }
    if nearOnly > 0 { slots.sort() }
    let order = MatchOrder<ID>(
      first: fusion.rows(followedBy: first), isComplete: isComplete,
      ranker: .init(index: self, request: textRequest, slots: text.slots, fusion: fusion),
      read: first.count)
    var matches = RankedMatches(
      slots: slots, order: order, idsBySlot: ids,
      includesNearSpellings: text.includesNearSpellings,
      // The nearest the text did not find have no typos (`meaningOnlyRank`).
      exactCount: text.exactCount + nearOnly, layout: layout)
    matches.fusedTextDepth = depth
    return matches
  }

  /// The query as a unit vector: the one given, or the vector of the item named — when the
  /// searcher may see it (`request`'s base filter: a tenant asking for an item of another
  /// tenant's finds nothing). Nil when there is none to compare with.
  private func queryVector(_ source: SearchVector.Source, base request: MatchRequest) -> [Float]? {
    guard let vectors else { return nil }
    switch source {
    case .vector(let floats):
      guard floats.count == vectors.dimensions else { return nil }
      return VectorField.unit(floats)
    case .like(let itemID):
      guard let id = Self.id(itemID), let slot = slotByID[id], isLive[slot] else { return nil }
      if request.baseTermCount > 0 {
        let base = MatchRequest(
          terms: Array(request.terms.suffix(request.baseTermCount)), typos: .off)
        guard place(slot, request: base, nearSpellings: false) != nil else { return nil }
      }
      return vectors.vector(of: slot)
    }
  }

  /// An app's own id named as an `ItemID` (`like`): itself, its text, or read from its text
  /// (an `Int`, a `UUID`'s string).
  static func id(_ itemID: ItemID) -> ID? {
    if let id = itemID as? ID { return id }
    if let id = itemID.rawValue as? ID { return id }
    if let readable = ID.self as? any LosslessStringConvertible.Type {
      return readable.init(itemID.rawValue) as? ID
    }
    return nil
  }

  /// The cosine similarity of the item `id` to the query of `request`, for an item with a
  /// vector in a search by meaning: what `--explain` and the HTTP answer show beside its row.
  package func similarity(of id: ID, request: MatchRequest) -> Float? {
    guard let plan = request.vector, let vectors, let slot = slotByID[id],
      let query = queryVector(plan.search.source, base: request)
    else { return nil }
    var found: Float?
    vectors.forEachSimilarity(of: [Int32(slot)], to: query) { found = $1 }
    return found
  }

  /// The `count` slots of `candidates` most similar to `query`, most similar first; equal ones
  /// by popularity, then catalog order — exactly, reading mostly bytes:
  ///
  /// 1. From each candidate's bytes (`VectorColumn.codes`), the least and the most its
  ///    similarity can be. The `count`-th largest least is reached by `count` candidates for
  ///    sure, so a candidate whose most is below it cannot be among the nearest.
  /// 2. The others — a few times `count`, as a rule — are measured exactly from their floats.
  func nearest(
    _ candidates: [Int32], to query: [Float], count: Int
  ) -> [(slot: Int32, similarity: Float)] {
    guard let vectors, count > 0 else { return [] }
    guard candidates.count > 4 * count else {
      return exactlyNearest(candidates, to: query, count: count)
    }
    let ranges = Parallel.ranges(
      count: candidates.count,
      parts: Parallel.parts(for: candidates.count * vectors.dimensions, minimumPerPart: 1 << 22))
    let bounded = Parallel.map(parts: ranges.count) { part in
      let range = ranges[part]
      var most = [Float](repeating: -.infinity, count: range.count)
      var least = KeyHeap(capacity: count)
      vectors.forEachSimilarityBounds(of: candidates[range], to: query) { offset, low, high in
        most[offset - range.lowerBound] = high
        least.insert(Self.nearnessKey(low) << 32)
      }
      return (most: most, least: least.sorted)
    }
    let leasts = bounded.count == 1 ? bounded[0].least : bounded.flatMap(\.least).sorted()
    let threshold =
      leasts.count >= count
      ? Self.similarity(ofNearnessKey: leasts[count - 1] >> 32) : -Float.infinity
    var survivors: [Int32] = []
    for (part, range) in ranges.enumerated() {
      for (offset, most) in bounded[part].most.enumerated() where most >= threshold {
        survivors.append(candidates[range.lowerBound + offset])
      }
    }
    return exactlyNearest(survivors, to: query, count: count)
  }

  /// `nearest` from every candidate's floats. Each core keeps the best of its part in a heap
  /// of packed keys (the similarity's bits above the popularity rank), and the parts' are
  /// merged.
  func exactlyNearest(
    _ candidates: [Int32], to query: [Float], count: Int
  ) -> [(slot: Int32, similarity: Float)] {
    guard let vectors, count > 0 else { return [] }
    let ranks = popularityRanks
    let order = popularityOrder
    let byPopularity = ranks.count == slotCount
    let ranges = Parallel.ranges(
      count: candidates.count,
      parts: Parallel.parts(for: candidates.count * vectors.dimensions, minimumPerPart: 1 << 20))
    let kept = Parallel.map(parts: ranges.count) { part in
      var heap = KeyHeap(capacity: count)
      vectors.forEachSimilarity(of: candidates[ranges[part]], to: query) { slot, similarity in
        let tie = byPopularity ? ranks[Int(slot)] : UInt32(slot)
        heap.insert(Self.nearnessKey(similarity) << 32 | UInt64(tie))
      }
      return heap.sorted
    }
    var merged = kept.count == 1 ? kept[0] : kept.joined().sorted()
    if merged.count > count { merged.removeLast(merged.count - count) }
    return merged.map { key in
      let tie = Int(key & 0xFFFF_FFFF)
      let slot = byPopularity ? order[tie] : Int32(tie)
      return (slot, Self.similarity(ofNearnessKey: key >> 32))
    }
  }

  /// A similarity as 32 bits that sort the other way round: the most similar smallest.
  @inline(__always)
  static func nearnessKey(_ similarity: Float) -> UInt64 {
    let bits = similarity.bitPattern
    let ascending = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
    return UInt64(~ascending)
  }

  static func similarity(ofNearnessKey key: UInt64) -> Float {
    let ascending = ~UInt32(truncatingIfNeeded: key)
    return Float(
      bitPattern: ascending & 0x8000_0000 != 0 ? ascending & 0x7FFF_FFFF : ~ascending)
  }

  /// Every match of a text search in order, ranking the rest when only the first were.
  private func wholeOrder(_ outcome: SearchOutcome, _ request: MatchRequest) -> [RankedSlot] {
    outcome.isComplete
      ? outcome.ordered
      : firstRows(of: request, outcome.slots, rows: .max).entries
  }

  /// The text's order and the nearest fused (see the type's comment): names equal to the
  /// query first, then by fused score; equal scores by the better of the two ranks, then the
  /// text's order, then nearness.
  func fused(
    text: [RankedSlot], nearest: [(slot: Int32, similarity: Float)], ratio: Double,
    places: inout [Int32: MeaningPlace], namedAsTyped: (Int32) -> Bool
  ) -> [RankedSlot] {
    for (index, neighbour) in nearest.enumerated() {
      places[neighbour.slot] = MeaningPlace(
        similarity: neighbour.similarity, nearRank: index + 1,
        score: text.isEmpty ? nil : ratio / Double(index + 1))
    }
    if text.isEmpty {
      return nearest.map { RankedSlot(slot: $0.slot, rank: Self.meaningOnlyRank) }
    }
    var first: [RankedSlot] = []
    var scored: [(entry: RankedSlot, place: MeaningPlace)] = []
    scored.reserveCapacity(text.count + nearest.count)
    for (index, entry) in text.enumerated() {
      var place = places[entry.slot] ?? MeaningPlace()
      place.textRank = index + 1
      let rank = MatchRank(packed: entry.rank)
      if rank.typos == 0, !rank.viaSynonym, rank.exactness <= .startsValue, namedAsTyped(entry.slot)
      {
        place.namedAsTyped = true
        place.score = nil
        first.append(entry)
      } else {
        place.score =
          (1 - ratio) / Double(index + 1) + (place.nearRank.map { ratio / Double($0) } ?? 0)
        scored.append((entry, place))
      }
      places[entry.slot] = place
    }
    for neighbour in nearest {
      guard let place = places[neighbour.slot], place.textRank == nil else { continue }
      scored.append((RankedSlot(slot: neighbour.slot, rank: Self.meaningOnlyRank), place))
    }
    scored.sort { a, b in
      let (x, y) = (a.place, b.place)
      if x.score != y.score { return (x.score ?? 0) > (y.score ?? 0) }
      let (firstBest, secondBest) = (x.bestRank, y.bestRank)
      if firstBest != secondBest { return firstBest < secondBest }
      if x.textRank != y.textRank { return (x.textRank ?? .max) < (y.textRank ?? .max) }
      return (x.nearRank ?? .max) < (y.nearRank ?? .max)
    }
    return first + scored.map(\.entry)
  }

  /// Whether one of the slot's names (the title, other names) is `folded` whole.
  func hasName(_ folded: [UInt8], slot: Int32) -> Bool {
    guard !folded.isEmpty else { return false }
    for (column, isName) in storage.namesItem.enumerated() where isName {
      let found = columns[column].withUnsafeBytes { bytes, _ in
        let range = columns[column].range(of: Int(slot))
        var start = range.lowerBound
        while start < range.upperBound {
          var end = start
          while end < range.upperBound, bytes[end] != 0 { end += 1 }
          if end - start == folded.count,
            folded.indices.allSatisfy({ bytes[start + $0] == folded[$0] })
          {
            return true
          }
          start = end + 1
        }
        return false
      }
      if found { return true }
    }
    return false
  }

  /// The rank of a result found by meaning alone: no word of it matched
  /// (`MatchRank.unranked`).
  static var meaningOnlyRank: UInt16 { MatchRank.unranked.packed }
}

/// Where a result of a search by meaning stood in the lists that were fused: what `--explain`
/// shows and the HTTP answer's `similarity` reads.
package struct MeaningPlace: Hashable, Sendable {
  /// The cosine similarity to the query; nil when it was not among the nearest (it is then
  /// measured when shown).
  var similarity: Float?
  /// Its place among the nearest, from 1; nil when it was not among them.
  var nearRank: Int?
  /// Its place in the text's order, from 1; nil when the text did not find it.
  var textRank: Int?
  /// The fused score, `(1 - r) / textRank + r / nearRank`; nil without text, or for a name
  /// equal to the query, which comes first whatever the score.
  var score: Double?
  /// Whether one of its names equals the query as typed.
  var namedAsTyped = false

  /// The better of its two places: what breaks a tie of fused scores.
  var bestRank: Int { min(textRank ?? .max, nearRank ?? .max) }
}
