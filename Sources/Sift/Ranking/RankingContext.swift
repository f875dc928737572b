import Foundation

/// A plan's ranking terms and the index's columns as raw memory, for one ranking pass: no
/// reference counting in the per-item loop.
struct RankingContext {
  struct Probe {
    var needle: Range<Int>
    var columns: Range<Int>
    var numberColumns: Range<Int>
    /// Hangul initial consonants: matched in the readings alone.
    var initials: Bool
    /// Whether the columns' readings are searched (`MatchPlan.TextProbe.searchesReadings`).
    var readings: Bool
    /// NaN: the term is not a number.
    var number: Double
  }

  var columns: UnsafeBufferPointer<RawColumn>
  /// Each text column's readings (`Readings`), where it has any.
  var readings: UnsafeBufferPointer<RawColumn?>
  var numbers: UnsafeBufferPointer<UnsafeBufferPointer<Double>>
  var probes: UnsafeBufferPointer<Probe>
  /// Needles and the query, back to back.
  var arena: UnsafeBufferPointer<UInt8>
  /// The words of the probes' needles, as ranges of `arena`, found once a pass: what a
  /// title's coverage compares its words with (`SearchIndex.titleCovered`).
  var queryWords: UnsafeBufferPointer<Range<Int>>
  /// Column lists of the probes, back to back.
  var columnLists: UnsafeBufferPointer<Int32>
  var query: UnsafeBufferPointer<UInt8>
  var queryColumns: UnsafeBufferPointer<Int32>
  var queryNumber: Double?
  var queryNumberColumns: UnsafeBufferPointer<Int32>
  /// The query's last word is still being typed (`MatchRequest.isTyping`).
  var isTyping: Bool
  /// While the last word is typed, with a ranking field where larger is better: each slot's
  /// place in popularity order, and how many of the first places reach each magnitude
  /// (`SearchIndex.magnitudeStarts`) — a slot's magnitude without reading its value, whose
  /// column the search would otherwise touch all over (2 MB of the cities).
  var popularityRanks: IndexBuffer<UInt32>?
  var magnitudeStarts: [UInt32]
  /// Each probe's `ReadingStarters` bits, back to back, for slots below `readersBelow` (0
  /// when not found for this pass).
  var readerBits: UnsafeBufferPointer<UInt64>
  var readerWords: Int
  var readersBelow: Int
  /// The probes (a bit each) whose bits say yes as well as no (`ReadingStarters.exact`).
  var readersExact: UInt64
  /// Whether ranks carry the agreement (`MatchRank.agreement`): where nothing else decides —
  /// no ranking field — and near a place, where the title's part ranks before distance. With
  /// a ranking field, popularity breaks those ties, as it always did.
  var weighsAgreement: Bool

  /// The slot's magnitude (`RankingContext.magnitudeStarts`): how many of the popularity
  /// order's first places it is among, found by halving (the starts only shrink). 0 without a
  /// larger-is-better ranking field.
  @inline(__always)
  func magnitude(_ slot: Int) -> Int {
    guard let popularityRanks else { return 0 }
    let place = popularityRanks[slot]
    var (low, high) = (0, magnitudeStarts.count)
    while low < high {
      let mid = (low + high) / 2
      if place < magnitudeStarts[mid] { low = mid + 1 } else { high = mid }
    }
    return low
  }

  /// Whether a word of the slot's readings starts with the needle of the probe at `index` (one
  /// that reads, not initial consonants), when the pass's `ReadingStarters` know; nil when
  /// the readings must be read.
  @inline(__always)
  func readingKnown(_ index: Int, _ slot: Int) -> Bool? {
    guard slot < readersBelow else { return nil }
    if readerBits[index * readerWords + slot >> 6] & (1 << UInt64(slot & 63)) == 0 { return false }
    return readersExact & (1 << UInt64(index)) != 0 ? true : nil
  }

  @inline(__always)
  func needle(_ probe: Probe) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: arena[probe.needle])
  }

  @inline(__always)
  func columns(of probe: Probe) -> UnsafeBufferPointer<Int32> {
    UnsafeBufferPointer(rebasing: columnLists[probe.columns])
  }

  @inline(__always)
  func numberColumns(of probe: Probe) -> UnsafeBufferPointer<Int32> {
    UnsafeBufferPointer(rebasing: columnLists[probe.numberColumns])
  }
}

extension SearchIndex {
  /// Calls `body` with the plan and the columns as raw memory.
  ///
  /// `readers`: the plan's `readingStarters`, when the pass bounds or ranks many matches.
  func withRankingContext<Result>(
    _ plan: MatchPlan, readers: ReadingStarters? = nil, _ body: (RankingContext) -> Result
  ) -> Result {
    var arena: [UInt8] = []
    var lists: [Int32] = []
    var probes: [RankingContext.Probe] = []
    for probe in plan.rankProbes {
      let needleStart = arena.count
      arena += probe.needle
      let columnStart = lists.count
      lists += probe.columns.map(Int32.init)
      let numberStart = lists.count
      lists += probe.numberColumns.map(Int32.init)
      probes.append(
        RankingContext.Probe(
          needle: needleStart..<arena.count, columns: columnStart..<numberStart,
          numberColumns: numberStart..<lists.count, initials: probe.initials,
          readings: probe.searchesReadings, number: probe.number ?? .nan))
    }
    let queryStart = arena.count
    arena += plan.query ?? []
    let queryRange = queryStart..<arena.count
    let queryColumnsStart = lists.count
    lists += plan.queryColumns.map(Int32.init)
    let queryColumnsRange = queryColumnsStart..<lists.count
    let queryNumberStart = lists.count
    lists += (plan.queryNumber?.columns ?? []).map(Int32.init)
    let queryNumberRange = queryNumberStart..<lists.count
    // Ten binary searches a context. Found once per plan instead, they were found for plans
    // that rank nothing (a kept list answers them) and cost a bench 2 MB more peak.
    let starts = plan.isTyping ? magnitudeStarts() : []
    var queryWords: [Range<Int>] = []
    arena.withUnsafeBufferPointer { arena in
      for probe in probes {
        NearSpelling.forEachWord(in: arena, range: probe.needle) { queryWords.append($0) }
      }
    }

    return withRawColumns { columns, readings in
      withNumberBuffers { numbers in
        arena.withUnsafeBufferPointer { arena in
          lists.withUnsafeBufferPointer { lists in
            probes.withUnsafeBufferPointer { probes in
              queryWords.withUnsafeBufferPointer { queryWords in
                (readers?.bits ?? []).withUnsafeBufferPointer { readerBits in
                  body(
                    RankingContext(
                      columns: columns, readings: readings, numbers: numbers, probes: probes,
                      arena: arena, queryWords: queryWords, columnLists: lists,
                      query: UnsafeBufferPointer(rebasing: arena[queryRange]),
                      queryColumns: UnsafeBufferPointer(rebasing: lists[queryColumnsRange]),
                      queryNumber: plan.queryNumber?.value,
                      queryNumberColumns: UnsafeBufferPointer(rebasing: lists[queryNumberRange]),
                      isTyping: plan.isTyping,
                      popularityRanks: starts.isEmpty ? nil : popularityRanks,
                      magnitudeStarts: starts,
                      readerBits: readerBits, readerWords: readers?.wordsPerProbe ?? 0,
                      readersBelow: readers?.below ?? 0, readersExact: readers?.exact ?? 0,
                      weighsAgreement: weighsAgreement(plan.sort)))
                }
              }
            }
          }
        }
      }
    }
  }

  /// Whether a search under `sort` ranks by the agreement (`RankingContext.weighsAgreement`).
  func weighsAgreement(_ sort: SortPlan?) -> Bool {
    rankingColumn == nil || sort?.afterExactness == true
  }

  /// How many of the first places of the popularity order reach each magnitude, 1 to 20: an
  /// item reaches magnitude k + 1 when it is among the first V / 10^(k/2) of the V items with a
  /// ranking value — every half power of ten it stands nearer the top adds one — or ties with
  /// the last of them. Empty without a ranking field where larger is better (every magnitude is
  /// then 0).
  ///
  /// The magnitude reads the item's place, never its value: multiplying every value by 1,000,
  /// or replacing each by its rank, leaves every order the same. A catalog whose popularity is
  /// a rating count up to 341 weighs like one of millions of people, and items with equal
  /// values weigh the same. Half powers of ten, not whole ones: a whole one rounds a
  /// sevenfold gap in place to nothing or to tenfold, and a typed name's points
  /// (`MatchRank.typedPoints`) weigh against such gaps.
  ///
  /// - Complexity: 21 binary searches over the order.
  func magnitudeStarts() -> [UInt32] {
    guard let rankingColumn, schema.weighsMagnitude, !popularityOrder.isEmpty else { return [] }
    let values = numbers[rankingColumn]
    func value(atPlace place: Int) -> Double { values[Int(popularityOrder[place])] }
    /// The first place past `limit` whose value is below `floor` (or missing).
    func firstBelow(_ floor: Double, from limit: Int, to end: Int) -> Int {
      var (low, high) = (limit, end)
      while low < high {
        let mid = (low + high) / 2
        if value(atPlace: mid) >= floor { low = mid + 1 } else { high = mid }
      }
      return low
    }
    // Items without a value come last in the order.
    var (low, high) = (0, popularityOrder.count)
    while low < high {
      let mid = (low + high) / 2
      if value(atPlace: mid).isNaN { high = mid } else { low = mid + 1 }
    }
    let valued = low
    guard isLive.areAllLive else { return liveMagnitudeStarts(valued: valued, values) }
    return Self.magnitudeReaches(valued).map { reach in
      reach == 0 ? 0 : UInt32(firstBelow(value(atPlace: reach - 1), from: reach, to: valued))
    }
  }

  /// For `count` items with a value, how many first places each magnitude takes: ⌊count /
  /// 10^(k/2)⌋ for k = 0…19, while that is one or more.
  static func magnitudeReaches(_ count: Int) -> [Int] {
    (0..<maximumMagnitude).map { Int((Double(count) / pow(10, Double($0) / 2)).rounded(.down)) }
      .filter { $0 > 0 }
  }

  /// The most magnitude an item has: the first place of 10^10 items.
  static var maximumMagnitude: Int { 20 }

  /// `magnitudeStarts` when some slots are dead (an edited item's old slot waits for the next
  /// compaction): counted over the live items alone, so that an edit moves no other item's
  /// magnitude. One pass over the first `valued` places of the order.
  private func liveMagnitudeStarts(valued: Int, _ values: IndexBuffer<Double>) -> [UInt32] {
    var live: [Int] = []
    live.reserveCapacity(valued)
    for place in 0..<valued where isLive[Int(popularityOrder[place])] { live.append(place) }
    return Self.magnitudeReaches(live.count).map { reach in
      let floor = values[Int(popularityOrder[live[reach - 1]])]
      var place = live[reach - 1] + 1
      while place < valued, values[Int(popularityOrder[place])] >= floor { place += 1 }
      return UInt32(place)
    }
  }

  /// The magnitude (`magnitudeStarts`) of the item in `slot`: what `--explain` prints.
  package func typingMagnitude(ofSlot slot: Int) -> Int {
    let starts = magnitudeStarts()
    guard !starts.isEmpty, popularityRanks.indices.contains(slot) else { return 0 }
    let place = popularityRanks[slot]
    return starts.count { place < $0 }
  }

  /// Calls `body` with every text column (and its readings) as raw memory.
  private func withRawColumns<Result>(
    _ body: (UnsafeBufferPointer<RawColumn>, UnsafeBufferPointer<RawColumn?>) -> Result
  ) -> Result {
    var raw: [RawColumn] = []
    var rawInitials: [RawColumn?] = []
    // Read once: each step of the recursion would otherwise copy the index (a ranking pass
    // per way of moving a space paid it many times a keystroke).
    let columns = columns
    let readingColumns = readingColumns
    let summaries = summaries
    raw.reserveCapacity(columns.count)
    rawInitials.reserveCapacity(columns.count)
    func next(_ index: Int) -> Result {
      if index == columns.count {
        return raw.withUnsafeBufferPointer { raw in
          rawInitials.withUnsafeBufferPointer { body(raw, $0) }
        }
      }
      return columns[index].withUnsafeBytes { bytes, starts in
        summaries[index].withUnsafeBuffers { wordStarts, valueStarts, lengths in
          raw.append(
            RawColumn(
              bytes: bytes, starts: starts, wordStarts: wordStarts, valueStarts: valueStarts,
              lengths: lengths))
          guard let initials = readingColumns[index] else {
            rawInitials.append(nil)
            return next(index + 1)
          }
          return initials.withUnsafeBytes { bytes, starts in
            rawInitials.append(
              RawColumn(
                bytes: bytes, starts: starts, wordStarts: nil, valueStarts: nil, lengths: nil))
            return next(index + 1)
          }
        }
      }
    }
    return next(0)
  }

  /// Calls `body` with every number column as raw memory.
  private func withNumberBuffers<Result>(
    _ body: (UnsafeBufferPointer<UnsafeBufferPointer<Double>>) -> Result
  ) -> Result {
    var raw: [UnsafeBufferPointer<Double>] = []
    let numbers = numbers
    raw.reserveCapacity(numbers.count)
    func next(_ index: Int) -> Result {
      if index == numbers.count { return raw.withUnsafeBufferPointer(body) }
      return numbers[index].withUnsafeBufferPointer { column in
        raw.append(column)
        return next(index + 1)
      }
    }
    return next(0)
  }
}

/// For each ranking probe of a plan that reads, the slots (below `below`) whose readings start
/// a word with its needle, as `wordsPerProbe` words of bits a probe (`SearchIndex.readingStarters`).
struct ReadingStarters {
  var bits: [UInt64]
  var wordsPerProbe: Int
  var below: Int
  /// The probes (a bit each) whose bits are exactly their readers: two or three letters
  /// searched in every field. Another probe's bits are those that may read it.
  var exact: UInt64
}
