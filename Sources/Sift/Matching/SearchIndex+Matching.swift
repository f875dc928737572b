import Dispatch
import Foundation

/// A request compiled against an index: field names resolved to columns, needles to bytes.
struct MatchPlan: Sendable {
  /// A text term: its needle in some columns (or their readings), or a number column equal to
  /// `number`; with `typo`, near spellings too.
  struct TextProbe: Sendable {
    var needle: [UInt8]
    var columns: [Int]
    /// Hangul initial consonants (`TextCondition.matchesInitials`): found in the columns'
    /// readings too, and there only.
    var initials: Bool
    var number: Double?
    var numberColumns: [Int]
    var typo: TypoProbe?
    /// Matched only as whole words, from a word's start to a word's end: a synonym is a
    /// finished expression ("ny" for "new york" never finds Nyack).
    var wholeWords = false
    /// Matched only from a word's start: words with their spaces moved
    /// (`TextCondition.movesSpaces`: "e.t" finds E.T., never "the tree").
    var startsWord = false
    /// Letters a–z that may be a reading of Han or kana text (`Readings.mayMatch`), in a
    /// column that has readings: found in the columns' readings too, where a word of them
    /// (a syllable on) starts with it — "jing" in 北京, never "ing".
    var readings = false

    /// Whether the columns' readings are searched too.
    var searchesReadings: Bool { initials || readings }
  }

  /// A term's letters and the edits it may have.
  struct TypoProbe: Sendable {
    var letters: [UInt32]
    var budget: Int
  }

  enum Condition: Sendable {
    case text(TextProbe)
    case number(column: Int, NumberPredicate)
    case category(Int32)
    /// A condition on a field the index does not have: matches nothing.
    case never
    /// Any of the alternatives, each terms that must all hold.
    indirect case either([[Term]])
  }

  struct Term: Sendable {
    var isNegated: Bool
    var condition: Condition
  }

  /// Positive terms, most selective first, then negated ones.
  var terms: [Term]
  /// The positive text terms in query order: what ranking looks at.
  var rankProbes: [TextProbe]
  /// The category a category scope requires, if any.
  var requiredCategory: Int32?
  /// Stands for a category value no item has (-1 is "no category").
  static let noSuchCategory: Int32 = -2
  /// The folded query, the positive text terms joined by spaces, which a value must equal for
  /// the first exactness level; and the columns where such a value may be.
  var query: [UInt8]?
  var queryColumns: [Int]
  /// A lone number term: a number value equal to it equals the query too.
  var queryNumber: (value: Double, columns: [Int])?
  /// The last word is still being typed (`MatchRequest.isTyping`).
  var isTyping = false
  /// Edits spent before matching: 1 for the words typed with a space moved
  /// (`MatchRequest.spaceMoves`), ranked as a one-letter near spelling is — typos, and a
  /// typed start's weight.
  var spentEdits = 0
  /// Results by a field's value first (`MatchRequest.sort`), or by distance after typos, word starts and a title match (`MatchRank.nearClass`);
  /// nil: relevance.
  var sort: SortPlan?
  /// The place asked for, whose radius (if any) keeps only the slots within it.
  var near: NearPlan?

  var hasTypoTerms: Bool { rankProbes.contains { $0.typo != nil } }
}

extension SearchIndex {
  /// The plan of `request` as searched with near spellings (`MatchRequest.forNearSpellings`)
  /// or without.
  func plan(_ request: MatchRequest, nearSpellings: Bool) -> MatchPlan {
    plan(nearSpellings ? request.forNearSpellings : request)
  }

  /// The plan near spellings of `request` are looked for with, given its exact `plan`: that
  /// plan itself unless a term splits into words (`MatchRequest.forNearSpellings`).
  func nearSpellingPlan(_ request: MatchRequest, exact plan: MatchPlan) -> MatchPlan {
    request.splitsForNearSpellings ? self.plan(request.forNearSpellings) : plan
  }

  func plan(_ request: MatchRequest) -> MatchPlan {
    let unfieldedText = textFields.indices.filter {
      schema.searchesUnfielded(textFields[$0], in: request)
    }
    let unfieldedNumbers = numberFields.indices.filter {
      schema.searchesUnfielded(numberFields[$0], in: request)
    }
    let requiredCategory = request.requiredCategory.map {
      categoryIDs[$0] ?? MatchPlan.noSuchCategory
    }
    var terms: [MatchPlan.Term] = []
    var rankProbes: [MatchPlan.TextProbe] = []
    let anchored = request.anchorsShortWords
    func planned(_ term: QueryTerm, ranked: Bool) -> MatchPlan.Condition {
      let condition: MatchPlan.Condition
      switch term.condition {
      case .text(let text):
        let columns: [Int]
        if let field = text.field {
          guard let column = textFields.firstIndex(where: { $0.name == field }) else {
            condition = .never
            break
          }
          columns = [column]
        } else {
          columns = unfieldedText
        }
        let probe = MatchPlan.TextProbe(
          needle: Array(text.needle.utf8), columns: columns, initials: text.matchesInitials,
          number: text.field == nil ? text.number : nil,
          numberColumns: text.field == nil ? unfieldedNumbers : [],
          typo: term.isNegated || !request.typos.isEnabled
            ? nil : Self.typoProbe(text, anchored: anchored),
          wholeWords: text.synonymOf != nil && !text.movesSpaces, startsWord: text.movesSpaces,
          readings: Readings.mayMatch(text) && columns.contains { readingColumns[$0] != nil })
        condition = .text(probe)
        if !term.isNegated, ranked { rankProbes.append(probe) }
      case .number(let field, let predicate):
        if let column = numberFields.firstIndex(where: { $0.name == field }) {
          condition = .number(column: column, predicate)
        } else {
          condition = .never
        }
      case .category(_, let value):
        condition = .category(categoryIDs[value] ?? MatchPlan.noSuchCategory)
      case .either(let alternatives):
        // Searches go through `searchAlternatives`, which ranks each alternative as a plan of
        // its own; here the term only decides whether an item matches.
        condition = .either(
          alternatives.map { terms in
            terms.map {
              MatchPlan.Term(isNegated: $0.isNegated, condition: planned($0, ranked: false))
            }
          })
      }
      return condition
    }
    for term in request.terms {
      terms.append(
        MatchPlan.Term(isNegated: term.isNegated, condition: planned(term, ranked: true)))
    }
    // Longer needles are rarer: test them first; negations last.
    terms.sort { a, b in
      if a.isNegated != b.isNegated { return !a.isNegated }
      return a.selectivity > b.selectivity
    }
    var plan = MatchPlan(
      terms: terms, rankProbes: rankProbes, requiredCategory: requiredCategory, query: nil,
      queryColumns: [], queryNumber: nil, isTyping: request.isTyping,
      sort: sortPlan(request), near: nearPlan(request.near))
    plan.spentEdits = rankProbes.contains(where: \.startsWord) ? 1 : 0
    if !rankProbes.isEmpty {
      plan.query = Array(rankProbes.map(\.needle).joined(separator: [UInt8(ascii: " ")]))
      plan.queryColumns = Array(Set(rankProbes.flatMap(\.columns))).sorted()
      if rankProbes.count == 1, let number = rankProbes[0].number {
        plan.queryNumber = (number, rankProbes[0].numberColumns)
      }
    }
    return plan
  }

  /// The near-spelling probe of a term that may have typos: plain text (no field, phrase,
  /// number or initials), one word of at least four letters, or of three when `anchored`
  /// (`MatchRequest.anchorsShortWords`).
  static func typoProbe(_ text: TextCondition, anchored: Bool = false) -> MatchPlan.TypoProbe? {
    TypoTolerance.nearSpellingTerm(text, anchored: anchored).map {
      MatchPlan.TypoProbe(letters: $0.letters, budget: $0.budget)
    }
  }

  /// Live slots, in slot order, matching every term as written.
  func matchingSlots(_ plan: MatchPlan, within candidates: [Int32]?) -> [Int32] {
    var slots: [Int32]
    var remaining = plan.terms[...]
    var firstProbe: MatchPlan.TextProbe?
    if let first = remaining.first, !first.isNegated, case .text(let probe) = first.condition {
      firstProbe = probe
    }
    let trigrams = trigrams.current
    if let probe = firstProbe, let trigrams, candidates == nil,
      let found = letterMatches(probe, trigrams)
    {
      // One or two letters: the slots holding them, from four bytes an item.
      slots = found
      remaining = remaining.dropFirst()
    } else if let probe = firstProbe, let trigrams,
      candidates.map({ listingPays(probe, trigrams, against: $0.count) }) ?? true,
      let found = trigramMatches(probe, trigrams)
    {
      // Fewer slots hold the term's rarest trigram than matched before (or than the scan
      // would read): check those — or, for two letters, take them.
      slots = found
      remaining = remaining.dropFirst()
    } else if let candidates {
      slots = isLive.areAllLive ? candidates : candidates.filter { isLive[Int($0)] }
    } else if let probe = firstProbe {
      slots = scan(probe)
      remaining = remaining.dropFirst()
    } else if isLive.areAllLive {
      slots = Array(0..<Int32(slotCount))
    } else {
      slots = (0..<Int32(slotCount)).filter { isLive[Int($0)] }
    }
    if let category = plan.requiredCategory {
      slots.removeAll { !storage.slot(Int($0), holdsCategory: category) }
    }
    if let near = plan.near { slots = keepingWithin(slots, near) }
    for term in remaining {
      if let trigrams, case .text(let probe) = term.condition,
        let (letter, settled) = letterTerm(probe), settled
      {
        // One letter in every text field ("da n"): the letters an item holds answer it.
        slots.removeAll { slot in
          let holds =
            Int(slot) < trigrams.slotCount
            ? trigrams.slot(Int(slot), holdsLetter: letter)
            : matches(term.condition, slot: Int(slot), nearSpellings: false)
          return holds == term.isNegated
        }
        continue
      }
      if let trigrams, case .text(let probe) = term.condition, isListedExactly(probe),
        listingPays(probe, trigrams, against: slots.count),
        let listed = trigrams.candidates(for: probe.needle)
      {
        // Two or three letters in every text field ("da na"): their listing answers it, and
        // the slots whose readings start a word with them.
        let read = probe.readings ? readingListed(probe, trigrams) : []
        slots = Self.merging(slots, with: listed, or: read, keepingCommon: !term.isNegated) {
          slot in
          Int(slot) >= trigrams.slotCount
            ? matches(term.condition, slot: Int(slot), nearSpellings: false) : nil
        }
        continue
      }
      if case .text(let probe) = term.condition {
        slots = keeping(slots, holding: probe, negated: term.isNegated)
        continue
      }
      slots.removeAll {
        matches(term.condition, slot: Int($0), nearSpellings: false) == term.isNegated
      }
    }
    // The paths above find where a needle occurs; a whole-words term holds only where it
    // starts and ends a word.
    for term in plan.terms {
      guard case .text(let probe) = term.condition, probe.wholeWords || probe.startsWord else {
        continue
      }
      slots.removeAll { matchesExactly(probe, slot: Int($0)) == term.isNegated }
    }
    return slots
  }

  /// The slots of `slots` that hold the probe's text exactly (`matchesExactly`, one slot at a
  /// time, is the same rule for the few slots checked alone) — or, when
  /// `negated`, those that do not — reading each column's raw buffers once for all of them
  /// rather than once a slot: narrowing a first term's matches by the next ("da" → "da na").
  private func keeping(
    _ slots: [Int32], holding probe: MatchPlan.TextProbe, negated: Bool
  ) -> [Int32] {
    var holds = [Bool](repeating: false, count: slots.count)
    func mark(_ column: FoldedColumn, _ needle: UnsafeBufferPointer<UInt8>) {
      column.withUnsafeBytes { bytes, starts in
        for (position, slot) in slots.enumerated() where !holds[position] {
          let range = Int(starts[Int(slot)])..<Int(starts[Int(slot) + 1])
          if ByteSearch.contains(needle, in: bytes, range: range) { holds[position] = true }
        }
      }
    }
    probe.needle.withUnsafeBufferPointer { needle in
      for column in probe.columns {
        mark(columns[column], needle)
        if probe.initials, let readings = readingColumns[column] { mark(readings, needle) }
      }
    }
    if probe.readings {
      // Each column's readings opened once for all the slots, as the text's are.
      probe.needle.withUnsafeBufferPointer { needle in
        for column in probe.columns {
          readingColumns[column]?.withUnsafeBytes { bytes, starts in
            for (position, slot) in slots.enumerated() where !holds[position] {
              let range = Int(starts[Int(slot)])..<Int(starts[Int(slot) + 1])
              if Self.startsWord(needle, in: bytes, range: range, toWordEnd: false) {
                holds[position] = true
              }
            }
          }
        }
      }
    }
    if let number = probe.number {
      for column in probe.numberColumns {
        for (position, slot) in slots.enumerated() where numbers[column][Int(slot)] == number {
          holds[position] = true
        }
      }
    }
    return zip(slots, holds).compactMap { $1 != negated ? $0 : nil }
  }

  /// Live slots, in slot order, matching every term as written or, where a term may have
  /// typos, within its budget. Candidates come from the terms that may have typos: a term's
  /// exact hits, the slots of its near words in the dictionaries, and slots added since they
  /// were built. The term whose near words are in fewest slots seeds them; each other such term
  /// whose postings cost less to read than checking the candidates narrows them first, so that
  /// `saint petr` checks the slots near both words rather than every slot near "saint".
  /// `wanted` keeps candidates out before they are checked (facets want only some categories).
  func nearMatchingSlots(_ plan: MatchPlan, wanted: (Int32) -> Bool = { _ in true }) -> [Int32] {
    let typoTerms = plan.terms.compactMap { term -> NearTerm? in
      guard !term.isNegated, case .text(let probe) = term.condition, let typo = probe.typo
      else { return nil }
      let dictionaries = probe.columns.map { typoDictionary(column: $0) }
      let runs = dictionaries.map {
        $0.nearWordRuns(term: typo.letters, budget: typo.budget)
      }
      let postings = zip(dictionaries, runs).reduce(0) { $0 + $1.0.postingCount(inRuns: $1.1) }
      return NearTerm(probe: probe, dictionaries: dictionaries, runs: runs, postings: postings)
    }.sorted { $0.postings < $1.postings }
    guard let seed = typoTerms.first else { return [] }
    var hits = SlotSet(capacity: slotCount)
    var candidates = seed.postings
    for slot in exactSlots(seed.probe) {
      hits.insert(Int(slot))
      candidates += 1
    }
    // Below this slot every candidate came from the seed's dictionaries or its exact hits.
    let covered = insertNearWordSlots(of: seed, into: &hits)
    for slot in covered..<slotCount { hits.insert(slot) }
    for term in typoTerms.dropFirst()
    where term.postings <= candidates * Self.postingsPerCheck {
      guard let narrowing = possibleSlots(of: term) else { continue }
      hits.formIntersection(narrowing)
    }
    // A lone term's candidates below `covered` match it: only whether they are live is left.
    let checked = plan.terms.count > 1 || plan.requiredCategory != nil || plan.near != nil
    return hits.sorted.filter { slot in
      guard wanted(slot) else { return false }
      return checked || Int(slot) >= covered
        ? matches(plan, slot: Int(slot), nearSpellings: true) : isLive[Int(slot)]
    }
  }

  /// A term that may have typos, with the dictionary of each of its columns, its near words'
  /// runs in each, and how many slots they list.
  private struct NearTerm {
    var probe: MatchPlan.TextProbe
    var dictionaries: [TypoDictionary]
    var runs: [[Range<Int>]]
    var postings: Int
  }

  /// How many postings a candidate's check is worth: a posting costs a bit set, a check the
  /// walk of the costs over every word of the item's text.
  static var postingsPerCheck: Int { 64 }

  /// Inserts into `set` the slots of a term's near words, and returns the slot from which on
  /// a dictionary may not list them: the slots added since the first of them was built.
  private func insertNearWordSlots(of term: NearTerm, into set: inout SlotSet) -> Int {
    var covered = slotCount
    for (dictionary, runs) in zip(term.dictionaries, term.runs) {
      for run in runs {
        dictionary.forEachSlot(inWords: run) { slot in
          if Int(slot) < slotCount { set.insert(Int(slot)) }
        }
      }
      covered = min(covered, dictionary.slotCount)
    }
    return covered
  }

  /// A set holding every slot that may match `term` within its budget — its near words' slots,
  /// the slots holding its rarest trigram (a superset of its exact hits), the slots added since
  /// either was built — or nil when no such set is cheap (no trigram index yet, a number or
  /// initial consonants the trigrams do not list).
  private func possibleSlots(of term: NearTerm) -> SlotSet? {
    guard let trigrams = trigrams.current, term.probe.number == nil, !term.probe.initials,
      let listed = trigrams.candidates(for: term.probe.needle)
    else { return nil }
    var set = SlotSet(capacity: slotCount)
    for slot in listed where Int(slot) < slotCount { set.insert(Int(slot)) }
    for slot in readingListed(term.probe, trigrams) { set.insert(Int(slot)) }
    let covered = min(trigrams.slotCount, insertNearWordSlots(of: term, into: &set))
    for slot in covered..<slotCount { set.insert(slot) }
    return set
  }

  /// Whether one live slot matches the plan.
  func matches(_ plan: MatchPlan, slot: Int, nearSpellings: Bool) -> Bool {
    guard isLive[slot] else { return false }
    if let category = plan.requiredCategory, !storage.slot(slot, holdsCategory: category) {
      return false
    }
    if let near = plan.near, !isWithin(slot, near) { return false }
    return plan.terms.allSatisfy {
      matches($0.condition, slot: slot, nearSpellings: nearSpellings) != $0.isNegated
    }
  }

  /// Live slots, in slot order, that match a text probe exactly, among those holding its
  /// rarest trigram (and those added since the trigram index was built) — for two or three
  /// letters in every text field, the listed slots themselves; nil when the probe cannot use
  /// it (under two bytes, a number, initial consonants).
  private func trigramMatches(
    _ probe: MatchPlan.TextProbe, _ trigrams: TrigramIndex
  ) -> [Int32]? {
    guard probe.number == nil, !probe.initials,
      let listed = trigrams.candidates(for: probe.needle)
    else { return nil }
    var text = probe
    text.readings = false
    let found = liveMatches(
      text, among: listed, settled: isListedExactly(text), listedBelow: trigrams.slotCount)
    guard probe.readings, let read = readingMatches(probe) else { return found }
    return Self.union(found, read)
  }

  /// The slots below `below` that may hold a text probe exactly, ascending, live or not: those
  /// the trigram index lists for its letters, and when it reads, for its readings' word
  /// starts (two lists, each ascending). Nil when the index cannot say (no index yet, a needle under two bytes, a
  /// number, initial consonants).
  func possibleHolders(
    _ probe: MatchPlan.TextProbe
  ) -> (letters: [Int32], readings: [Int32], below: Int)? {
    guard probe.number == nil, !probe.initials, let trigrams = trigrams.current,
      let listed = trigrams.candidates(for: probe.needle)
    else { return nil }
    guard probe.readings else { return (listed, [], trigrams.slotCount) }
    guard let read = trigrams.readingStarts(of: probe.needle) else { return nil }
    return (listed, read, trigrams.slotCount)
  }

  /// The live slots, ascending, whose readings start a word with the probe's needle: those the
  /// trigram index lists, and those added since it was built. Nil without a trigram index;
  /// empty for a probe that does not read.
  func readingMatches(_ probe: MatchPlan.TextProbe) -> [Int32]? {
    guard let trigrams = trigrams.current else { return nil }
    guard probe.readings else { return [] }
    var read = readingListed(probe, trigrams).filter { isLive[Int($0)] }
    for slot in min(trigrams.slotCount, slotCount)..<slotCount
    where isLive[slot] && readsAtWordStart(probe, slot: slot) {
      read.append(Int32(slot))
    }
    return read
  }

  /// The slots below the listing's end whose readings start a word with the probe's needle
  /// (`TrigramIndex.readingStarts(of:)`, checked unless the needle is its two or three
  /// letters), live or not, ascending; none for a probe that does not read.
  private func readingListed(_ probe: MatchPlan.TextProbe, _ trigrams: TrigramIndex) -> [Int32] {
    guard probe.readings, let listed = trigrams.readingStarts(of: probe.needle) else { return [] }
    let exact = probe.needle.count <= 3 && probe.columns.count == columns.count
    return listed.filter {
      Int($0) < slotCount && (exact || readsAtWordStart(probe, slot: Int($0)))
    }
  }

  /// For each ranking probe that reads, the slots below the listing's end that the trigram
  /// index lists for the letters its readings' words start with, as bits
  /// (`RankingContext.readingKnown`): a bound or a rank then tests a bit instead of reading
  /// each match's readings — on the cities, a quarter of the matches of "ho c" have some. For
  /// two or three letters searched in every field the bits are the answer; for more, a slot
  /// without its bit has no such reading, one with it is read. Nil when no probe reads or the
  /// listing cannot say.
  func readingStarters(_ plan: MatchPlan) -> ReadingStarters? {
    guard plan.rankProbes.contains(where: { $0.readings && !$0.initials }),
      let trigrams = trigrams.current
    else { return nil }
    let below = min(trigrams.slotCount, slotCount)
    var bits: [UInt64] = []
    var exact: UInt64 = 0
    for (index, probe) in plan.rankProbes.enumerated() {
      var starters = SlotSet(capacity: below)
      if probe.readings && !probe.initials {
        guard index < 64, let listed = trigrams.readingStarts(of: probe.needle) else { return nil }
        if probe.needle.count <= 3 && probe.columns.count == columns.count {
          exact |= 1 << UInt64(index)
        }
        for slot in listed where Int(slot) < below { starters.insert(Int(slot)) }
      }
      bits += starters.words
    }
    return ReadingStarters(
      bits: bits, wordsPerProbe: (below + 63) / 64, below: below, exact: exact)
  }

  /// Whether a word of the slot's readings, in a column the probe searches, starts with its
  /// needle: how a term matches a reading.
  func readsAtWordStart(_ probe: MatchPlan.TextProbe, slot: Int) -> Bool {
    probe.columns.contains { column in
      guard let readings = readingColumns[column] else { return false }
      return holdsWholeWords(probe.needle, in: readings, slot: slot, toWordEnd: false)
    }
  }

  /// The slots in either ascending list, ascending, once each.
  static func union(_ a: [Int32], _ b: [Int32]) -> [Int32] {
    if b.isEmpty { return a }
    if a.isEmpty { return b }
    // Raw memory: a term's letters and its readings are merged at every keystroke, and the
    // letters of two ("da") are most of the catalog's slots.
    return a.withUnsafeBufferPointer { a in
      b.withUnsafeBufferPointer { b in
        [Int32](unsafeUninitializedCapacity: a.count + b.count) { merged, count in
          var (i, j, k) = (0, 0, 0)
          while i < a.count, j < b.count {
            let (x, y) = (a[i], b[j])
            merged[k] = min(x, y)
            k += 1
            if x <= y { i += 1 }
            if y <= x { j += 1 }
          }
          while i < a.count {
            merged[k] = a[i]
            (i, k) = (i + 1, k + 1)
          }
          while j < b.count {
            merged[k] = b[j]
            (j, k) = (j + 1, k + 1)
          }
          count = k
        }
      }
    }
  }

  /// Whether a probe is two or three bytes searched in every text field (not a number, not
  /// initial consonants): the slots listed for its bigram or trigram are exactly its matches
  /// in the text (its readings' are listed apart: `readingListed`).
  private func isListedExactly(_ probe: MatchPlan.TextProbe) -> Bool {
    (2...3).contains(probe.needle.count) && probe.number == nil && !probe.initials
      && probe.columns.count == columns.count
  }

  /// Whether reading a probe's listing (its rarest trigram's slots, or its bigram's) beats
  /// checking the text of `count` slots: a listed slot costs a byte or two to decode, a
  /// checked one a search of its text — an exact listing needs no check at all.
  private func listingPays(
    _ probe: MatchPlan.TextProbe, _ trigrams: TrigramIndex, against count: Int
  ) -> Bool {
    guard let listed = trigrams.candidateCount(for: probe.needle) else { return false }
    return isListedExactly(probe) ? listed < count * 8 : listed < count
  }

  /// The slots of `slots` (ascending) that are in `listed` or `alsoListed` (ascending) — or, with
  /// `keepingCommon` false, those that are not; a slot beyond the listing is decided by
  /// `unlisted` (non-nil for slots added after the listing was built).
  static func merging(
    _ slots: [Int32], with listed: [Int32], or alsoListed: [Int32] = [], keepingCommon: Bool,
    unlisted: (Int32) -> Bool?
  ) -> [Int32] {
    var kept: [Int32] = []
    kept.reserveCapacity(
      keepingCommon ? min(slots.count, listed.count + alsoListed.count) : slots.count)
    var (at, alsoAt) = (0, 0)
    for slot in slots {
      if let decided = unlisted(slot) {
        if decided == keepingCommon { kept.append(slot) }
        continue
      }
      while at < listed.count, listed[at] < slot { at += 1 }
      var isListed = at < listed.count && listed[at] == slot
      if !alsoListed.isEmpty {
        // A second ascending list (a term's readings beside its letters), walked alongside
        // rather than merged with the first into a third.
        while alsoAt < alsoListed.count, alsoListed[alsoAt] < slot { alsoAt += 1 }
        isListed = isListed || (alsoAt < alsoListed.count && alsoListed[alsoAt] == slot)
      }
      if isListed == keepingCommon { kept.append(slot) }
    }
    return kept
  }

  /// Live slots, in slot order, that match a probe of one letter a–z exactly: searched in every
  /// text field, the slots whose letters hold it are the answer; else they are the candidates,
  /// checked. Nil for any other probe. (Two letters were tried: checking each candidate cost
  /// more than one scan of the text.)
  private func letterMatches(
    _ probe: MatchPlan.TextProbe, _ trigrams: TrigramIndex
  ) -> [Int32]? {
    guard let (letter, settled) = letterTerm(probe),
      let listed = trigrams.liveSlots(holdingLetter: letter, isLive: isLive)
    else { return nil }
    return liveMatches(
      probe, among: listed, settled: settled, listedBelow: trigrams.slotCount, allLive: true)
  }

  /// The letter of a probe that is one letter a–z (not a number, not initial consonants), and
  /// whether it searches every text field — then the letters beside the trigrams answer it
  /// exactly.
  private func letterTerm(_ probe: MatchPlan.TextProbe) -> (letter: UInt8, settled: Bool)? {
    guard probe.needle.count == 1, RawColumn.hasOwnBit(probe.needle[0]), probe.number == nil,
      !probe.initials
    else { return nil }
    return (probe.needle[0], probe.columns.count == columns.count)
  }

  /// The live slots of `listed` (candidates from an index built over the slots below
  /// `listedBelow`) that match `probe` — all of them when the listing is `settled` — then the
  /// slots added since that match it. `allLive`: the listing holds live slots only.
  private func liveMatches(
    _ probe: MatchPlan.TextProbe, among listed: [Int32], settled: Bool, listedBelow: Int,
    allLive: Bool = false
  ) -> [Int32] {
    // A copy of the index older than the one that built it has fewer slots.
    let live = allLive ? listed : listed.filter { Int($0) < slotCount && isLive[Int($0)] }
    var slots = settled ? live : keeping(live, holding: probe, negated: false)
    for slot in min(listedBelow, slotCount)..<slotCount
    where isLive[slot] && matchesExactly(probe, slot: slot) {
      slots.append(Int32(slot))
    }
    return slots
  }

  /// Live slots, in slot order, that match a text probe exactly: from the letters or the
  /// trigram index when it can answer, else one scan per column.
  private func exactSlots(_ probe: MatchPlan.TextProbe) -> [Int32] {
    if let trigrams = trigrams.current {
      if let found = letterMatches(probe, trigrams) ?? trigramMatches(probe, trigrams) {
        return found
      }
    }
    return scan(probe)
  }

  /// Live slots, in slot order, whose text matches a text probe exactly: one scan per column.
  private func scan(_ probe: MatchPlan.TextProbe) -> [Int32] {
    var hits = SlotSet(capacity: slotCount)
    let needle = probe.needle
    let searched =
      probe.columns.map { columns[$0] }
      + (probe.initials ? probe.columns.compactMap { readingColumns[$0] } : [])
    let read = probe.readings ? probe.columns.compactMap { readingColumns[$0] } : []
    // Each core scans its share of the slots of every column.
    let ranges = Parallel.ranges(
      count: slotCount, parts: Parallel.parts(for: slotCount, minimumPerPart: 50_000))
    let found = Parallel.map(parts: ranges.count) { part in
      var slots: [Int32] = []
      for column in searched {
        column.forEachSlot(containing: needle, in: ranges[part]) { slots.append(Int32($0)) }
      }
      for column in read {
        column.forEachSlot(containing: needle, in: ranges[part]) { slot in
          if readsAtWordStart(probe, slot: slot) { slots.append(Int32(slot)) }
        }
      }
      return slots
    }
    for part in found { for slot in part { hits.insert(Int(slot)) } }
    if let number = probe.number {
      for column in probe.numberColumns {
        for (slot, value) in numbers[column].enumerated() where value == number {
          hits.insert(slot)
        }
      }
    }
    return hits.sorted.filter { isLive[Int($0)] }
  }

  private func matches(_ condition: MatchPlan.Condition, slot: Int, nearSpellings: Bool) -> Bool {
    switch condition {
    case .text(let probe):
      if matchesExactly(probe, slot: slot) { return true }
      return nearSpellings && probe.typo != nil && nearestWord(probe, slot: slot) != nil
    case .number(let column, let predicate):
      let value = numbers[column][slot]
      return !value.isNaN && predicate.matches(value)
    case .category(let id):
      return storage.slot(slot, holdsCategory: id)
    case .never:
      return false
    case .either(let alternatives):
      return alternatives.contains { terms in
        terms.allSatisfy {
          matches($0.condition, slot: slot, nearSpellings: nearSpellings) != $0.isNegated
        }
      }
    }
  }

  private func matchesExactly(_ probe: MatchPlan.TextProbe, slot: Int) -> Bool {
    for column in probe.columns {
      if probe.wholeWords || probe.startsWord {
        if holdsWholeWords(
          probe.needle, in: columns[column], slot: slot, toWordEnd: probe.wholeWords)
        {
          return true
        }
        continue
      }
      if columns[column].slot(slot, contains: probe.needle) { return true }
      if probe.initials, let readings = readingColumns[column],
        readings.slot(slot, contains: probe.needle)
      {
        return true
      }
      if probe.readings, let readings = readingColumns[column],
        holdsWholeWords(probe.needle, in: readings, slot: slot, toWordEnd: false)
      {
        return true
      }
    }
    if let number = probe.number {
      for column in probe.numberColumns where numbers[column][slot] == number { return true }
    }
    return false
  }

  /// Whether `needle` occurs in the slot's values of `column` from a word's start to a word's
  /// end ("new york" in "New York City", not in "New Yorker"); without `toWordEnd`, from a
  /// word's start.
  func holdsWholeWords(
    _ needle: [UInt8], in column: FoldedColumn, slot: Int, toWordEnd: Bool = true
  ) -> Bool {
    needle.withUnsafeBufferPointer { needle in
      column.withUnsafeBytes { bytes, starts in
        Self.startsWord(
          needle, in: bytes, range: Int(starts[slot])..<Int(starts[slot + 1]),
          toWordEnd: toWordEnd)
      }
    }
  }

  /// Whether `needle` starts a word somewhere in `bytes[range]` (one slot's values) — and, with
  /// `toWordEnd`, also ends one.
  static func startsWord(
    _ needle: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>,
    range: Range<Int>, toWordEnd: Bool
  ) -> Bool {
    var from = range.lowerBound
    while let found = ByteSearch.firstOffset(of: needle, in: bytes, range: from..<range.upperBound)
    {
      let after = found + needle.count
      if found == range.lowerBound || NearSpelling.isWordBoundary(bytes[found - 1]),
        !toWordEnd || after == range.upperBound || NearSpelling.isWordBoundary(bytes[after])
      {
        return true
      }
      from = found + 1
    }
    return false
  }

  /// The slot's word whose beginning is nearest the probe's term within its budget: the cost,
  /// the column, and the beginning's bytes in that column. Ties go to the earlier column, then
  /// the earlier word.
  func nearestWord(_ probe: MatchPlan.TextProbe, slot: Int) -> (
    cost: Int, column: Int, bytes: Range<Int>
  )? {
    guard let typo = probe.typo else { return nil }
    var rows = NearSpelling.Rows(term: typo.letters, budget: typo.budget)
    var best: (cost: Int, column: Int, bytes: Range<Int>)?
    for column in probe.columns {
      columns[column].withUnsafeBytes { bytes, starts in
        NearSpelling.forEachWord(in: bytes, range: Int(starts[slot])..<Int(starts[slot + 1])) {
          word in
          guard
            let found = NearSpelling.bestPrefix(
              of: UnsafeBufferPointer(rebasing: bytes[word]), rows: &rows),
            found.cost < (best?.cost ?? .max)
          else { return }
          best = (found.cost, column, word.lowerBound..<word.lowerBound + found.length)
        }
      }
      if let best, best.cost <= 1 { break }
    }
    return best
  }
}

extension MatchPlan.Term {
  /// A rough guess of how few items a term keeps: longer needles keep fewer.
  var selectivity: Int {
    switch condition {
    case .text(let probe): probe.needle.count
    case .number, .category, .either: 0
    case .never: Int.max
    }
  }
}
