/// A word being typed: a value that equals or starts with the query as typed so far is ranked by
/// its item's popularity and its name together, so that a famous place comes before an obscure
/// one whose title happens to start the same way — and a near spelling never before an exact
/// start.
extension MatchRank {
  /// The points a title equal to a word being typed adds to its item's magnitude, and those
  /// of a title starting with it or another name equal to it (`typedPoints`): as if the item
  /// stood about 30,000 and 100 times nearer the top of the popularity order (a magnitude
  /// counts half powers of ten: `SearchIndex.magnitudeStarts`). Five half-decades apart: an
  /// item more than 300 times nearer the top whose title starts with the word comes before a
  /// title equal to it — `war` gives Warsaw before a hamlet named War, as `pra` gives Prague.
  static let typedTitleEqualPoints = 9
  static let typedStartPoints = 4

  /// An item's points while the last word is typed: 9 when its title equals the query, 4 when
  /// its title starts with it or another name equals it, else 0.
  static func typedPoints(titleEquals: Bool, titleStarts: Bool, valueEquals: Bool)
    -> Int
  {
    titleEquals ? typedTitleEqualPoints : titleStarts || valueEquals ? typedStartPoints : 0
  }

  /// What an edit takes from the weight of a value that starts a word being typed only with
  /// typos (`typedStart(magnitude:points:edits:)`): as much as a 300,000-fold higher place,
  /// so that a near spelling of a title equal to the word keeps the weight it had above the
  /// starts' near spellings (`mag − 2`). Found on the relevance benchmark
  /// (`Benchmarks/README.md`, issues 29 and 68).
  static let typedEditPenalty = 11

  /// The weight from which an exact start of a one-word query being typed is strong enough
  /// evidence that near spellings are not looked for (`isStrongTypedStart`): a title starting
  /// with the query of an item among the catalog's most popular tenth (magnitude 3), or a title
  /// equal to it. A place, never a value: it means the same in every catalog.
  static let strongTypedWeight = 7

  /// Whether this exact start of a one-word query being typed weighs `strongTypedWeight` or
  /// more: only such a match counts toward the typo threshold then (`TypoTolerance`).
  var isStrongTypedStart: Bool {
    exactness == .startsValue && typos == 0 && typedWeight >= Self.strongTypedWeight
  }

  /// The rank of a value that equals or starts with a query whose last word is still being
  /// typed (`MatchRequest.isTyping`): a start, whose attribute is 31 less the item's magnitude
  /// and its points (`typedPoints`) — so that a more popular item comes first unless its name
  /// outweighs it ("pra": Prague, whose title starts so, before Delhi, ten times as large, whose
  /// alternate name does); equal weights go to the `agreement`, then to popularity.
  ///
  /// With `edits`, the value starts with a near spelling of a one-word query (when near
  /// spellings are looked for): a start among the near spellings with as many edits — never
  /// before an exact match — each edit taking `typedEditPenalty` from its weight.
  package static func typedStart(
    magnitude: Int, points: Int, edits: Int = 0, agreement: Int = 0
  ) -> MatchRank {
    let weight = magnitude + points - typedEditPenalty * edits
    return MatchRank(
      typos: edits, exactness: .startsValue,
      attribute: maximumAttribute - min(maximumAttribute, max(0, weight)), position: agreement)
  }

  /// The weight of a typed start (`typedStart(magnitude:points:edits:)`) read back from its
  /// rank: 31 less its attribute.
  package var typedWeight: Int { Self.maximumAttribute - attribute }
}
