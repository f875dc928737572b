/// Where an item stands on the relevance rules that come before popularity (docs/ranking.md),
/// compared in this order, each breaking the ties of the one before; popularity,
/// then catalog order break what is left. Packed in 15 bits, so that ordering many matches is a
/// counting sort.
///
/// First of all, whether every term starts a word: a match inside a word ("ose" in "Rose") comes
/// after every match at word starts, near spellings of word starts included — "havna" finds
/// Havana before Bhavnagar, whose letters merely hold it.
///
/// Where each rule is decided:
/// - via synonym and typos: by the matcher (`Matching/`, `Typos/`), which knows what it found;
/// - exactness, attribute and word position: `SlotAnalysis`, reading the matched values;
/// - a word being typed (popularity and name weighed together): `Rules/TypedStart.swift`;
/// - the agreement of an item's fields with the query: `Rules/Agreement.swift`;
/// - near a place, what ranks before distance: `Rules/NearClass.swift`;
/// - popularity, then catalog order: `SlotStorage`'s popularity order, walked by
///   `SearchIndex+Order.swift`; under a sort, `SearchIndex+Sort.swift`.
public struct MatchRank: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// How closely the query's words meet a value.
  public enum Exactness: UInt8, Hashable, Sendable, Comparable, CaseIterable {
    /// A searchable value equals the whole query ("new york" = the alternate name "New York").
    case equalsQuery = 0
    /// A searchable value starts with the whole query, as typed so far ("san fe" → "San
    /// Fernando", before "Feira de Santana").
    case startsValue = 1
    /// Every term starts a word ("ro" in "Red Rose"), and each finished one (followed by a
    /// space or another word) is a whole word.
    case wordStarts = 2
    /// Every term starts a word, but a finished one only begins a longer word: "seven " in
    /// "Seventh Seal", after "The Seven Samurai".
    case wordBeginnings = 3
    /// Some term only occurs inside a word ("ose").
    case substring = 4

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The word `--explain` prints.
    public var name: String {
      switch self {
      case .equalsQuery: "equals query"
      case .startsValue: "starts a value"
      case .wordStarts: "word starts"
      case .wordBeginnings: "word beginnings"
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
  /// The field of the best match: 0 for a name (the title or another name), then the fields
  /// that describe the item in schema order, then number fields. When a value equals or starts with the query,
  /// the best such value's field.
  public var attribute: Int
  /// Where no ranking field comes first (word position ranks after popularity): 4 when the
  /// title has a word no word of the query starts, plus the words before the best match in
  /// its value, at most 3 (`coverage(titleCovered:wordPosition:)`). When a
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

  /// The position bits of an item whose values neither equal nor start with the query, where
  /// no ranking field comes first: a title every word of which a word of the query starts
  /// before one with words the query leaves out — "jessie dog" gives Jessie before Jessie
  /// Bean, as a shorter field scores higher under bm25 — then the earlier word (up to 3).
  static func coverage(titleCovered: Bool, wordPosition: Int) -> Int {
    (titleCovered ? 0 : 4) + min(wordPosition, 3)
  }

  /// For a rank whose position bits hold the coverage (`coverage`: a match that neither
  /// equals nor starts a value, where no ranking field comes first), whether every word of the
  /// title starts with a word of the query; nil for a rank that holds the agreement.
  public var titleCovered: Bool? { holdsAgreement ? nil : position & 4 == 0 }

  /// The words before the best match in its value (at most 3), for a rank that holds the
  /// coverage; 0 otherwise.
  public var wordPosition: Int { holdsAgreement ? 0 : position & 3 }

  /// No text to rank by: every such item ties, and popularity decides.
  public static let unranked = MatchRank()

  static let maximumTypos = 7
  static let maximumAttribute = 31
  static let maximumPosition = 7

  /// The rank in 15 bits, ordered as the rank is: inside a word (1: the exactness is
  /// `substring`), via synonym (1), typos (3), exactness (2: `substring` is 3, as
  /// `wordBeginnings`, the bit above telling them apart), attribute (5), position (3). For a
  /// value equal to the query or starting with it, the position bits hold how the item's fields
  /// agree with the query instead (`agreement`).
  package var packed: UInt16 {
    (exactness == .substring ? Self.insideWordBit : 0)
      | (viaSynonym ? Self.synonymBit : 0)
      | UInt16(min(typos, Self.maximumTypos)) << Self.typosShift
      | UInt16(min(exactness.rawValue, 3)) << Self.exactnessShift
      | UInt16(min(attribute, Self.maximumAttribute)) << 3
      | UInt16(min(position, Self.maximumPosition))
  }

  /// Where the typos and the exactness sit in the packed rank.
  static let typosShift: UInt16 = 10
  static let exactnessShift: UInt16 = 8

  /// The number of distinct packed values.
  static let packedCount = 1 << 15

  /// The packed rank's bit that says `viaSynonym`.
  static let synonymBit: UInt16 = 1 << 13

  /// The packed rank's bit that says a term matched only inside a word: above every other.
  static let insideWordBit: UInt16 = 1 << 14

  package init(packed: UInt16) {
    viaSynonym = packed & Self.synonymBit != 0
    typos = Int(packed >> Self.typosShift & 7)
    exactness =
      packed & Self.insideWordBit != 0
      ? .substring : Exactness(rawValue: UInt8(packed >> Self.exactnessShift & 3)) ?? .substring
    attribute = Int(packed >> 3 & 31)
    position = Int(packed & 7)
  }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.packed < rhs.packed }

  public var description: String {
    (viaSynonym ? "via synonym · " : "")
      + "typos \(typos) · \(exactness.name) · attribute \(attribute) · position \(position)"
  }
}
