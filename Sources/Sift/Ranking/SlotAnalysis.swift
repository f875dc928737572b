import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where one item's best match is, beside its rank: what `--explain` reports.
struct SlotAnalysis {
  var rank: MatchRank
  /// The attribute's field: a text column, or a number column after them.
  var field: Field?
  /// The byte offset of the best match in its text column.
  var offset: Int?
  /// The value that equals or starts with the query, when exactness says one does.
  var exactField: Field?
  var exactOffset: Int?
  /// While the last word is typed, the points of the value that makes the item a start
  /// (`MatchRank.typedPoints`), exact or near spelt; nil otherwise.
  var typedPoints: Int?
  /// When the best match is a reading (`Readings`: "beijing" for 北京), its byte offset in
  /// the column's readings; `field` is then the column and `offset` nil.
  var readingOffset: Int?

  enum Field: Hashable {
    case text(Int)
    case number(Int)
  }

  /// A value equal to the query or starting with it (`SearchIndex.decidingValue`): it decides
  /// the exactness, and its field is the rank's attribute, at position 0.
  struct DecidingValue {
    var isEqual: Bool
    var attribute: Int
    var field: Field
    /// Where the value starts in its text column (nil for a number, or when only the column's
    /// summary said so).
    var offset: Int?
    /// The item's magnitude (`MatchRank.magnitude`) when the query's last word is still being
    /// typed (`MatchRequest.isTyping`); nil when it is finished.
    var typingMagnitude: Int?
    /// How the item's fields agree with the query (`MatchRank.agreement`): what breaks the ties
    /// of equal values.
    var agreement = 0
    /// Whether the value is the title's (other names share its attribute, not its points).
    var isTitle = false

    /// While the last word is typed, the points this value gives its item
    /// (`MatchRank.typedPoints`): the better value has more.
    var typedPoints: Int {
      MatchRank.typedPoints(
        titleEquals: isTitle && isEqual, titleStarts: isTitle, valueEquals: isEqual)
    }

    /// The whole rank of a match without near spellings. While the last word is typed, every
    /// value equal to the query or starting with it is a start, weighed by the item's
    /// magnitude and its points (`MatchRank.typedStart`): "war" finds Warsaw before War (775
    /// people) and the hamlets whose alternate names are "War".
    var rank: MatchRank {
      if let typingMagnitude {
        return MatchRank.typedStart(
          magnitude: typingMagnitude, points: typedPoints, agreement: agreement)
      }
      return MatchRank(
        typos: 0, exactness: isEqual ? .equalsQuery : .startsValue,
        attribute: min(attribute, MatchRank.maximumAttribute), position: agreement)
    }
  }
}

/// A value that starts with a near spelling of a one-word query being typed
/// (`SearchIndex.nearStart`): a start among the exact ones, less its edits
/// (`MatchRank.typedStart(magnitude:points:edits:)`).
struct NearStart {
  /// `MatchRank.typedPoints` of the value.
  var points: Int
  var edits: Int
  var attribute: Int
  /// The text column and the byte offset of the value in it.
  var column: Int
  var offset: Int
  /// How many fields have a value that is a near spelling of the query, whole: the agreement's
  /// equal fields (`MatchRank.agreement`).
  var equalFields = 0

  /// How two values of one item compare, smaller first: the most points less the edits'
  /// penalty, then the fewest edits, then the best attribute.
  var key: (Int, Int, Int) { (MatchRank.typedEditPenalty * edits - points, edits, attribute) }
}

extension SearchIndex {
  /// One slot against the plan's text terms: typos, exactness, and where its best match is.
  func analyse(_ slot: Int, _ plan: MatchPlan, nearSpellings: Bool) -> SlotAnalysis {
    withRankingContext(plan) { analyse(slot, plan, $0, nearSpellings: nearSpellings) }
  }

  func analyse(
    _ slot: Int, _ plan: MatchPlan, _ context: RankingContext, nearSpellings: Bool
  ) -> SlotAnalysis {
    var best = (
      attribute: Int.max, position: Int.max, field: SlotAnalysis.Field?.none, offset: Int?.none
    )
    // Where in its column's readings the best match is, when a reading is what matched.
    var bestReading: Int?
    @inline(__always)
    func consider(
      _ attribute: Int, _ position: Int, _ field: SlotAnalysis.Field, _ offset: Int?,
      reading: Int? = nil
    ) {
      if (attribute, position) < (best.attribute, best.position) {
        best = (attribute, position, field, offset)
        bestReading = reading
      }
    }
    // A value equal to the query or starting with it decides the exactness and the place: an
    // alternate equal to the query does not borrow the title's attribute from a word the title
    // merely holds.
    let decided = decidingValue(slot, context)
    var typos = plan.spentEdits
    var allWordStarts = true
    // Once a value decides the place, the terms can only add near spellings' edits.
    for (index, probe) in context.probes.enumerated() where decided == nil || nearSpellings {
      var found = false
      var wordStart = false
      let needle = context.needle(probe)
      for column in context.columns(of: probe) {
        let raw = context.columns[Int(column)]
        let attribute = attribute(ofText: Int(column))
        // A field after the best one so far can only tell whether the term starts a word.
        let worse = found && attribute > best.attribute
        if worse && wordStart { continue }
        // A word can start with the needle only where some word starts with its first byte;
        // for a one-letter needle whose letter has a bit of its own, that settles it.
        let mayStartWord = raw.mayStartWord(slot, with: needle[0])
        let settled = needle.count == 1 && raw.wordStarts != nil && RawColumn.hasOwnBit(needle[0])
        if worse && (settled || !mayStartWord) {
          if settled && mayStartWord { wordStart = true }
          continue
        }
        if let first = Self.occurrences(
          of: needle, inSlot: slot, bytes: raw.bytes, starts: raw.starts,
          lookForWordStart: mayStartWord && !settled && !wordStart,
          needsPosition: attribute <= best.attribute)
        {
          found = true
          if let position = first.position {
            consider(attribute, position, .text(Int(column)), first.offset)
          }
          if first.anyWordStart || (settled && mayStartWord) { wordStart = true }
        }
        // Readings start a word as letters do: initial consonants ("ㄷㅇ" for 독일어) where
        // the keys of a word's syllables begin with them, not in the middle of 아카드어's;
        // pinyin and romaji only at a syllable's start ("jing" in 北京, never "ing"), placed
        // after a word typed at a value's start (`readingStart`): `deyu` gives 德语 before
        // 阿卡德语.
        if probe.initials, let readings = context.readings[Int(column)],
          let first = Self.occurrences(
            of: needle, inSlot: slot, bytes: readings.bytes, starts: readings.starts,
            lookForWordStart: !wordStart, needsPosition: false)
        {
          found = true
          if first.anyWordStart { wordStart = true }
          consider(attribute, MatchRank.maximumPosition, .text(Int(column)), nil)
        } else if probe.readings, !probe.initials,
          // A reading is at best at word position 1: it only counts where nothing as good
          // started a word before it.
          !wordStart || (attribute, 1) < (best.attribute, best.position),
          context.readingKnown(index, slot) != false,
          let readings = context.readings[Int(column)],
          let read = Self.readingStart(of: needle, inSlot: slot, readings)
        {
          found = true
          wordStart = true
          consider(attribute, read.position, .text(Int(column)), nil, reading: read.offset)
        }
      }
      if !probe.number.isNaN {
        for column in context.numberColumns(of: probe)
        where context.numbers[Int(column)][slot] == probe.number {
          found = true
          wordStart = true
          consider(attribute(ofNumber: Int(column)), 0, .number(Int(column)), nil)
        }
      }
      if !found, nearSpellings, let near = nearestWord(plan.rankProbes[index], slot: slot) {
        typos += near.cost
        wordStart = true
        let raw = context.columns[near.column]
        let position = Self.wordPosition(
          of: near.bytes.lowerBound, slotStart: Int(raw.starts[slot]), bytes: raw.bytes)
        consider(
          attribute(ofText: near.column), position, .text(near.column), near.bytes.lowerBound)
      }
      allWordStarts = allWordStarts && wordStart
    }
    var exactness: MatchRank.Exactness = allWordStarts ? .wordStarts : .substring
    if allWordStarts, decided == nil, !finishedTermsAreWholeWords(slot, context) {
      exactness = .wordBeginnings
    }
    // The title's coverage and the word position rank after popularity: in the rank only
    // where no ranking field decides.
    var rank = MatchRank(
      typos: typos, exactness: exactness,
      attribute: min(best.attribute, MatchRank.maximumAttribute),
      position: context.weighsAgreement
        ? MatchRank.coverage(
          titleCovered: titleCovered(slot, context), wordPosition: best.position) : 0)
    var typedPoints: Int?
    if let decided {
      best = (decided.attribute, 0, decided.field, decided.offset)
      bestReading = nil
      rank = decided.rank
      rank.typos = typos
      if plan.spentEdits > 0, let magnitude = decided.typingMagnitude {
        // A space moved costs a typed start what an edit does.
        rank = MatchRank.typedStart(
          magnitude: magnitude, points: decided.typedPoints, edits: typos,
          agreement: decided.agreement)
      }
    } else if typos > plan.spentEdits, context.isTyping, plan.rankProbes.count == 1,
      let start = nearStart(plan.rankProbes[0], slot: slot, context)
    {
      typedPoints = start.points
      // A one-word query being typed, misspelt: a value starting with a near spelling of it
      // ranks among the starts, its edits taken from its weight.
      best = (start.attribute, 0, .text(start.column), start.offset)
      bestReading = nil
      rank = MatchRank.typedStart(
        magnitude: context.magnitude(slot), points: start.points, edits: start.edits,
        agreement: context.weighsAgreement
          ? MatchRank.agreement(
            titleHoldsTerms: titleHoldsNearSpelling(plan.rankProbes[0], slot: slot),
            equalFields: start.equalFields) : 0)
    }
    return SlotAnalysis(
      rank: rank, field: best.field, offset: best.offset, exactField: decided?.field,
      exactOffset: decided?.offset,
      typedPoints: context.isTyping ? decided?.typedPoints ?? typedPoints : nil,
      readingOffset: bestReading)
  }

  /// Whether every finished term of the query (each but the last while the last word is
  /// typed) is a whole word somewhere the term searches: "seven " is in "The Seven Samurai",
  /// only begun in "Seventh Seal". A number equal to the term, initial consonants or a near
  /// spelling count as whole.
  func finishedTermsAreWholeWords(_ slot: Int, _ context: RankingContext) -> Bool {
    let finished = context.isTyping ? context.probes.count - 1 : context.probes.count
    guard finished > 0 else { return true }
    for probe in context.probes.prefix(finished) where !probe.initials {
      let needle = context.needle(probe)
      if !probe.number.isNaN,
        context.numberColumns(of: probe).contains(where: {
          context.numbers[Int($0)][slot] == probe.number
        })
      {
        continue
      }
      var whole = false
      var found = false
      for column in context.columns(of: probe) where !whole {
        let raw = context.columns[Int(column)]
        guard let first = Self.wholeWordOccurrence(of: needle, inSlot: slot, raw) else { continue }
        found = true
        whole = first
      }
      // Not found at all: matched by a near spelling, whose edits rank it already.
      if found && !whole { return false }
    }
    return true
  }

  /// Whether `needle` occurs in the slot's values of `raw` from a word's start to a word's end
  /// (true), only elsewhere (false), or not at all (nil).
  static func wholeWordOccurrence(
    of needle: UnsafeBufferPointer<UInt8>, inSlot slot: Int, _ raw: RawColumn
  ) -> Bool? {
    let (start, end) = (Int(raw.starts[slot]), Int(raw.starts[slot + 1]))
    var from = start
    var found = false
    while let offset = ByteSearch.firstOffset(of: needle, in: raw.bytes, range: from..<end) {
      found = true
      let after = offset + needle.count
      if offset == start || NearSpelling.isWordBoundary(raw.bytes[offset - 1]),
        after == end || NearSpelling.isWordBoundary(raw.bytes[after])
      {
        return true
      }
      from = offset + 1
    }
    return found ? false : nil
  }

  /// The slot's best value that starts with a near spelling of `probe`: whose first word, from
  /// the value's first byte, is within the term's budget, whole or its beginning. Its points
  /// while the term is typed (`MatchRank.typedPoints`; equal when the value is that one word,
  /// spelt to its end), its edits, attribute, column and byte offset. The best has the most
  /// points less `MatchRank.typedEditPenalty` per edit, then the fewest edits, then the best
  /// attribute; nil when no value starts so.
  func nearStart(_ probe: MatchPlan.TextProbe, slot: Int, _ context: RankingContext)
    -> NearStart?
  {
    guard let typo = probe.typo, let firstLetter = probe.needle.first else { return nil }
    // Within one edit the first letters agree (an edit of it costs two).
    let firstAgrees = typo.budget < 2
    var rows = NearSpelling.Rows(term: typo.letters, budget: typo.budget)
    var best: NearStart?
    var equalFields = 0
    // Only a name starts an item the way the query does.
    for column in probe.columns where namesItem(column) {
      let raw = context.columns[column]
      if firstAgrees, !raw.mayStartValue(slot, with: firstLetter) { continue }
      var hasEqual = false
      defer { if hasEqual { equalFields += 1 } }
      let attribute = attribute(ofText: column)
      let bytes = raw.bytes
      guard let base = bytes.baseAddress else { continue }
      var valueStart = Int(raw.starts[slot])
      let end = Int(raw.starts[slot + 1])
      while valueStart < end {
        let valueEnd =
          memchr(base + valueStart, 0, end - valueStart).map {
            UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0))
          } ?? end
        defer { valueStart = valueEnd + 1 }
        if valueEnd == valueStart || (firstAgrees && bytes[valueStart] != firstLetter) {
          continue
        }
        var wordEnd = valueStart
        while wordEnd < valueEnd, !NearSpelling.isWordBoundary(bytes[wordEnd]) { wordEnd += 1 }
        guard wordEnd > valueStart,
          let found = NearSpelling.bestPrefix(
            of: UnsafeBufferPointer(rebasing: bytes[valueStart..<wordEnd]), rows: &rows)
        else { continue }
        let isEqual = wordEnd == valueEnd && found.length == wordEnd - valueStart
        if isEqual { hasEqual = true }
        let start = NearStart(
          points: MatchRank.typedPoints(
            titleEquals: column == titleColumn && isEqual, titleStarts: column == titleColumn,
            valueEquals: isEqual),
          edits: found.cost, attribute: attribute, column: column, offset: valueStart)
        if best.map({ start.key < $0.key }) ?? true { best = start }
      }
    }
    best?.equalFields = equalFields
    return best
  }

  /// Whether the slot's title holds a word that starts with a near spelling of `probe`, within
  /// its budget: for a near start, the agreement's title (`MatchRank.agreement`).
  func titleHoldsNearSpelling(_ probe: MatchPlan.TextProbe, slot: Int) -> Bool {
    guard let titleColumn, probe.columns.contains(titleColumn) else { return false }
    var title = probe
    title.columns = [titleColumn]
    return nearestWord(title, slot: slot) != nil
  }

  /// The attribute of a text column: 0 for the names (the title and other names), then the
  /// fields that describe the item in schema order (`SlotStorage.textAttributes`).
  @inline(__always)
  func attribute(ofText column: Int) -> Int { storage.textAttributes[column] }

  /// Whether every word of the slot's title starts with a word of the query's terms
  /// (`MatchRank.coverage`): "jessie dog" covers Jessie, not Jessie Bean. A slot without a
  /// title is covered.
  @inline(__always)
  func titleCovered(_ slot: Int, _ context: RankingContext) -> Bool {
    guard let titleColumn else { return true }
    let title = context.columns[titleColumn]
    var covered = true
    NearSpelling.forEachWord(
      in: title.bytes, range: Int(title.starts[slot])..<Int(title.starts[slot + 1])
    ) { word in
      guard covered else { return }
      covered = context.queryWords.contains { part in
        part.count <= word.count
          && zip(part, word).allSatisfy { context.arena[$0] == title.bytes[$1] }
      }
    }
    return covered
  }

  /// Whether a text column names the item (`SlotStorage.namesItem`).
  @inline(__always)
  func namesItem(_ column: Int) -> Bool { storage.namesItem[column] }

  /// The attribute of a number column: after every text field.
  func attribute(ofNumber column: Int) -> Int { textFields.count + column }

  /// Where `needle` first occurs in the slot's bytes (its offset, and the index of its word in
  /// its value), and whether any occurrence starts a word; nil when it does not occur.
  /// `lookForWordStart: false` stops at the first occurrence; `needsPosition: false` leaves its
  /// word uncounted (nil), for a field that cannot be the best one.
  @inline(__always)
  static func occurrences(
    of needle: UnsafeBufferPointer<UInt8>, inSlot slot: Int, bytes: UnsafeBufferPointer<UInt8>,
    starts: UnsafeBufferPointer<UInt32>, lookForWordStart: Bool = true, needsPosition: Bool = true
  ) -> (offset: Int, position: Int?, anyWordStart: Bool)? {
    let slotStart = Int(starts[slot])
    let end = Int(starts[slot + 1])
    if needle.count == 1 {
      // One byte (the first keystroke, matching most items): one forward pass that counts
      // words on the way, no search call.
      guard let first = firstOccurrence(of: needle[0], from: slotStart, to: end, bytes: bytes)
      else { return nil }
      guard lookForWordStart else {
        let atStart =
          first.offset == slotStart || NearSpelling.isWordBoundary(bytes[first.offset - 1])
        return (first.offset, first.position, atStart)
      }
      var offset = first.offset
      while offset < end {
        if bytes[offset] == needle[0],
          offset == slotStart || NearSpelling.isWordBoundary(bytes[offset - 1])
        {
          return (first.offset, first.position, true)
        }
        offset += 1
      }
      return (first.offset, first.position, false)
    }
    guard let found = ByteSearch.firstOffset(of: needle, in: bytes, range: slotStart..<end)
    else { return nil }
    let position = needsPosition ? wordPosition(of: found, slotStart: slotStart, bytes: bytes) : nil
    guard lookForWordStart else {
      return (found, position, found == slotStart || NearSpelling.isWordBoundary(bytes[found - 1]))
    }
    var next: Int? = found
    while let offset = next {
      if offset == slotStart || NearSpelling.isWordBoundary(bytes[offset - 1]) {
        return (found, position, true)
      }
      next = ByteSearch.firstOffset(of: needle, in: bytes, range: offset + 1..<end)
    }
    return (found, position, false)
  }

  /// The best place where `needle` starts a word of the slot's readings in `raw`, and its word
  /// position: 1 where it reads a value's first run whole (`deyu` or `dy` for 德语), 2 where it
  /// starts it (`de`), 3 elsewhere (a later syllable, a later run: 阿卡德语). Nil when no word
  /// of them starts with it.
  static func readingStart(
    of needle: UnsafeBufferPointer<UInt8>, inSlot slot: Int, _ raw: RawColumn
  ) -> (offset: Int, position: Int)? {
    let (start, end) = (Int(raw.starts[slot]), Int(raw.starts[slot + 1]))
    var best: (offset: Int, position: Int)?
    var from = start
    while let found = ByteSearch.firstOffset(of: needle, in: raw.bytes, range: from..<end) {
      from = found + 1
      guard found == start || NearSpelling.isWordBoundary(raw.bytes[found - 1]) else { continue }
      let position = readingPosition(found, needle.count, raw.bytes, slot: start..<end)
      if position < best?.position ?? .max { best = (found, position) }
      if position == 1 { break }
    }
    return best
  }

  /// The word position of a reading's word starting at `at` (`readingStart`): walking back to
  /// its run's marker, which must begin its value, and no later-syllable mark on the way.
  static func readingPosition(
    _ at: Int, _ count: Int, _ bytes: UnsafeBufferPointer<UInt8>, slot: Range<Int>
  ) -> Int {
    var index = at - 1
    while index >= slot.lowerBound {
      let byte = bytes[index]
      if byte == 0 || byte == Readings.laterSyllables { return 3 }
      if byte < Readings.laterSyllables {
        guard index == slot.lowerBound || bytes[index - 1] == 0 else { return 3 }
        let after = at + count
        return after >= slot.upperBound || NearSpelling.isWordBoundary(bytes[after]) ? 1 : 2
      }
      index -= 1
    }
    return 3
  }

  /// The offset of the first occurrence of `needle` in the slot's bytes of `raw` that starts a
  /// word; nil when none does. The same walk as `startsWord(_:in:range:toWordEnd:)`, kept here
  /// for the bounds: calling that one from them measured the cities' keystrokes 1.4× slower.
  static func firstWordStart(
    of needle: UnsafeBufferPointer<UInt8>, inSlot slot: Int, _ raw: RawColumn
  ) -> Int? {
    let (start, end) = (Int(raw.starts[slot]), Int(raw.starts[slot + 1]))
    var from = start
    while let found = ByteSearch.firstOffset(of: needle, in: raw.bytes, range: from..<end) {
      if found == start || NearSpelling.isWordBoundary(raw.bytes[found - 1]) { return found }
      from = found + 1
    }
    return nil
  }

  /// The first `byte` in `bytes[start..<end]` and the index, in its value, of its word.
  @inline(__always)
  static func firstOccurrence(
    of byte: UInt8, from start: Int, to end: Int, bytes: UnsafeBufferPointer<UInt8>
  ) -> (offset: Int, position: Int)? {
    var words = 0
    var inWord = false
    var offset = start
    while offset < end {
      let current = bytes[offset]
      if current == 0 {
        words = 0
        inWord = false
      } else if NearSpelling.isWordBoundary(current) {
        inWord = false
      } else if !inWord {
        inWord = true
        words += 1
      }
      if current == byte { return (offset, min(max(0, words - 1), MatchRank.maximumPosition)) }
      offset += 1
    }
    return nil
  }

  /// The index, in its value, of the word that holds `offset` (at most
  /// `MatchRank.maximumPosition`).
  static func wordPosition(
    of offset: Int, slotStart: Int, bytes: UnsafeBufferPointer<UInt8>
  ) -> Int {
    // Count the word starts from the value's start (its 0 separator or the slot's start) up to
    // and including `offset`; the last one counted starts the word that holds it.
    var starts = 0
    var index = offset
    while index >= slotStart, bytes[index] != 0 {
      if !NearSpelling.isWordBoundary(bytes[index]),
        index == slotStart || NearSpelling.isWordBoundary(bytes[index - 1])
      {
        starts += 1
        if starts > MatchRank.maximumPosition { return MatchRank.maximumPosition }
      }
      index -= 1
    }
    return max(0, starts - 1)
  }
}
