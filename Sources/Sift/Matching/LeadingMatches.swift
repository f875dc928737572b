/// For each needle of one to three letters a–z that many items hold, the first of its matches in
/// ranked order — as a search for that needle alone, over every text field, ranks them: once as
/// a word still being typed (`MatchRequest.isTyping`, as a first keystroke always is), once
/// finished ("san " with a space), since the two rank starts differently. The
/// first keystrokes of a word then read their page from a list instead of bounding every match
/// (the 760,000 matches of "a" at four times the cities, the 12,000 of "san" at 1×).
///
/// Made for the slots `0..<slotCount` as they were when the index was archived, and kept in the
/// archive. A search filters a list by its own matches (so scopes, tokens, negations and dead
/// slots are honoured) and merges in the slots added since (`SearchIndex.leadingRows`). A
/// finished needle's rank depends only on an item's text, which a slot never changes; a typed
/// one's may depend on the item's place in the popularity order, which other items' edits move,
/// so a typed list is read only while the index is as the lists saw it. Compaction renumbers
/// the slots and drops the lists.
struct LeadingMatches: Sendable {
  /// The needles, ascending: a letter as its byte, two or three letters as their bytes one
  /// after the other (`first << 8 | second`, `first << 16 | second << 8 | third`), with
  /// `finishedFlag` set for a finished needle's list.
  let needles: IndexBuffer<UInt32>
  /// Per needle, how many slots matched it: a list this long holds every match.
  let matchCounts: IndexBuffer<UInt32>
  /// Per needle, where its rows start in `slots` and `ranks`; one more than there are needles.
  let starts: IndexBuffer<UInt32>
  let slots: IndexBuffer<Int32>
  let ranks: IndexBuffer<UInt16>
  /// The slots the lists were made over.
  let slotCount: Int

  /// How many rows a list keeps: twice a first search's rows, so scrolling to the second page
  /// reads the list too.
  static let rowsKept = 256
  /// Needles with at most this many matches get no list: bounding so few costs about a
  /// millisecond, and the lists stay small (554 for the cities, 0.86 MB; kept typed and finished,
  /// 1.7 MB).
  static let matchesAbove = 2_048

  /// One needle's list.
  struct List {
    let rows: ArraySlice<RankedSlot>
    /// Whether it holds every match the needle had.
    let isWhole: Bool
  }

  /// Marks the key of a finished needle's list: above every needle's bytes.
  static let finishedFlag: UInt32 = 1 << 24

  /// The key of a needle of one to three letters a–z, typed or finished; nil for any other.
  static func key(of needle: some Collection<UInt8>, isTyping: Bool) -> UInt32? {
    guard (1...3).contains(needle.count), needle.allSatisfy(RawColumn.hasOwnBit) else {
      return nil
    }
    return needle.reduce(0) { $0 << 8 | UInt32($1) } | (isTyping ? 0 : finishedFlag)
  }

  /// Every needle a list may be kept for: the 26 letters, the 676 pairs, then the 17,576
  /// triples, in the order of their keys.
  static var candidateNeedles: [[UInt8]] {
    let letters = Array(UInt8(ascii: "a")...UInt8(ascii: "z"))
    let pairs = letters.flatMap { first in letters.map { [first, $0] } }
    return letters.map { [$0] } + pairs + pairs.flatMap { pair in letters.map { pair + [$0] } }
  }

  /// The list kept for `needle`, typed or finished, if any.
  func list(for needle: [UInt8], isTyping: Bool) -> List? {
    guard let key = Self.key(of: needle, isTyping: isTyping) else { return nil }
    let low = needles.lowerBound(of: key)
    guard low < needles.count, needles[low] == key else { return nil }
    let range = Int(starts[low])..<Int(starts[low + 1])
    return List(
      rows: ArraySlice(range.map { RankedSlot(slot: slots[$0], rank: ranks[$0]) }),
      isWhole: range.count == Int(matchCounts[low]))
  }

  /// Writes the lists after the rest of an archive, their slots renumbered by `newSlot`.
  func write(to writer: inout ArchiveWriter, renumbering newSlot: [Int32]) {
    writer.appendArray(needles)
    writer.appendArray(matchCounts)
    writer.appendArray(starts)
    writer.appendArray(IndexBuffer(slots.map { newSlot[Int($0)] }))
    writer.appendArray(ranks)
  }

  /// Reads what `write(to:renumbering:)` wrote, for an archive of `slotCount` slots, checking
  /// (unless the bytes are trusted) every offset and slot a search follows.
  init(reading reader: inout ArchiveReader, slotCount: Int) throws(IndexArchive.Failure) {
    needles = try reader.readBuffer()
    matchCounts = try reader.readBuffer()
    starts = try reader.readBuffer()
    slots = try reader.readBuffer()
    ranks = try reader.readBuffer()
    self.slotCount = slotCount
    let (needles, starts, slots) = (needles, starts, slots)
    guard matchCounts.count == needles.count, starts.count == needles.count + 1,
      ranks.count == slots.count,
      reader.holds({
        starts.areOffsets(into: slots.count) && zip(needles, needles.dropFirst()).allSatisfy(<)
          && slots.allSatisfy { $0 >= 0 && Int($0) < slotCount }
      })
    else { throw .damaged("leading matches") }
  }

  init(
    needles: [UInt32], matchCounts: [UInt32], starts: [UInt32], rows: [RankedSlot],
    slotCount: Int
  ) {
    self.needles = IndexBuffer(needles)
    self.matchCounts = IndexBuffer(matchCounts)
    self.starts = IndexBuffer(starts)
    slots = IndexBuffer(rows.map(\.slot))
    ranks = IndexBuffer(rows.map(\.rank))
    self.slotCount = slotCount
  }
}

extension SearchIndex {
  /// The lists of `LeadingMatches` for the live slots as they are now: each candidate needle
  /// searched alone, in every text field, exactly as a person typing it would search it.
  ///
  /// - Complexity: a search per letter, and per pair and triple that enough slots hold, on
  ///   every core, each reading its postings from the trigram index (built first if need be).
  func makeLeadingMatches(
    rowsKept: Int = LeadingMatches.rowsKept, matchesAbove: Int = LeadingMatches.matchesAbove
  ) -> LeadingMatches {
    // The trigram index answers each pair and triple from its postings, and counts them first
    // (at least the live matches, so no needle with a list is passed over). One over every
    // slot: built into the shared box when nobody is building it, else here — one read from a
    // file before later adds would undercount, one being built elsewhere is not there yet.
    prepareSubstringSearch()
    let trigrams =
      trigrams.current.flatMap { $0.slotCount == slotCount ? $0 : nil }
      ?? TrigramIndex(columns: columns, readings: readingColumns, slotCount: slotCount)
    var withTrigrams = self
    withTrigrams.trigrams = TrigramBox(built: trigrams)
    let searched = withTrigrams
    // A pair's bigram count and a triple's trigram count are their exact match counts.
    let needles = LeadingMatches.candidateNeedles.filter { needle in
      needle.count == 1 || trigrams.candidateCount(for: needle) ?? 0 > matchesAbove
    }
    // Each needle typed, then each finished: the finished keys sort after every typed one.
    let searches = [true, false].flatMap { isTyping in needles.map { ($0, isTyping) } }
    let ranges = Parallel.ranges(
      count: searches.count, parts: Parallel.parts(for: searches.count, minimumPerPart: 1))
    let found = Parallel.map(parts: ranges.count) { part in
      ranges[part].compactMap { position -> (key: UInt32, count: Int, rows: [RankedSlot])? in
        let (needle, isTyping) = searches[position]
        let term = QueryTerm(
          condition: .text(TextCondition(needle: String(decoding: needle, as: UTF8.self))),
          range: 0..<needle.count)
        let outcome = searched.searchSlots(
          MatchRequest(terms: [term], typos: .off, isTyping: isTyping), rows: rowsKept)
        guard outcome.slots.count > matchesAbove else { return nil }
        return (
          LeadingMatches.key(of: needle, isTyping: isTyping)!, outcome.slots.count,
          outcome.ordered
        )
      }
    }
    var keys: [UInt32] = []
    var counts: [UInt32] = []
    var starts: [UInt32] = [0]
    var rows: [RankedSlot] = []
    for list in found.joined() {
      keys.append(list.key)
      counts.append(UInt32(list.count))
      rows += list.rows.prefix(rowsKept)
      starts.append(UInt32(rows.count))
    }
    return LeadingMatches(
      needles: keys, matchCounts: counts, starts: starts, rows: rows, slotCount: slotCount)
  }

  /// `firstRows` for a plan whose one ranked term is a needle with a kept list: the list's
  /// rows that are among `slots`, merged with the slots added since the list was made; nil when
  /// there is no list for the plan, or it runs out before `rows` of `slots` without holding
  /// every match (a narrow scope: the caller bounds every match instead).
  ///
  /// - Complexity: O(*k* log *m*) for the *k* listed rows read, plus ranking the added slots.
  func leadingRows(_ slots: [Int32], _ plan: MatchPlan, rows: Int) -> [RankedSlot]? {
    guard let leading = leadingMatches, plan.rankProbes.count == 1, plan.queryNumber == nil
    else { return nil }
    let probe = plan.rankProbes[0]
    guard probe.number == nil, !probe.initials, probe.columns.elementsEqual(columns.indices),
      let list = leading.list(for: probe.needle, isTyping: plan.isTyping)
    else { return nil }
    // While a word is typed, a start weighs its item's place among the items with a ranking
    // value (`magnitudeStarts`): an item added or deleted since the lists were made may move
    // the places of others, so only an index as the lists saw it reads them.
    if plan.isTyping, schema.weighsMagnitude,
      leading.slotCount != slotCount || !isLive.areAllLive
    {
      return nil
    }
    // `slots` ascends: those below the list's slot count are the ones it ranked.
    let covered = slots.lowerBound(of: Int32(min(leading.slotCount, slotCount)))
    var first: [RankedSlot] = []
    first.reserveCapacity(rows)
    for row in list.rows where first.count < rows {
      let at = slots[..<covered].lowerBound(of: row.slot)
      if at < covered, slots[at] == row.slot { first.append(row) }
    }
    guard first.count == rows || list.isWhole else { return nil }
    guard covered < slots.count else { return first }
    let added = firstRows(Array(slots[covered...]), plan, rows: rows, usingLists: false).entries
    var merged: [RankedSlot] = []
    merged.reserveCapacity(rows)
    var (a, b) = (first[...], added[...])
    while merged.count < rows, let next = a.first ?? b.first {
      if let x = a.first, let y = b.first, precedes(y, x) {
        merged.append(y)
        b = b.dropFirst()
      } else {
        merged.append(next)
        if a.first != nil { a = a.dropFirst() } else { b = b.dropFirst() }
      }
    }
    return merged
  }
}

extension RandomAccessCollection where Element: Comparable, Index == Int {
  /// The first index of this ascending collection whose element is not below `value`.
  func lowerBound(of value: Element) -> Int {
    var low = startIndex
    var high = endIndex
    while low < high {
      let mid = (low + high) / 2
      if self[mid] < value { low = mid + 1 } else { high = mid }
    }
    return low
  }
}
