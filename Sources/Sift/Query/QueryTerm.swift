/// One condition of a parsed query. All terms of a query must hold (AND).
public struct QueryTerm: Hashable, Sendable {
  public enum Condition: Hashable, Sendable {
    /// Folded text found as a substring (see `TextCondition`).
    case text(TextCondition)
    /// A number field compared with a value or range: `price:<10`, `year:2000..2010`.
    case number(field: String, NumberPredicate)
    /// The category field equals this folded value: `category:Chocolate`.
    case category(field: String, value: String)
    /// Either of several alternatives, each terms that must all hold: `rose | tulip` (one term
    /// each), or an expression and its synonyms ("new york" or "ny").
    case either([[QueryTerm]])
  }

  /// `-term`: the item must not match the condition.
  public var isNegated: Bool
  public var condition: Condition
  /// Where the term stands in the query text, in characters.
  public var range: Range<Int>

  public init(isNegated: Bool = false, condition: Condition, range: Range<Int>) {
    self.isNegated = isNegated
    self.condition = condition
    self.range = range
  }

  /// The text condition, when the term is one.
  public var textCondition: TextCondition? {
    if case .text(let condition) = condition { return condition }
    return nil
  }

  /// The alternatives, when the term is `either`.
  public var alternatives: [[QueryTerm]]? {
    if case .either(let alternatives) = condition { return alternatives }
    return nil
  }

  /// The term itself, or every term of its alternatives: what highlighting looks for, since any
  /// alternative may be the one that matched.
  var flattened: [QueryTerm] {
    alternatives.map { $0.flatMap { $0.flatMap(\.flattened) } } ?? [self]
  }
}

/// A substring condition on folded text.
public struct TextCondition: Hashable, Sendable {
  /// The folded text to find.
  public var needle: String
  /// The one field to search (`title:rose`); nil searches every text field in scope.
  public var field: String?
  /// Written in quotes: spaces are part of it.
  public var isPhrase: Bool
  /// The term read as a number: it also matches a number field in scope that equals it
  /// (the Apple sample's rule: "2007" finds the year, "16.99" the price).
  public var number: Double?
  /// Made only of Hangul initial consonants: it also matches the initial-consonant key of
  /// Hangul text ("ㅅㅇ" finds "서울").
  public var matchesInitials: Bool
  /// The folded expression typed when this condition stands for one of its synonyms
  /// ("sofa" for `couch`), or for another way of writing it (`movesSpaces`); nil for what
  /// was typed.
  public var synonymOf: String?
  /// Whether this condition is what was typed (`synonymOf`) with the space between words
  /// moved: a word split in two ("spider-man" for `spiderman`, "e.t" for `et`) or two words
  /// joined ("sunflower" for `sun flower`). It matches from a word's start.
  public var movesSpaces: Bool

  public init(
    needle: String, field: String? = nil, isPhrase: Bool = false, number: Double? = nil,
    matchesInitials: Bool = false, synonymOf: String? = nil, movesSpaces: Bool = false
  ) {
    self.needle = needle
    self.field = field
    self.isPhrase = isPhrase
    self.number = number
    self.matchesInitials = matchesInitials
    self.synonymOf = synonymOf
    self.movesSpaces = movesSpaces
  }
}

/// A comparison of a number field.
public enum NumberPredicate: Hashable, Sendable, CustomStringConvertible {
  case equal(Double)
  case less(Double)
  case lessOrEqual(Double)
  case greater(Double)
  case greaterOrEqual(Double)
  /// Both ends included: `a..b`.
  case between(Double, Double)

  public func matches(_ value: Double) -> Bool {
    switch self {
    case .equal(let bound): value == bound
    case .less(let bound): value < bound
    case .lessOrEqual(let bound): value <= bound
    case .greater(let bound): value > bound
    case .greaterOrEqual(let bound): value >= bound
    case .between(let low, let high): low <= value && value <= high
    }
  }

  public var description: String {
    switch self {
    case .equal(let v): "=\(FieldValue.format(v))"
    case .less(let v): "<\(FieldValue.format(v))"
    case .lessOrEqual(let v): "<=\(FieldValue.format(v))"
    case .greater(let v): ">\(FieldValue.format(v))"
    case .greaterOrEqual(let v): ">=\(FieldValue.format(v))"
    case .between(let a, let b): "\(FieldValue.format(a))..\(FieldValue.format(b))"
    }
  }
}
