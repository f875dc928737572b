/// Maps matches in folded text back onto the original text, whose length folding changed
/// ("Straße" folds to six letters as "strasse" does to seven; "서" to two jamo).
public enum Highlighting {
  /// The ranges of `text` where any of the folded `needles` occurs, widened to whole grapheme
  /// clusters (a highlighted "a" in "ầ" covers the whole "ầ"), sorted and merged.
  ///
  /// - Parameters:
  ///   - text: the original text, as displayed.
  ///   - needles: folded text to find in the folded text.
  ///   - initialNeedles: folded initial consonants to find in the initial-consonant key.
  ///   - readingNeedles: letters to find in the pinyin of Han characters and the romaji of
  ///     kana (`beijing` marks 北京).
  public static func ranges(
    in text: String, needles: [String], initialNeedles: [String] = [],
    readingNeedles: [String] = []
  ) -> [Range<String.Index>] {
    ranges(
      in: text, needles: needles, initialNeedles: initialNeedles, readingNeedles: readingNeedles,
      nearTerms: [])
  }

  /// The same, plus the beginnings of words within the typo budget of `nearTerms`; the needles
  /// in `wordStartsOnly` only where they begin a word (a one-letter term of an item that has
  /// the letter at a word start: "sao p" marks "[P]aulo", not "Sam[p]a").
  static func ranges(
    in text: String, needles: [String], initialNeedles: [String], readingNeedles: [String] = [],
    nearTerms: [MatchPlan.TypoProbe], wordStartsOnly: Set<String> = []
  ) -> [Range<String.Index>] {
    var byteRanges: [Range<Int>] = []
    func collect(initialsOnly: Bool, needles: [String]) {
      guard !needles.isEmpty else { return }
      let (folded, origins) = TextFolding.foldWithOrigins(text, initialsOnly: initialsOnly)
      for needle in needles {
        let needleBytes = Array(needle.utf8)
        let atWordStarts = !initialsOnly && wordStartsOnly.contains(needle)
        for start in ByteSearch.allOffsets(of: needleBytes, in: folded)
        where !atWordStarts || start == 0 || NearSpelling.isWordBoundary(folded[start - 1]) {
          let end = start + needleBytes.count
          byteRanges.append(origins[start]..<originEnd(origins, lastByte: end - 1, text: text))
        }
      }
    }
    collect(initialsOnly: false, needles: needles)
    if !nearTerms.isEmpty {
      let (folded, origins) = TextFolding.foldWithOrigins(text)
      folded.withUnsafeBufferPointer { bytes in
        for term in nearTerms {
          var rows = NearSpelling.Rows(term: term.letters, budget: term.budget)
          NearSpelling.forEachWord(in: bytes, range: 0..<bytes.count) { word in
            guard
              let near = NearSpelling.bestPrefix(
                of: UnsafeBufferPointer(rebasing: bytes[word]), rows: &rows)
            else { return }
            let start = word.lowerBound
            byteRanges.append(
              origins[start]..<originEnd(origins, lastByte: start + near.length - 1, text: text))
          }
        }
      }
    }
    if !initialNeedles.isEmpty, TextFolding.initialConsonants(of: text) != nil {
      collect(initialsOnly: true, needles: initialNeedles)
    }
    if !readingNeedles.isEmpty {
      // Each byte of a reading knows the character it reads: a match, at a word's start as a
      // term reads, marks those characters.
      let (reading, origins) = Readings.withOrigins(of: text)
      for needle in readingNeedles where !reading.isEmpty {
        let needleBytes = Array(needle.utf8)
        for start in ByteSearch.allOffsets(of: needleBytes, in: reading)
        where start == 0 || NearSpelling.isWordBoundary(reading[start - 1]) {
          let covered = origins[start..<start + needleBytes.count].filter { !$0.isEmpty }
          guard let first = covered.first, let last = covered.last else { continue }
          byteRanges.append(first.lowerBound..<last.upperBound)
        }
      }
    }
    return merge(graphemeAligned(byteRanges, in: text), in: text)
  }

  /// The UTF-8 offset just past the source scalar of the folded byte `lastByte`.
  private static func originEnd(_ origins: [Int], lastByte: Int, text: String) -> Int {
    let start = origins[lastByte]
    let lead = text.utf8[text.utf8.index(text.utf8.startIndex, offsetBy: start)]
    let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
    return start + length
  }

  /// Widens UTF-8 offset ranges to grapheme cluster boundaries and converts them to indices.
  private static func graphemeAligned(_ ranges: [Range<Int>], in text: String) -> [Range<
    String.Index
  >] {
    guard !ranges.isEmpty else { return [] }
    // The UTF-8 offset of each Character's start, plus the end.
    var boundaries: [Int] = []
    boundaries.reserveCapacity(text.count + 1)
    var index = text.startIndex
    while index < text.endIndex {
      boundaries.append(text.utf8.distance(from: text.startIndex, to: index))
      index = text.index(after: index)
    }
    let total = text.utf8.count
    boundaries.append(total)
    func floor(_ offset: Int) -> Int {
      var low = 0
      var high = boundaries.count - 1
      while low < high {
        let mid = (low + high + 1) / 2
        if boundaries[mid] <= offset { low = mid } else { high = mid - 1 }
      }
      return boundaries[low]
    }
    func ceil(_ offset: Int) -> Int {
      var low = 0
      var high = boundaries.count - 1
      while low < high {
        let mid = (low + high) / 2
        if boundaries[mid] >= offset { high = mid } else { low = mid + 1 }
      }
      return boundaries[low]
    }
    return ranges.map { range in
      let lower = text.utf8.index(text.startIndex, offsetBy: floor(range.lowerBound))
      let upper = text.utf8.index(text.startIndex, offsetBy: ceil(min(range.upperBound, total)))
      return lower..<upper
    }
  }

  private static func merge(_ ranges: [Range<String.Index>], in text: String) -> [Range<
    String.Index
  >] {
    let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
    var merged: [Range<String.Index>] = []
    for range in sorted where !range.isEmpty {
      if let last = merged.last, range.lowerBound <= last.upperBound {
        merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
      } else {
        merged.append(range)
      }
    }
    return merged
  }
}

extension SearchIndex {
  /// Where `resolved` matched in `text`, a displayed value of `field`: substrings for a text
  /// field, the whole value for a number field whose value a term matched.
  func highlightRanges(
    in text: String, field: String, value: @autoclosure () -> FieldValue?, of id: ID?,
    slot: Int? = nil, request: MatchRequest, nearSpellings: Bool
  ) -> [Range<String.Index>] {
    guard let definition = schema.fields.first(where: { $0.name == field }) else { return [] }
    let moved = nearSpellings ? request.movedSpaceConditions : []
    let request = nearSpellings ? request.forNearSpellings : request
    let positive = request.searchedByUser.flatMap(\.flattened).filter { !$0.isNegated }
    let scoped = schema.searchesUnfielded(definition, in: request)
    func textRanges(_ definition: FieldDefinition) -> [Range<String.Index>] {
      let conditions = highlightedConditions(of: definition, in: request, adding: moved)
      let anchored = request.anchorsShortWords
      return Highlighting.ranges(
        in: text, needles: conditions.map(\.needle),
        initialNeedles: conditions.filter(\.matchesInitials).map(\.needle),
        readingNeedles: conditions.filter(Readings.mayMatch).map(\.needle),
        nearTerms: nearSpellings && request.typos.isEnabled
          ? conditions.compactMap { Self.typoProbe($0, anchored: anchored) } : [],
        wordStartsOnly: lettersStartingAWord(conditions, of: id, slot: slot, in: request))
    }
    switch definition.kind {
    case .text:
      return textRanges(definition)
    case .number:
      // Only a number field needs the element's value: reading it for every value of a text
      // field (a city's alternate names) was a quarter of a page of highlights.
      guard let number = value().indexedNumber else { return [] }
      let hit = positive.contains { term in
        switch term.condition {
        case .text(let condition):
          condition.field == nil && scoped && condition.number == number
        case .number(let name, let predicate): name == field && predicate.matches(number)
        case .category, .either: false
        }
      }
      return hit ? [text.startIndex..<text.endIndex] : []
    case .category:
      let hit = positive.contains { term in
        if case .category(let name, let folded) = term.condition {
          return name == field && TextFolding.fold(text) == folded
        }
        return false
      }
      if hit { return [text.startIndex..<text.endIndex] }
      // A searched category is one of the index's text fields too
      // (`CatalogSchema.indexedTextFields`).
      guard let asText = textFields.first(where: { $0.name == field }) else { return [] }
      return textRanges(asText)
    }
  }
}

extension SearchIndex {
  /// Per value of the text field `field` of the item `id`, whether a highlight for `request`
  /// can be in it: its folded text, read from the index, holds one of the terms. Lets a page
  /// of a city with 200 other names highlight the few that matched without folding the rest.
  /// Nil when every value must be looked at (near spellings, initial consonants, an item or
  /// field the index does not hold).
  ///
  /// - Complexity: O(*m*) in the item's folded text.
  package func valuesThatMayMatch(
    field: String, of id: ID, slot known: Int? = nil, request: MatchRequest, nearSpellings: Bool
  ) -> [Bool]? {
    guard let column = textFields.firstIndex(where: { $0.name == field }),
      let slot = known ?? slotByID[id]
    else { return nil }
    let moved = nearSpellings ? request.movedSpaceConditions : []
    let request = nearSpellings ? request.forNearSpellings : request
    let conditions = highlightedConditions(of: textFields[column], in: request, adding: moved)
    let nearTerms = nearSpellings && request.typos.isEnabled
    let anchored = request.anchorsShortWords
    guard
      !conditions.contains(where: {
        $0.matchesInitials || (nearTerms && Self.typoProbe($0, anchored: anchored) != nil)
      })
    else { return nil }
    func values(
      of column: FoldedColumn, holding needles: [[UInt8]]
    ) -> [Bool] {
      column.withUnsafeBytes { bytes, starts in
        var found: [Bool] = []
        var valueStart = Int(starts[slot])
        for offset in Int(starts[slot])..<Int(starts[slot + 1]) where bytes[offset] == 0 {
          let value = valueStart..<offset
          found.append(
            needles.contains { needle in
              needle.withUnsafeBufferPointer { ByteSearch.contains($0, in: bytes, range: value) }
            })
          valueStart = offset + 1
        }
        return found
      }
    }
    var found = values(of: columns[column], holding: conditions.map { Array($0.needle.utf8) })
    // A reading column holds an entry a value (or none for the slot): a value whose entry
    // holds a term may be marked by its reading.
    let read = conditions.filter(Readings.mayMatch).map { Array($0.needle.utf8) }
    if !read.isEmpty, let readings = readingColumns[column] {
      for (value, holds) in values(of: readings, holding: read).enumerated()
      where holds && value < found.count {
        found[value] = true
      }
    }
    return found
  }
}

extension SearchIndex {
  /// The one-letter needles (a–z) among `conditions` that begin a word somewhere in the item
  /// `id`, in a field the term searches: those mark word starts only. A one-letter term
  /// matches inside words too, so an item it matched only there ("Tulip" for "p") still shows
  /// where.
  fileprivate func lettersStartingAWord(
    _ conditions: [TextCondition], of id: ID?, slot known: Int?, in request: MatchRequest
  ) -> Set<String> {
    // Only a one-letter term needs the item's slot: most highlights never look it up.
    guard conditions.contains(where: { $0.needle.utf8.count == 1 }),
      let slot = known ?? id.flatMap({ slotByID[$0] })
    else { return [] }
    var letters: Set<String> = []
    for condition in conditions {
      let needle = Array(condition.needle.utf8)
      guard needle.count == 1, RawColumn.hasOwnBit(needle[0]), !letters.contains(condition.needle)
      else { continue }
      let searched = textFields.indices.filter { column in
        let field = textFields[column]
        return condition.field == field.name
          || (condition.field == nil && schema.searchesUnfielded(field, in: request))
      }
      if searched.contains(where: { startsAWord(needle[0], column: $0, slot: slot) }) {
        letters.insert(condition.needle)
      }
    }
    return letters
  }

  /// Whether a word of the slot's folded text in `column` begins with `letter`: from the
  /// column's summary where there is one, else from the text.
  private func startsAWord(_ letter: UInt8, column: Int, slot: Int) -> Bool {
    if let summary = summaries[column], slot < summary.wordStarts.count {
      return summary.wordStarts[slot] & RawColumn.wordStartBit(letter) != 0
    }
    return columns[column].withUnsafeBytes { bytes, starts in
      let range = Int(starts[slot])..<Int(starts[slot + 1])
      return range.contains { offset in
        bytes[offset] == letter
          && (offset == range.lowerBound || NearSpelling.isWordBoundary(bytes[offset - 1]))
      }
    }
  }

  /// The text terms of `request` that mark a text field: its own (`field:term`) and, where the
  /// request searches it, the unfielded ones.
  /// With near spellings, the words with their spaces moved (`adding`) mark it too:
  /// "spiderman" marks Spider-Man.
  fileprivate func highlightedConditions(
    of field: FieldDefinition, in request: MatchRequest, adding moved: [TextCondition] = []
  ) -> [TextCondition] {
    let scoped = schema.searchesUnfielded(field, in: request)
    return
      (request.searchedByUser.flatMap(\.flattened).filter { !$0.isNegated }
      .compactMap(\.textCondition) + moved)
      .filter { $0.field == field.name || ($0.field == nil && scoped) }
  }
}

extension SearchCollection {
  /// See `SearchIndex.valuesThatMayMatch(field:of:request:nearSpellings:)`.
  package func valuesThatMayMatch(field: String, of id: ID, slot: Int? = nil) -> [Bool]? {
    index.valuesThatMayMatch(
      field: field, of: id, slot: slot, request: request, nearSpellings: includesNearSpellings)
  }
}
