/// Why an item stands where it does in the results (`sift search --explain`): the values of
/// the relevance rules that placed it, where its best match is, and every highlighted range.
public struct MatchExplanation: Hashable, Sendable {
  /// Typos, exactness, attribute and position: the rules before popularity.
  public var rank: MatchRank
  /// The field of the best match (the attribute rule's field); nil when no text term ranks it.
  public var field: String?
  /// The value of `field` that holds the best match, as stored.
  public var value: String?
  /// The value that equals or starts with the query (the exactness rule's reason), and its
  /// field; nil below those levels.
  public var exactField: String?
  public var exactValue: String?
  /// The catalog's ranking field and the item's value of it (rule 5).
  public var rankingField: String?
  public var popularity: Double?
  /// The item's key in catalog order (rule 6): smaller comes first.
  public var catalogOrder: Int64
  /// Whether the rank's agreement (`MatchRank.agreement`) ranked the item: in a catalog
  /// without a ranking field, or near a place. Otherwise popularity breaks those ties.
  public var ranksByAgreement = false
  /// Whether the JSON leaves `catalogOrder` out: a tenant, who sees only its own rows, must
  /// not learn from it how many rows the catalog holds besides.
  public var hidesCatalogOrder = false
  /// While the last word is typed (`MatchRequest.isTyping`), a start's weight
  /// (`MatchRank.typedStart`): the powers of ten its popularity reaches, and the points of a
  /// title equal to the query (5), or of a title starting with it or another value equal to it
  /// (2), less 6 per edit of a value that starts with a near spelling of a one-word query.
  /// Larger comes first; nil otherwise.
  public var typedWeight: TypedWeight?
  /// Under a sort (`SearchSort`), its field and the item's value of it as shown ("24.99"; nil
  /// when it has none): the rule before every other.
  public var sortField: String?
  public var sortValue: String?
  /// Near a place (`SearchNear`), how far the item is in kilometres (to the metre): the rule
  /// right after typos, word starts and a title match (`MatchRank.nearClass`), or the sort by
  /// distance; nil without a place or a location.
  public var distanceKilometers: Double?
  /// The first rule that puts this result before the next one — the sort's field, "typos",
  /// "exactness", "attribute", "title", "equal fields" (`MatchRank.agreement`), "title
  /// coverage" (`MatchRank.coverage`), "position",
  /// the ranking field's name or "catalog order" — nil
  /// for the last (`sift search` and `sift serve` compare within what they print: nil for its
  /// last result).
  public var aheadOfNext: String?
  /// Every field value with something highlighted, and the ranges.
  public var highlights: [Highlight]
  /// The synonyms the item matched through, typed word first ("flower → rose"); nil when it
  /// matched what was typed (`MatchRank.viaSynonym`).
  public var synonym: String?
  /// What ends `synonym` when the item was found by the words typed with a space moved
  /// ("spiderman → spider-man (spaces moved)"): no synonym, the words typed with a slip.
  public static let spacesMoved = "(spaces moved)"
  /// How the best match was read when the words typed matched a reading of the value rather
  /// than its letters: "pinyin" (`beijing` for 北京), "romaji" (`tokyo` for とうきょう) or
  /// "initial consonants" (`ㅅㅇ` for 서울); nil for a match of the text itself.
  public var readBy: String?
  /// Whether the item stands here because it is pinned at this row for the query (`Pins`),
  /// whatever the rules say.
  public var pinned = false
  /// In a search by meaning (`SearchVector`), how near the item is and where it stood in the
  /// lists that were fused; nil otherwise.
  public var meaning: Meaning?

  /// Whether a search by meaning placed the item without its words: no text, or text that did
  /// not find it.
  public var isByMeaningAlone: Bool {
    meaning != nil && meaning?.textRank == nil && meaning?.textRankPast == nil
  }

  /// Where a result of a search by meaning stands and why.
  public struct Meaning: Hashable, Sendable {
    /// The cosine similarity of its vector to the query's, -1…1; nil when it has no vector.
    public var similarity: Double?
    /// Its place among the nearest items, from 1; nil when it was not among them.
    public var nearRank: Int?
    /// Its place in the text's order, from 1; nil when the text did not find it (or there was
    /// no text).
    public var textRank: Int?
    /// For a match of the text past those that were fused (its first `neighbors`, or more
    /// with a low ratio), how many were: its place in the text's order is after that, and it
    /// follows every fused result in that order.
    public var textRankPast: Int?
    /// `(1 - ratio) / textRank + ratio / nearRank`, larger first; nil without text, or for a
    /// name equal to the query, which comes first whatever the score.
    public var fusedScore: Double?
    /// Whether one of its names equals the query as typed: such results come first.
    public var nameEqualsQuery = false
  }

  /// A start's weight while the last word is typed: its sum decides, larger first.
  public struct TypedWeight: Hashable, Sendable {
    /// How far up the catalog's popularity order the item stands: 1 for any value, one more
    /// for each half power of ten it is among (the most popular tenth 3, hundredth 5, …), up
    /// to 20.
    public var magnitude: Int
    /// 9 for a title equal to the query, 4 for a title starting with it or another name equal
    /// to it, else 0.
    public var points: Int
    /// The edits of a value that starts with a near spelling of the query: each takes
    /// `penaltyPerEdit` from the weight.
    public var edits: Int = 0

    /// What an edit takes from the weight (11: as much as a 300,000-fold higher place).
    public static var penaltyPerEdit: Int { MatchRank.typedEditPenalty }

    /// The sum: magnitude and points, less the edits' penalty. It may fall below 0 (a near
    /// spelling without popularity); a rank counts such a weight as 0.
    public var weight: Int { magnitude + points - Self.penaltyPerEdit * edits }
  }

  /// Highlighted ranges of one value of one field.
  public struct Highlight: Hashable, Sendable {
    public var field: String
    public var value: String
    public var ranges: [Range<String.Index>]

    /// The ranges as character offsets into `value`, for printing and JSON.
    public var characterRanges: [Range<Int>] {
      ranges.map {
        value.distance(
          from: value.startIndex, to: $0.lowerBound)..<value.distance(
            from: value.startIndex, to: $0.upperBound)
      }
    }
  }
}

extension SearchCollection {
  /// Why the element at `row` matched and stands there.
  public func explanation(forRow row: Int) -> MatchExplanation? {
    guard var explanation = textExplanation(forRow: row) else { return nil }
    if resolved.vector != nil {
      explanation.meaning = meaning(forRow: row)
      if !explanation.pinned, let next = meaning(forRow: row + 1) {
        explanation.aheadOfNext = MatchExplanation.rule(
          separating: explanation.meaning, from: next, textRule: explanation.aheadOfNext)
      }
    }
    return explanation
  }

  /// Where the row stands in a search by meaning; nil outside one or past the rows.
  public func meaning(forRow row: Int) -> MatchExplanation.Meaning? {
    guard resolved.vector != nil, let element = element(atRow: row) else { return nil }
    let place = index.slot(of: element.id).flatMap { matches.meaning[Int32($0)] }
    let similarity =
      place?.similarity ?? index.similarity(of: element.id, request: request)
    return MatchExplanation.Meaning(
      similarity: similarity.map(Double.init), nearRank: place?.nearRank,
      textRank: place?.textRank, textRankPast: place == nil ? matches.fusedTextDepth : nil,
      fusedScore: place?.score, nameEqualsQuery: place?.namedAsTyped ?? false)
  }

  /// `explanation(forRow:)` by the text's rules alone.
  private func textExplanation(forRow row: Int) -> MatchExplanation? {
    guard let element = element(atRow: row) else { return nil }
    let pinned = index.pinnedRow(of: element.id, request: request) != nil
    guard let analysis = index.analysis(of: element.id, request: request, in: matches) else {
      if resolved.vector != nil {
        // Found by meaning alone: no word of it matched.
        return MatchExplanation(
          rank: .unranked, catalogOrder: Int64(index.slot(of: element.id) ?? 0), highlights: [])
      }
      // Pinned without matching: its place is the pin's alone.
      guard pinned else { return nil }
      return MatchExplanation(
        rank: .unranked, catalogOrder: Int64(index.slot(of: element.id) ?? 0),
        aheadOfNext: self.element(atRow: row + 1) == nil ? nil : "pinned", highlights: [],
        pinned: true)
    }
    let (field, value) = describe(analysis.slot.field, offset: analysis.slot.offset, element)
    let (exactField, exactValue) = describe(
      analysis.slot.exactField, offset: analysis.slot.exactOffset, element)
    let ranking = schema.rankingField?.field
    func popularity(of element: Element) -> Double? {
      ranking.flatMap { searchSchema.value(of: element, field: $0).indexedNumber }
    }
    var aheadOfNext: String?
    let sort = index.sortPlan(request)
    let slot = index.slot(of: element.id)
    let distance = index.nearPlan(request.near).flatMap { near in
      slot.flatMap { index.meters($0, near) }.map { Double($0) / 1000 }
    }
    if let next = self.element(atRow: row + 1),
      let following = index.analysis(of: next.id, request: request, in: matches)
    {
      // Distance decides only between results that what ranks before it leaves tied.
      let tiedBeforeSort =
        sort?.afterExactness != true
        || MatchRank.nearClass(analysis.slot.rank.packed)
          == MatchRank.nearClass(following.slot.rank.packed)
      if let sort, tiedBeforeSort, let a = slot, let b = index.slot(of: next.id),
        index.sortPrecedes(a, b, sort) != nil
      {
        if case .distance = sort.column {
          aheadOfNext = SearchSort.distanceName
        } else {
          aheadOfNext = request.sort?.field
        }
      } else {
        aheadOfNext = MatchExplanation.rule(
          separating: (analysis.slot.rank, popularity(of: element), analysis.catalogOrder),
          from: (following.slot.rank, popularity(of: next), following.catalogOrder),
          rankingField: ranking)
      }
    }
    // A pin, not a rule, separates a pinned row from its neighbour.
    if let next = self.element(atRow: row + 1),
      pinned || index.pinnedRow(of: next.id, request: request) != nil
    {
      aheadOfNext = "pinned"
    }
    let sortField = sort == nil || sort?.afterExactness == true ? nil : request.sort?.field
    let sortValue: String?
    if let sort, !sort.afterExactness, case .distance = sort.column {
      sortValue = distance.map(MatchExplanation.kilometers)
    } else {
      sortValue = sortField.flatMap { name in
        schema.field(named: name).flatMap { definition in
          searchSchema.value(of: element, field: name).map(definition.display)
        }
      }
    }
    var typedWeight: MatchExplanation.TypedWeight?
    if request.isTyping, analysis.slot.rank.exactness == .startsValue {
      let magnitude = slot.map { index.typingMagnitude(ofSlot: $0) } ?? 0
      typedWeight = .init(
        magnitude: magnitude, points: analysis.slot.typedPoints ?? 0,
        edits: analysis.slot.rank.typos)
    }
    var highlights: [MatchExplanation.Highlight] = []
    for definition in schema.fields {
      guard let stored = searchSchema.value(of: element, field: definition.name) else { continue }
      let strings =
        definition.kind == .number ? [definition.display(stored)] : Optional(stored).indexedStrings
      for string in strings {
        let ranges = highlightRanges(in: string, field: definition.name, of: element)
        if !ranges.isEmpty {
          highlights.append(.init(field: definition.name, value: string, ranges: ranges))
        }
      }
    }
    return MatchExplanation(
      rank: analysis.slot.rank, field: field, value: value, exactField: exactField,
      exactValue: exactValue, rankingField: ranking, popularity: popularity(of: element),
      catalogOrder: analysis.catalogOrder, ranksByAgreement: index.weighsAgreement(sort),
      typedWeight: typedWeight, sortField: sortField, sortValue: sortValue,
      distanceKilometers: distance, aheadOfNext: aheadOfNext, highlights: highlights,
      synonym: analysis.slot.synonym, readBy: analysis.slot.readBy?.name, pinned: pinned)
  }

  /// A field of the analysis by name, and the stored value that holds `offset` of its column.
  fileprivate func describe(
    _ field: SlotAnalysis.Field?, offset: (value: Int, byte: Int)?, _ element: Element
  ) -> (String?, String?) {
    switch field {
    case .text(let column):
      let definition = index.textFields[column]
      let values = searchSchema.value(of: element, field: definition.name).indexedStrings
      guard let offset else { return (definition.name, nil) }
      return (definition.name, values.indices.contains(offset.value) ? values[offset.value] : nil)
    case .number(let column):
      let definition = index.numberFields[column]
      return (
        definition.name,
        searchSchema.value(of: element, field: definition.name).map(definition.display)
      )
    case .none:
      return (nil, nil)
    }
  }
}

extension MatchExplanation {
  /// A distance as `--explain` and the page show it: "12.3 km", "850 m".
  public static func kilometers(_ value: Double) -> String {
    if value < 1 { return "\(Int((value * 1000).rounded())) m" }
    let tenths = (value * 10).rounded() / 10
    return tenths >= 100
      ? "\(FieldValue.grouped(tenths.rounded())) km" : "\(FieldValue.format(tenths)) km"
  }

  /// The first rule, in the order they apply, on which two results differ.
  static func rule(
    separating a: (rank: MatchRank, popularity: Double?, order: Int64),
    from b: (rank: MatchRank, popularity: Double?, order: Int64), rankingField: String?
  ) -> String {
    let (first, second) = (a.rank.packed, b.rank.packed)
    if (a.rank.exactness == .substring) != (b.rank.exactness == .substring) {
      return "word start"
    }
    if a.rank.viaSynonym != b.rank.viaSynonym { return "synonym" }
    if first >> MatchRank.typosShift != second >> MatchRank.typosShift { return "typos" }
    if a.rank.exactness != b.rank.exactness { return "exactness" }
    if a.rank.attribute != b.rank.attribute { return "attribute" }
    if first & 7 != second & 7 {
      // A value equal to the query or starting with it: its position bits are the agreement.
      guard a.rank.titleHoldsTerms != nil, b.rank.titleHoldsTerms != nil else {
        return a.rank.titleCovered != b.rank.titleCovered ? "title coverage" : "position"
      }
      return a.rank.equalFields != b.rank.equalFields ? "equal fields" : "title"
    }
    if let rankingField, a.popularity != b.popularity { return rankingField }
    return "catalog order"
  }
}

extension MatchExplanation {
  /// A similarity or a fused score as JSON and text show it: six decimals, past which a
  /// float's digits say nothing.
  public static func rounded(_ value: Double) -> Double { (value * 1e6).rounded() / 1e6 }

  /// The rule of a search by meaning that puts a result before the next: a name equal to the
  /// query, the fused score, nearness — or `textRule` between two names equal to the query.
  static func rule(separating a: Meaning?, from b: Meaning, textRule: String?) -> String? {
    guard let a else { return nil }
    if a.nameEqualsQuery { return b.nameEqualsQuery ? textRule : "name equals query" }
    // The text's later matches follow the fused rows, in the text's order.
    if a.textRankPast != nil { return textRule }
    if b.textRankPast != nil { return "fused score" }
    if let x = a.fusedScore, let y = b.fusedScore, x != y { return "fused score" }
    if a.fusedScore == nil, b.fusedScore == nil, a.similarity != b.similarity { return "nearness" }
    return "rank among the fused lists"
  }
}

extension SearchIndex {
  /// The ranking analysis of a shown item, with which value of its field holds the best match.
  func analysis(
    of id: ID, request: MatchRequest, in matches: RankedMatches<ID>
  ) -> (slot: ResolvedAnalysis, catalogOrder: Int64)? {
    guard let slot = slot(of: id) else { return nil }
    let near = matches.includesNearSpellings
    guard let best = bestAlternative(slot, request: request, nearSpellings: near) else {
      return nil
    }
    var analysis = analyse(slot, best.plan, nearSpellings: best.nearSpellings)
    analysis.rank.viaSynonym = MatchRank(packed: best.rank.rank).viaSynonym
    func located(_ field: SlotAnalysis.Field?, _ offset: Int?) -> (value: Int, byte: Int)? {
      guard case .text(let column) = field, let offset else { return nil }
      return (columns[column].valueIndex(of: offset, inSlot: slot), offset)
    }
    // A reading: its column holds an entry a value, so the entries before it count the values.
    var readBy: Readings.Kind?
    var offset = located(analysis.field, analysis.offset)
    if case .text(let column) = analysis.field, let at = analysis.readingOffset,
      let readings = readingColumns[column]
    {
      readBy = readings.withUnsafeBytes { bytes, starts in
        Readings.kind(at: at, in: bytes, from: Int(starts[slot]))
      }
      offset = (readings.valueIndex(of: at, inSlot: slot), at)
    }
    return (
      ResolvedAnalysis(
        rank: analysis.rank, field: analysis.field, offset: offset, readBy: readBy,
        exactField: analysis.exactField,
        exactOffset: located(analysis.exactField, analysis.exactOffset),
        typedPoints: analysis.typedPoints, synonym: Self.synonymsUsed(in: best.request)),
      orderKeys[slot]
    )
  }
}

/// A slot's analysis with byte offsets resolved to which value of the field holds them.
struct ResolvedAnalysis {
  var rank: MatchRank
  var field: SlotAnalysis.Field?
  var offset: (value: Int, byte: Int)?
  /// What the best match read the value by, when it matched a reading (`Readings`).
  var readBy: Readings.Kind?
  var exactField: SlotAnalysis.Field?
  var exactOffset: (value: Int, byte: Int)?
  var typedPoints: Int?
  /// The synonyms the item matched through ("flower → rose"); nil for what was typed.
  var synonym: String?
}

extension FoldedColumn {
  /// Which value of the slot holds byte `offset`: the 0 separators before it.
  func valueIndex(of offset: Int, inSlot slot: Int) -> Int {
    withUnsafeBytes { bytes, starts in
      var values = 0
      for index in Int(starts[slot])..<offset where bytes[index] == 0 { values += 1 }
      return values
    }
  }
}
