/// Where an item stands on the relevance rules that come before popularity (README, "How results are ordered"), compared
/// in this order, each breaking the ties of the one before; popularity, then catalog order
/// break what is left.
public struct MatchRank: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// How closely the query's words meet a value.
  public enum Exactness: UInt8, Hashable, Sendable, Comparable, CaseIterable {
    /// A searchable value equals the whole query ("new york" = the alternate name "New York").
    case equalsQuery = 0
    /// A searchable value starts with the whole query, as typed so far ("san fe" → "San
    /// Fernando", before "Feira de Santana").
    case startsValue = 1
    /// Every term starts a word ("ro" in "Red Rose").
    case wordStarts = 2
    /// Some term only occurs inside a word ("ose").
    case substring = 3

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The word `--explain` prints.
    public var name: String {
      switch self {
      case .equalsQuery: "equals query"
      case .startsValue: "starts a value"
      case .wordStarts: "word starts"
      case .substring: "substring"
      }
    }
  }

  /// Whether the item matched only through a synonym of what was typed ("couch" for "sofa"):
  /// such matches come after every match of the words as typed.
  public var viaSynonym: Bool
  /// Edits spent on near spellings, over every term: 0 for exact matches.
  public var typos: Int
  public var exactness: Exactness
  /// The field of the best match: 0 is the title, then the other searched fields in schema
  /// order (text fields, then number fields). When a value equals or starts with the query,
  /// the best such value's field.
  public var attribute: Int
  /// Words before the best match in its value (0: the value starts with it), at most 7. When a
  /// value equals or starts with the query, the agreement instead (`agreement`,
  /// `titleHoldsTerms`, `equalFields`), or 0 where a ranking field breaks those ties.
  public var position: Int

  public init(
    typos: Int = 0, exactness: Exactness = .equalsQuery, attribute: Int = 0, position: Int = 0,
    viaSynonym: Bool = false
  ) {
    self.viaSynonym = viaSynonym
    self.typos = typos
    self.exactness = exactness
    self.attribute = attribute
    self.position = position
  }

  /// The attribute of text column `column` (fields in schema order): the title first, then
  /// the other text fields in order.
  package static func attribute(ofText column: Int, titleColumn: Int?) -> Int {
    guard let titleColumn else { return column }
    return column == titleColumn ? 0 : column < titleColumn ? column + 1 : column
  }

  /// No text to rank by: every such item ties, and popularity decides.
  public static let unranked = MatchRank()

  static let maximumTypos = 7
  static let maximumAttribute = 15
  static let maximumPosition = 7

  /// The rank in 13 bits, ordered as the rank is: via synonym (1), typos (3), exactness (2),
  /// attribute (4), position (3). For a value equal to the query or starting with it, the
  /// position bits hold how the item's fields agree with the query instead (`agreement`).
  package var packed: UInt16 {
    (viaSynonym ? Self.synonymBit : 0)
      | UInt16(min(typos, Self.maximumTypos)) << 9
      | UInt16(exactness.rawValue) << 7
      | UInt16(min(attribute, Self.maximumAttribute)) << 3
      | UInt16(min(position, Self.maximumPosition))
  }

  // MARK: - Agreement

  /// Where nothing before it decides — no popularity, as in most catalogs people import — how
  /// an item whose value equals or starts with the query agrees with it, smaller first: the
  /// more fields with a value equal to the query (three or more count as three), then whether
  /// its title holds every term at the start of a word. "zurich": Zurich Airport (city and
  /// region equal, and the title) before Dübendorf (city and region alone); "sin": Singapore
  /// Changi (code SIN, and the title) before Sinele Strip (the title alone); "gru": São Paulo's
  /// Guarulhos (code GRU) before the airports whose names start with "Gru". It sits where such
  /// a rank's word position (always 0) would be.
  package static func agreement(titleHoldsTerms: Bool, equalFields: Int) -> Int {
    (3 - min(3, max(0, equalFields))) * 2 + (titleHoldsTerms ? 0 : 1)
  }

  /// Whether the position bits hold the agreement: a value equal to the query or starting with
  /// it (or, while a one-word query is typed, with a near spelling of it).
  var holdsAgreement: Bool { exactness <= .startsValue }

  /// For a rank that holds one (`agreement`), whether the title holds every term at a word's
  /// start; nil otherwise.
  public var titleHoldsTerms: Bool? { holdsAgreement ? position % 2 == 0 : nil }

  /// For a rank that holds an agreement, how many fields have a value equal to the query (3
  /// for three or more); nil otherwise.
  public var equalFields: Int? { holdsAgreement ? 3 - position / 2 : nil }

  /// What ranks before distance near a place (`--near` without a sort), smaller first: via
  /// synonym, typos, whether every term starts a word, then whether the title holds the match
  /// — so that a title match nearby comes before one far away, and before a match only in
  /// another field, whatever else tells them apart.
  package static func nearClass(_ packed: UInt16) -> UInt16 {
    let rank = MatchRank(packed: packed)
    let titleMatch = rank.titleHoldsTerms ?? (rank.attribute == 0)
    return (packed >> 9) << 2 | (rank.exactness == .substring ? 2 : 0) | (titleMatch ? 0 : 1)
  }

  // MARK: - A word being typed

  /// The points a title equal to a word being typed adds to its item's magnitude, and those
  /// of a title starting with it or another value equal to it (`typedPoints`): as if the item
  /// were 100,000 and 100 times as popular. Found on the relevance benchmark
  /// (`Benchmarks/README.md`, issue 29).
  static let typedTitleEqualPoints = 5
  static let typedStartPoints = 2

  /// An item's points while the last word is typed: 5 when its title equals the query, 2 when
  /// its title starts with it or another value equals it, else 0.
  static func typedPoints(titleEquals: Bool, titleStarts: Bool, valueEquals: Bool)
    -> Int
  {
    titleEquals ? typedTitleEqualPoints : titleStarts || valueEquals ? typedStartPoints : 0
  }

  /// How many of the powers of ten 1, 10, … 10^9 a popularity reaches (0 to 10): its order of
  /// magnitude, which a title match can outweigh (`CatalogSchema.magnitude(ofPopularity:)`
  /// says when it counts).
  package static func magnitude(of popularity: Double) -> Int {
    var count = 0
    var power = 1.0
    while count < 10, popularity >= power {
      count += 1
      power *= 10
    }
    return count
  }

  /// What an edit takes from the weight of a value that starts a word being typed only with
  /// typos (`typedStart(magnitude:points:edits:)`): as much as a millionfold popularity.
  /// Found on the relevance benchmark (`Benchmarks/README.md`, issue 29).
  static let typedEditPenalty = 6

  /// The weight from which an exact start of a one-word query being typed is strong enough
  /// evidence that near spellings are not looked for (`isStrongTypedStart`): a title starting
  /// with the query of a place of 10,000 people or more, say. Found on the relevance benchmark.
  static let strongTypedWeight = 7

  /// Whether this exact start of a one-word query being typed weighs `strongTypedWeight` or
  /// more: only such a match counts toward the typo threshold then (`TypoTolerance`).
  var isStrongTypedStart: Bool {
    exactness == .startsValue && typos == 0 && typedWeight >= Self.strongTypedWeight
  }

  /// The rank of a value that equals or starts with a query whose last word is still being
  /// typed (`MatchRequest.isTyping`): a start, whose attribute is 15 less the item's magnitude
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
  /// rank: 15 less its attribute.
  package var typedWeight: Int { Self.maximumAttribute - attribute }

  /// The number of distinct packed values.
  static let packedCount = 1 << 13

  /// The packed rank's bit that says `viaSynonym`.
  static let synonymBit: UInt16 = 1 << 12

  package init(packed: UInt16) {
    viaSynonym = packed & Self.synonymBit != 0
    typos = Int(packed >> 9 & 7)
    exactness = Exactness(rawValue: UInt8(packed >> 7 & 3)) ?? .substring
    attribute = Int(packed >> 3 & 15)
    position = Int(packed & 7)
  }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.packed < rhs.packed }

  public var description: String {
    (viaSynonym ? "via synonym · " : "")
      + "typos \(typos) · \(exactness.name) · attribute \(attribute) · position \(position)"
  }
}
