#if Server
import Sift

/// What a one-letter search needs of an item, kept with its row so that such a search reads an
/// index of a page rather than every item (a letter is in half of the cities; scanning them
/// cost 0.7 s at 1× and 3.6 s at 4×).
///
/// Per letter `a`…`z` (bit 0 is `a`), over the text columns searched when no field is named:
/// whether a value holds it, whether a word starts with it (the matches that count toward the
/// typo threshold), whether a value starts with it. For each letter that starts a value, the
/// rank (`MatchRank` packed) the item has for that letter alone, computed exactly as
/// `SearchSQL` ranks: such an item is equal or starts a value, so it ranks before every item
/// that only has a word or a piece starting with the letter — and the first page of a
/// one-letter search is read from these ranks in order. They are the ranks of a letter still
/// being typed (`MatchRequest.isTyping`, as a first keystroke is): every value equal to the
/// letter or starting with it is a start, weighed by the item's magnitude and whether it is the
/// title (`MatchRank.typedStart`).
struct LetterSummary: Equatable, Sendable {
  var held: Int32 = 0
  var startingWords: Int32 = 0
  var startingValues: Int32 = 0
  /// Per letter that starts a value, its rank, in letter order.
  var ranks: [LetterRank] = []

  /// Folded text columns (values separated by U+001F) with their attributes (`CatalogLayout`),
  /// and the item's magnitude (`CatalogSchema.magnitude(ofPopularity:)`).
  init(columns: [(folded: Substring.UTF8View, attribute: Int)], magnitude: Int) {
    var titleEquals: Int32 = 0
    var equal: Int32 = 0
    var titleStarts: Int32 = 0
    for (text, attribute) in columns {
      func valueEnded(_ length: Int, _ first: UInt8) {
        guard length == 1, let letter = Self.letter(first) else { return }
        equal |= 1 << letter
        if attribute == 0 { titleEquals |= 1 << letter }
      }
      var valueStart = true
      var previousIsBoundary = true
      var valueLength = 0
      var firstByte: UInt8 = 0
      for byte in text {
        if byte == 0x1F {
          valueEnded(valueLength, firstByte)
          valueStart = true
          previousIsBoundary = true
          valueLength = 0
          continue
        }
        let isBoundary = NearSpelling.isWordBoundary(byte)
        if let letter = Self.letter(byte) {
          let bit: Int32 = 1 << letter
          held |= bit
          if previousIsBoundary { startingWords |= bit }
          if valueStart {
            startingValues |= bit
            if attribute == 0 { titleStarts |= bit }
          }
        }
        if valueLength == 0 { firstByte = byte }
        valueLength += 1
        valueStart = false
        previousIsBoundary = isBoundary
      }
      valueEnded(valueLength, firstByte)
    }
    for letter in 0..<26 where startingValues & (1 << letter) != 0 {
      let bit: Int32 = 1 << letter
      let points = MatchRank.typedPoints(
        titleEquals: titleEquals & bit != 0, titleStarts: titleStarts & bit != 0,
        valueEquals: equal & bit != 0)
      let rank = MatchRank.typedStart(magnitude: magnitude, points: points)
      ranks.append(LetterRank(letter: letter, rank: Int(rank.packed)))
    }
  }

  /// The letter's index (0 for `a`) when `byte` is a lowercase ASCII letter.
  static func letter(_ byte: UInt8) -> Int? {
    (0x61...0x7A).contains(byte) ? Int(byte - 0x61) : nil
  }

  /// The masks alone (an item's row), for the counts an edit takes away.
  init(held: Int32, startingWords: Int32, startingValues: Int32) {
    self.held = held
    self.startingWords = startingWords
    self.startingValues = startingValues
  }
}

/// An item's rank for a one-letter search of `letter` (0 for `a`), packed as `MatchRank`.
struct LetterRank: Equatable, Sendable {
  var letter: Int
  var rank: Int
}

/// A change to one row of `letter_counts`.
struct LetterCountChange: Equatable, Sendable {
  var letter: Int
  var category: String?
  var matches: Int
  var counted: Int
  var starting: Int
}

/// Counts of `letter_counts` added up over items, per category and letter.
struct LetterCounts {
  private var byCategory: [String?: [Int]] = [:]

  /// Adds the item's letters (`sign` 1) or takes them away (-1).
  mutating func add(_ summary: LetterSummary, category: String?, sign: Int) {
    var counts = byCategory[category] ?? [Int](repeating: 0, count: 26 * 3)
    for letter in 0..<26 where summary.held & (1 << letter) != 0 {
      counts[letter * 3] += sign
      if summary.startingWords & (1 << letter) != 0 { counts[letter * 3 + 1] += sign }
      if summary.startingValues & (1 << letter) != 0 { counts[letter * 3 + 2] += sign }
    }
    byCategory[category] = counts
  }

  /// The rows that change, sorted by category (none first), then letter: two edits lock the
  /// rows they share in the same order.
  var changes: [LetterCountChange] {
    let categories = byCategory.keys.sorted {
      ($0 == nil ? 0 : 1, $0 ?? "") < ($1 == nil ? 0 : 1, $1 ?? "")
    }
    return categories.flatMap { category in
      let counts = byCategory[category]!
      return (0..<26).compactMap { letter -> LetterCountChange? in
        let change = LetterCountChange(
          letter: letter, category: category, matches: counts[letter * 3],
          counted: counts[letter * 3 + 1], starting: counts[letter * 3 + 2])
        return change.matches == 0 && change.counted == 0 && change.starting == 0 ? nil : change
      }
    }
  }
}
#endif
