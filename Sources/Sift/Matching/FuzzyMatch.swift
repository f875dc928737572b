/// Fuzzy matching like fzf's: the pattern's characters must appear in order in the text
/// (a subsequence), and a score prefers matches that are consecutive, start words and lie close
/// together. Both sides are folded first, so "dnang" finds "Đà Nẵng".
enum FuzzyMatch {
  // fzf's scores (its algorithm v2, what `fzf --filter` uses): +16 a matched byte; a bonus where
  // a word starts (10 after white space, 9 after a delimiter, 8 after other punctuation), 7 for
  // a digit after a non-digit, counted twice on the pattern's first byte; a run of consecutive
  // matches keeps the bonus of its first byte (at least 4); a gap costs 3 to open and 1 a byte.
  static let scoreMatch = 16
  static let gapStart = -3
  static let gapExtension = -1
  static let bonusBoundary = 8
  static let bonusNonWord = 8
  static let bonusBoundaryDelimiter = 9
  static let bonusBoundaryWhite = 10
  static let bonusCamel123 = 7
  static let bonusConsecutive = 4
  static let firstCharacterMultiplier = 2

  /// Reused rows of the score matrix, so that scoring many lines allocates once.
  struct Scratch {
    var bonus: [Int] = []
    var scores: [Int] = []
    var runs: [Int] = []
    var firsts: [Int] = []
    package init() {}
  }

  /// The score of `pattern` against `text` (both folded UTF-8), or nil when it is not a
  /// subsequence. Higher is better.
  ///
  /// The best alignment, as fzf's algorithm v2 finds it: "lhr" scores "London Heathrow Airport
  /// (LHR)" by its consecutive "(lhr)" after a delimiter, not by the first l, h and r a greedy
  /// scan meets.
  ///
  /// - Complexity: O(*n*) to find that it matches; then O(*n* × *m*) over the stretch from the
  ///   first place the pattern's first byte occurs to the last place its last byte does.
  static func score(
    _ pattern: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>,
    scratch: inout Scratch
  ) -> Int? {
    let m = pattern.count
    guard m > 0 else { return 0 }
    if m == 1 { return scoreOfOneByte(pattern[0], in: text) }
    guard endOfFirstMatch(pattern, in: text) != nil else { return nil }
    // The stretch: the first place of the first byte, the last place of the last byte.
    var first = 0
    while text[first] != pattern[0] { first += 1 }
    var last = text.count - 1
    while text[last] != pattern[m - 1] { last -= 1 }
    let width = last - first + 1
    // Where each pattern byte can first match (the greedy scan), and each place's bonus.
    scratch.firsts.removeAll(keepingCapacity: true)
    scratch.bonus.removeAll(keepingCapacity: true)
    var previous = first > 0 ? Self.characterClass(text[first - 1]) : .white
    var next = 0
    for column in first...last {
      let byte = text[column]
      let kind = Self.characterClass(byte)
      scratch.bonus.append(Self.bonus(after: previous, at: kind))
      previous = kind
      if next < m, byte == pattern[next] {
        scratch.firsts.append(column)
        next += 1
      }
    }
    let cells = m * width
    if scratch.scores.count < cells {
      scratch.scores = [Int](repeating: 0, count: cells)
      scratch.runs = [Int](repeating: 0, count: cells)
    }
    var best = 0
    // The first row: the pattern's first byte at each place, or a gap since the last one.
    var inGap = false
    var left = 0
    for offset in 0..<width {
      let score: Int
      if text[first + offset] == pattern[0] {
        score = scoreMatch + scratch.bonus[offset] * firstCharacterMultiplier
        scratch.runs[offset] = 1
        inGap = false
      } else {
        score = max(left + (inGap ? gapExtension : gapStart), 0)
        scratch.runs[offset] = 0
        inGap = true
      }
      scratch.scores[offset] = score
      left = score
    }
    for row in 1..<m {
      let byte = pattern[row]
      let base = row * width
      let above = base - width
      inGap = false
      for column in scratch.firsts[row]...last {
        let offset = column - first
        let fromLeft =
          (column == scratch.firsts[row] ? 0 : scratch.scores[base + offset - 1])
          + (inGap ? gapExtension : gapStart)
        var diagonal = 0
        var run = 0
        if text[column] == byte {
          diagonal = scratch.scores[above + offset - 1] + scoreMatch
          var bonus = scratch.bonus[offset]
          run = scratch.runs[above + offset - 1] + 1
          if run > 1 {
            let runBonus = scratch.bonus[offset - run + 1]
            // A word start inside a run starts a run of its own.
            if bonus >= bonusBoundary && bonus > runBonus {
              run = 1
            } else {
              bonus = max(bonus, max(bonusConsecutive, runBonus))
            }
          }
          if diagonal + bonus < fromLeft {
            diagonal += scratch.bonus[offset]
            run = 0
          } else {
            diagonal += bonus
          }
        }
        scratch.runs[base + offset] = run
        inGap = diagonal < fromLeft
        let score = max(diagonal, fromLeft, 0)
        if row == m - 1 && score > best { best = score }
        scratch.scores[base + offset] = score
      }
    }
    return best
  }

  /// A one-byte pattern's score, as the first row of `score` would give it without filling the
  /// row: the best place of the byte, the first one at a word start ending the search (fzf's
  /// rule). Nil when the byte is not there.
  private static func scoreOfOneByte(_ byte: UInt8, in text: UnsafeBufferPointer<UInt8>) -> Int? {
    var best: Int?
    var index = 0
    while index < text.count {
      if text[index] == byte {
        let previous = index > 0 ? characterClass(text[index - 1]) : .white
        let bonus = self.bonus(after: previous, at: characterClass(byte))
        let score = scoreMatch + bonus * firstCharacterMultiplier
        if score > best ?? 0 {
          best = score
          if bonus >= bonusBoundary { return best }
        }
      }
      index += 1
    }
    return best
  }

  /// Where the first complete subsequence of `pattern` (not empty) ends in `text`, or nil when
  /// `pattern` is not a subsequence of it: the forward scan of `score`, and all that a filter
  /// needs to know whether a line can match.
  @inline(__always)
  static func endOfFirstMatch(
    _ pattern: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>
  ) -> Int? {
    guard pattern.count <= text.count, let patternBase = pattern.baseAddress,
      let textBase = text.baseAddress
    else { return nil }
    // One tight loop per pattern byte: faster than one loop over the text that switches bytes.
    var position = 0
    for offset in 0..<pattern.count {
      let wanted = patternBase[offset]
      while position < text.count && textBase[position] != wanted { position += 1 }
      guard position < text.count else { return nil }
      position += 1
    }
    return position - 1
  }

  /// fzf's kinds of character, of folded text (no capitals: every letter is lower case, and a
  /// byte of a character past ASCII is a letter).
  enum CharacterClass: Int, Comparable {
    case white, nonWord, delimiter, lower, letter, number

    static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
  }

  @inline(__always)
  static func characterClass(_ byte: UInt8) -> CharacterClass {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"): .lower
    case UInt8(ascii: "0")...UInt8(ascii: "9"): .number
    case 0x80...: .letter
    case 0x20, 0x09, 0x0A, 0x0D: .white
    case UInt8(ascii: "/"), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: ";"),
      UInt8(ascii: "|"):
      .delimiter
    default: .nonWord
    }
  }

  /// fzf's bonus for a match at a character of `kind` after one of `previous`.
  @inline(__always)
  static func bonus(after previous: CharacterClass, at kind: CharacterClass) -> Int {
    if kind > .nonWord {
      switch previous {
      case .white: return bonusBoundaryWhite
      case .delimiter: return bonusBoundaryDelimiter
      case .nonWord: return bonusBoundary
      default: break
      }
    }
    if previous != .number && kind == .number { return bonusCamel123 }
    switch kind {
    case .nonWord, .delimiter: return bonusNonWord
    case .white: return bonusBoundaryWhite
    default: return 0
    }
  }

  /// Convenience for strings: folds both and scores.
  static func score(_ pattern: String, in text: String) -> Int? {
    let pattern = Array(TextFolding.fold(pattern).utf8)
    let text = Array(TextFolding.fold(text).utf8)
    var scratch = Scratch()
    return pattern.withUnsafeBufferPointer { p in
      text.withUnsafeBufferPointer { t in score(p, in: t, scratch: &scratch) }
    }
  }
}
