import Foundation

/// The index `sift filter` searches: one text field per line and nothing else — no ids (slot *i*
/// is line *i*), numbers, categories or popularity, so a million lines cost their folded bytes
/// and a few bytes each. It shares the catalog index's matching and ranking.
package typealias LineIndex = SearchIndex<Never>

extension SearchIndex where ID == Never {
  /// The schema of a line index.
  package static var lineSchema: CatalogSchema {
    CatalogSchema(name: "lines", fields: [.text("line")], titleField: "line")
  }

  /// An index of plain lines, for line filters: one text field, `line`, and no `Item`s, so a
  /// million lines cost their folded bytes and a few bytes each. Slot *i* is line *i*.
  package init(lines: some Sequence<String>) {
    var storage = SlotStorage<Never>(empty: LineIndex.lineSchema, summarised: false)
    for line in lines { storage.appendLine(line) }
    self.init(schema: LineIndex.lineSchema, storage: storage)
  }

  /// An index of the lines of a UTF-8 buffer, split and folded in one pass on every core (no
  /// `String` per line), and where the lines start. Lines that are not valid UTF-8 are folded
  /// with replacement characters.
  ///
  /// Fresh memory is what costs most here (a page fault per 4 KiB), so each part folds straight
  /// into its own region of the one buffer the index keeps, and nothing is copied afterwards.
  ///
  /// With a `prefilter`, the index holds only the lines that may match it (slot *i* is then the
  /// *i*-th such line, and `lines` says where it is).
  ///
  /// - Complexity: O(*n*) in the buffer's length, split in as many parts as there are cores.
  package static func lines(
    utf8 buffer: UnsafeBufferPointer<UInt8>, keeping prefilter: LinePrefilter? = nil
  )
    -> (index: LineIndex, lines: LineStarts)
  {
    let parts = LineFolding.partBoundaries(
      of: buffer, parts: Parallel.parts(for: buffer.count, minimumPerPart: 1 << 20))
    // Part p writes from its input offset plus `slack` per earlier part; folding rarely makes
    // text longer, and the last part gets room to spare (untouched capacity costs nothing).
    let slack = 64
    let regionStarts = parts.indices.map { parts[$0].lowerBound + $0 * slack }
    let capacity = buffer.count + slack * parts.count + buffer.count / 4
    let input = SharedBytes(buffer: buffer)
    var folded: [LineFolding.Part] = []
    var joined: FoldedColumn?  // set when a part outgrew its region
    let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { storage, initialized in
      let output = SharedOutput(buffer: storage)
      folded = Parallel.map(parts: parts.count) { part in
        let regionEnd = part + 1 < parts.count ? regionStarts[part + 1] : capacity
        let region = UnsafeMutableBufferPointer(
          rebasing: output.buffer[regionStarts[part]..<regionEnd])
        return LineFolding.fold(input.buffer, range: parts[part], into: region, keeping: prefilter)
      }
      guard folded.allSatisfy({ $0.inPlaceCount != nil }) else {
        // Rare (text that folds much longer, like Hangul): join the parts by copying them.
        joined = .joined(
          folded.indices.map { part in
            let result = folded[part]
            switch result.output {
            case .inPlace(let count):
              let start = regionStarts[part]
              return FoldedColumn(
                bytes: Array(storage[start..<start + count]), starts: result.starts)
            case .moved(let bytes):
              return FoldedColumn(bytes: bytes, starts: result.starts)
            }
          })
        initialized = 0
        return
      }
      // The gap after a part is zeros: extra empty values of its last line, never matched.
      var end = 0
      for (part, result) in folded.enumerated() {
        storage[end..<regionStarts[part]].initialize(repeating: 0)
        end = regionStarts[part] + result.inPlaceCount!
      }
      initialized = end
    }

    let column: FoldedColumn
    if let joined {
      column = joined
    } else {
      var starts: [UInt32] = []
      starts.reserveCapacity(folded.reduce(1) { $0 + $1.starts.count - 1 })
      for (part, result) in folded.enumerated() {
        let base = UInt32(truncatingIfNeeded: regionStarts[part])
        // The next part's first start (its region's start) ends this part's last line.
        let partStarts = part + 1 < folded.count ? result.starts.dropLast() : result.starts[...]
        for start in partStarts { starts.append(start &+ base) }
      }
      column = FoldedColumn(bytes: bytes, starts: starts)
    }
    let lines = LineStarts(
      parts: zip(parts, folded).map { LineStarts.Part(base: $0.lowerBound, starts: $1.lineStarts) })
    let readings = FoldedColumn.joinedReadings(
      folded.map(\.readings), slotCounts: folded.map(\.lineStarts.count))
    let index = LineIndex(
      schema: LineIndex.lineSchema,
      storage: SlotStorage(
        lines: column, readings: readings, count: lines.count, schema: LineIndex.lineSchema))
    return (index, lines)
  }
}

extension LineIndex {
  /// The lines where every term is a substring: best first, or in input order when `sorted` is
  /// false.
  package func exactLineMatches(_ resolved: ResolvedCriteria, sorted: Bool) -> [Int] {
    let outcome = searchSlots(resolved.request(typos: .off), rows: sorted ? .max : 0)
    return sorted ? outcome.ranked.map { Int($0.slot) } : outcome.slots.map { Int($0) }
  }

  /// The lines where every plain term is a subsequence, scored like fzf (phrases and
  /// negations exact): best first, or in input order when `sorted` is false. `a | b` of plain
  /// words is fuzzy too, as in fzf: either may be the subsequence, the better one scores.
  package func fuzzyLineMatches(_ resolved: ResolvedCriteria, sorted: Bool) -> [Int] {
    // Each group: the needles one of which must be a subsequence.
    var fuzzyTerms: [[[UInt8]]] = []
    var exactCriteria = resolved
    func fuzzyNeedle(_ term: QueryTerm) -> [UInt8]? {
      guard !term.isNegated, let text = term.textCondition, !text.isPhrase else { return nil }
      return Array(text.needle.utf8)
    }
    exactCriteria.query.terms.removeAll { term in
      if let alternatives = term.alternatives {
        let needles = alternatives.map { $0.count == 1 ? fuzzyNeedle($0[0]) : nil }
        guard needles.allSatisfy({ $0 != nil }) else { return false }
        fuzzyTerms.append(needles.compactMap { $0 })
        return true
      }
      guard let needle = fuzzyNeedle(term) else { return false }
      fuzzyTerms.append([needle])
      return true
    }
    // Phrases and negations narrow first, exactly; then every fuzzy term must match.
    let candidates =
      exactCriteria.allTerms.isEmpty
      ? Array(0..<Int32(slotCount))
      : searchSlots(exactCriteria.request(typos: .off), rows: 0).slots
    let column = columns[0]
    var scored: [(line: Int, score: Int, length: Int)] = []
    var scratch = FuzzyMatch.Scratch()
    column.withUnsafeBytes { bytes, starts in
      candidateLoop: for slot in candidates {
        let text = FoldedColumn.firstValue(of: Int(slot), bytes: bytes, starts: starts)
        var total = 0
        for group in fuzzyTerms {
          let scores = group.compactMap { term in
            term.withUnsafeBufferPointer { FuzzyMatch.score($0, in: text, scratch: &scratch) }
          }
          guard let score = scores.max() else { continue candidateLoop }
          total += score
        }
        scored.append((Int(slot), total, text.count))
      }
    }
    if sorted {
      scored.sort { ($1.score, $0.length, $0.line) < ($0.score, $1.length, $1.line) }
    }
    return scored.map(\.line)
  }
}
