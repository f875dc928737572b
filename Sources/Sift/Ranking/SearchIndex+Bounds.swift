extension SearchIndex {
  /// The best exactness (`MatchRank.Exactness.rawValue`) a slot that matches the plan exactly
  /// can have, read from the per-slot summaries alone: never better than `analyse` finds.
  @inline(__always)
  func exactnessBound(_ slot: Int, _ context: RankingContext) -> UInt8 {
    let query = context.query
    if !query.isEmpty {
      var startsValue = false
      for column in context.queryColumns {
        let raw = context.columns[Int(column)]
        guard raw.mayStartValue(slot, with: query[0]) else { continue }
        // While the last word is typed, a value equal to the query is a start too
        // (`MatchRank.typedStart`): no level 0.
        if !context.isTyping, raw.mayHaveValue(slot, ofLength: query.count) { return 0 }
        startsValue = true
      }
      if let value = context.queryNumber,
        context.queryNumberColumns.contains(where: { context.numbers[Int($0)][slot] == value })
      {
        if !context.isTyping { return 0 }
        startsValue = true
      }
      if startsValue { return 1 }
    }
    return wordStartBound(slot, context)
  }

  /// The best exactness a slot with no value equal to or starting with the query can have:
  /// word starts (2) when every term's first byte may start one of its words, else substring.
  @inline(__always)
  func wordStartBound(_ slot: Int, _ context: RankingContext) -> UInt8 {
    for (index, probe) in context.probes.enumerated() {
      let first = context.needle(probe)[0]
      let startsWord =
        context.columns(of: probe).contains {
          context.columns[Int($0)].mayStartWord(slot, with: first)
        }
        || (!probe.number.isNaN
          && context.numberColumns(of: probe).contains {
            context.numbers[Int($0)][slot] == probe.number
          })
        || (probe.readings && readingStartsWord(index, probe, slot, context))
      if !startsWord { return 3 }
    }
    return 2
  }

  /// Whether the slot's readings may start a word with the probe's needle (one that reads):
  /// exactly for pinyin and romaji, which read only at a word's start — from the pass's bits
  /// when it has them — and wherever there are readings for initial consonants.
  @inline(__always)
  func readingStartsWord(
    _ index: Int, _ probe: RankingContext.Probe, _ slot: Int, _ context: RankingContext
  ) -> Bool {
    if !probe.initials, let known = context.readingKnown(index, slot) { return known }
    return context.columns(of: probe).contains { column in
      guard let readings = context.readings[Int(column)],
        readings.starts[slot] != readings.starts[slot + 1]
      else { return false }
      return probe.initials
        || Self.firstWordStart(of: context.needle(probe), inSlot: slot, readings) != nil
    }
  }

  /// The value that decides a slot's exactness: the best (title first) value equal to the
  /// query, else the best starting with it — nil when none does. Read from the values
  /// themselves: the summaries only say a value may start with the query's first byte (for
  /// "da n", 2,763 of 12,091 matches, of which none starts with "da n").
  func decidingValue(_ slot: Int, _ context: RankingContext) -> SlotAnalysis.DecidingValue? {
    let query = context.query
    guard !query.isEmpty else { return nil }
    var best: SlotAnalysis.DecidingValue?
    var equalFields = 0
    @inline(__always)
    func consider(_ value: SlotAnalysis.DecidingValue) {
      if value.isEqual { equalFields += 1 }
      guard let kept = best else { return best = value }
      if Self.decides(value, over: kept, isTyping: context.isTyping) { best = value }
    }
    for column in context.queryColumns {
      let raw = context.columns[Int(column)]
      guard raw.mayStartValue(slot, with: query[0]) else { continue }
      let attribute = attribute(ofText: Int(column))
      if context.isTyping, namesItem(Int(column)), query.count == 1,
        RawColumn.hasOwnBit(query[0]), raw.valueStarts != nil,
        !raw.mayHaveValue(slot, ofLength: 1)
      {
        // The mask says a value starts with the letter, and no value is one byte long.
        consider(
          .init(
            isEqual: false, attribute: attribute, field: .text(Int(column)),
            isTitle: Int(column) == titleColumn))
        continue
      }
      guard
        let found = raw.valueStarting(with: query, inSlot: slot, wholeWords: !context.isTyping)
      else { continue }
      guard namesItem(Int(column)) else {
        // A describing value equal to the query agrees with it, and decides nothing.
        if found.isEqual { equalFields += 1 }
        continue
      }
      consider(
        .init(
          isEqual: found.isEqual, attribute: attribute, field: .text(Int(column)),
          offset: found.offset, isTitle: Int(column) == titleColumn))
    }
    if let value = context.queryNumber {
      for column in context.queryNumberColumns where context.numbers[Int(column)][slot] == value {
        consider(
          .init(
            isEqual: true, attribute: attribute(ofNumber: Int(column)), field: .number(Int(column)))
        )
      }
    }
    guard var best else { return nil }
    if context.isTyping { best.typingMagnitude = context.magnitude(slot) }
    if context.weighsAgreement {
      best.agreement = MatchRank.agreement(
        titleHoldsTerms: titleHoldsTerms(slot, context), equalFields: equalFields)
    }
    return best
  }

  /// Whether the slot's title holds every text term of the query at the start of a word
  /// (`MatchRank.agreement`): false for a term that does not search the title.
  @inline(__always)
  func titleHoldsTerms(_ slot: Int, _ context: RankingContext) -> Bool {
    guard let titleColumn else { return false }
    let title = context.columns[titleColumn]
    for probe in context.probes {
      guard context.columns(of: probe).contains(Int32(titleColumn)) else { return false }
      let needle = context.needle(probe)
      guard title.mayStartWord(slot, with: needle[0]),
        let found = Self.occurrences(
          of: needle, inSlot: slot, bytes: title.bytes, starts: title.starts,
          needsPosition: false),
        found.anyWordStart
      else { return false }
    }
    return true
  }

  /// Whether `value` rather than `kept` decides a slot's exactness: one equal to the query
  /// before one starting with it, then the better attribute; while the last word is typed, the
  /// one with more points first (`DecidingValue.typedPoints`).
  @inline(__always)
  static func decides(
    _ value: SlotAnalysis.DecidingValue, over kept: SlotAnalysis.DecidingValue, isTyping: Bool
  ) -> Bool {
    if isTyping, value.typedPoints != kept.typedPoints {
      return value.typedPoints > kept.typedPoints
    }
    return (value.isEqual ? 0 : 1, value.attribute) < (kept.isEqual ? 0 : 1, kept.attribute)
  }

  /// The smallest attribute a typed start can have (exactness level 1 while the last word is
  /// typed): 15 less its magnitude and at most `points` (`MatchRank.typedStart`). With the
  /// points of a title equal to the query it depends on popularity alone and only grows as
  /// popularity falls, so it may end a walk in popularity order; with what one item's values
  /// allow (`typedPointsBound`) it passes over that item alone.
  @inline(__always)
  static func attributeBound(magnitude: Int, points: Int) -> UInt64 {
    let most = magnitude + points
    return UInt64(MatchRank.maximumAttribute - min(MatchRank.maximumAttribute, most))
  }

  /// The most points (`MatchRank.typedPoints`) a slot's deciding value can give it while the
  /// query is typed: a title equal to the query's points only where the title's summary says
  /// it may start with the query's first byte and be as long as the query — "sain" has no
  /// title of four bytes among the Saint-… cities, so they weigh their start's points at most,
  /// and the bound passes over less popular ones sooner.
  @inline(__always)
  func typedPointsBound(_ slot: Int, _ context: RankingContext) -> Int {
    let query = context.query
    // Without the whole query or a title, nothing is known: the most points there are.
    guard let titleColumn, !query.isEmpty else { return MatchRank.typedTitleEqualPoints }
    guard context.queryColumns.contains(where: { Int($0) == titleColumn }) else {
      return MatchRank.typedStartPoints
    }
    let title = context.columns[titleColumn]
    guard title.mayStartValue(slot, with: query[0]), title.mayHaveValue(slot, ofLength: query.count)
    else { return MatchRank.typedStartPoints }
    return MatchRank.typedTitleEqualPoints
  }

  /// `exactnessBound` for a one-letter query (`singleLetter`) whose letter has the bit `bit`,
  /// over the summaries of the columns it searches: equal when a value may start with the
  /// letter and be one byte long (and `mayEqual`: not while the letter is typed), starts a
  /// value, starts a word, or else a substring.
  @inline(__always)
  static func oneLetterBound(
    _ bit: UInt32, _ slot: Int, _ columns: [RawColumn], mayEqual: Bool
  ) -> UInt8 {
    var level: UInt8 = 3
    let lengthOne = RawColumn.lengthBit(1)
    for raw in columns {
      if raw.valueStarts![slot] & bit != 0 {
        if mayEqual, raw.lengths![slot] & lengthOne != 0 { return 0 }
        level = 1
      } else if level > 2, raw.wordStarts![slot] & bit != 0 {
        level = 2
      }
    }
    return level
  }

  /// The letter of a query that is one ASCII letter and nothing else (the first keystroke,
  /// matching most items), when the columns have their summaries: `rankOneLetter` applies.
  static func singleLetter(_ context: RankingContext) -> UInt8? {
    // A finished letter ("a ") is a whole word, which the summaries cannot tell.
    guard context.isTyping, context.probes.count == 1, context.queryNumber == nil else {
      return nil
    }
    let probe = context.probes[0]
    let needle = context.needle(probe)
    guard needle.count == 1, RawColumn.hasOwnBit(needle[0]), !probe.initials,
      probe.number.isNaN, context.queryColumns.elementsEqual(context.columns(of: probe)),
      context.columns(of: probe).allSatisfy({ context.columns[Int($0)].valueStarts != nil })
    else { return nil }
    return needle[0]
  }

  /// `analyse` for a one-letter query, packed rank only: the summaries answer exactness and
  /// word starts, and one forward pass over the first column holding the letter gives its
  /// position. The same rules, in far fewer steps (it is most of a first keystroke's work).
  @inline(__always)
  func rankOneLetter(_ letter: UInt8, _ slot: Int, _ context: RankingContext) -> UInt16 {
    let bit = RawColumn.wordStartBit(letter)
    var equals = false
    var startsValue = false
    var equalAttribute = Int.max
    var startingAttribute = Int.max
    var (titleEquals, titleStarts) = (false, false)
    var equalFields = 0
    let columns = context.columns(of: context.probes[0])
    for column in columns {
      let raw = context.columns[Int(column)]
      guard raw.valueStarts![slot] & bit != 0 else { continue }
      let attribute = attribute(ofText: Int(column))
      // A value of a describing field equal to the query counts toward the agreement; only a
      // name decides the exactness.
      let names = namesItem(Int(column))
      let isTitle = Int(column) == titleColumn
      if raw.lengths![slot] & RawColumn.lengthBit(1) == 0 {
        guard names else { continue }
        startsValue = true
        startingAttribute = min(startingAttribute, attribute)
        titleStarts = titleStarts || isTitle
      } else if let found = raw.valueStarting(with: context.query, inSlot: slot) {
        if found.isEqual {
          equalFields += 1
          guard names else { continue }
          equals = true
          equalAttribute = min(equalAttribute, attribute)
          titleEquals = titleEquals || isTitle
        } else if names {
          startsValue = true
          startingAttribute = min(startingAttribute, attribute)
          titleStarts = titleStarts || isTitle
        }
      }
    }
    if equals || startsValue {
      // The value that decided the exactness gives the attribute; the agreement, the position.
      var agreement = 0
      if context.weighsAgreement {
        let titleHolds = titleColumn.map { title in
          columns.contains(Int32(title)) && context.columns[title].wordStarts![slot] & bit != 0
        }
        agreement = MatchRank.agreement(
          titleHoldsTerms: titleHolds ?? false, equalFields: equalFields)
      }
      if context.isTyping {
        let points = MatchRank.typedPoints(
          titleEquals: titleEquals, titleStarts: titleStarts || titleEquals, valueEquals: equals)
        return MatchRank.typedStart(
          magnitude: context.magnitude(slot), points: points, agreement: agreement
        ).packed
      }
      return MatchRank(
        typos: 0, exactness: equals ? .equalsQuery : .startsValue,
        attribute: min(equals ? equalAttribute : startingAttribute, MatchRank.maximumAttribute),
        position: agreement
      ).packed
    }
    var bestAttribute = Int.max
    var bestPosition = Int.max
    var found = false
    var wordStart = false
    for column in columns {
      let raw = context.columns[Int(column)]
      let attribute = attribute(ofText: Int(column))
      let mayStartWord = raw.wordStarts![slot] & bit != 0
      if found && attribute > bestAttribute {
        if mayStartWord { wordStart = true }
        continue
      }
      guard
        let first = Self.firstOccurrence(
          of: letter, from: Int(raw.starts[slot]), to: Int(raw.starts[slot + 1]), bytes: raw.bytes)
      else { continue }
      found = true
      if (attribute, first.position) < (bestAttribute, bestPosition) {
        (bestAttribute, bestPosition) = (attribute, first.position)
      }
      if mayStartWord { wordStart = true }
    }
    return MatchRank(
      typos: 0, exactness: wordStart ? .wordStarts : .substring,
      attribute: min(bestAttribute, MatchRank.maximumAttribute),
      position: context.weighsAgreement
        ? MatchRank.coverage(
          titleCovered: titleCovered(slot, context), wordPosition: bestPosition) : 0
    ).packed
  }
}
