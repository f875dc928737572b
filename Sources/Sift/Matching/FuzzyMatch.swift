/// Fuzzy matching like fzf's: the pattern's characters must appear in order in the text
/// (a subsequence), and a score prefers matches that are consecutive, start words and lie close
/// together. Both sides are folded first, so "dnang" finds "Đà Nẵng".
package enum FuzzyMatch {
  // Scores after fzf's algorithm v1: +16 a matched byte, bonuses where words start, a penalty
  // for each gap that opens (-3) and grows (-1).
  static let scoreMatch = 16
  static let gapStart = -3
  static let gapExtension = -1
  static let bonusBoundary = 8
  static let bonusWhitespaceBoundary = 10
  static let bonusConsecutive = 4
  static let firstCharacterMultiplier = 2

  /// The score of `pattern` against `text` (both folded UTF-8), or nil when it is not a
  /// subsequence. Higher is better.
  ///
  /// - Complexity: O(*n*) in the text's length: a forward scan finds the first complete match,
  ///   a backward scan from its end the shortest window, and only that window is scored.
  package static func score(
    _ pattern: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>
  ) -> Int? {
    guard !pattern.isEmpty else { return 0 }
    guard let end = endOfFirstMatch(pattern, in: text) else { return nil }
    // Backward: the latest start of a match ending there.
    var p = pattern.count - 1
    var start = end
    var index = end
    while index >= 0 {
      if text[index] == pattern[p] {
        if p == 0 {
          start = index
          break
        }
        p -= 1
      }
      index -= 1
    }
    return scoreWindow(pattern, text, start: start, end: end)
  }

  /// Where the first complete subsequence of `pattern` (not empty) ends in `text`, or nil when
  /// `pattern` is not a subsequence of it: the forward scan of `score`, and all that a filter
  /// needs to know whether a line can match.
  @inline(__always)
  package static func endOfFirstMatch(
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

  /// Scores the greedy match of `pattern` inside `text[start...end]`.
  private static func scoreWindow(
    _ pattern: UnsafeBufferPointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>, start: Int, end: Int
  ) -> Int {
    var score = 0
    var p = 0
    var inGap = false
    var consecutive = 0
    var firstBonus = 0
    for index in start...end {
      let byte = text[index]
      if p < pattern.count, byte == pattern[p] {
        score += scoreMatch
        var bonus = self.bonus(at: index, in: text)
        if consecutive == 0 {
          firstBonus = bonus
        } else {
          // A run keeps the bonus of its first character, as fzf does.
          if bonus >= bonusBoundary && bonus > firstBonus { firstBonus = bonus }
          bonus = max(bonus, firstBonus, bonusConsecutive)
        }
        score += p == 0 ? bonus * firstCharacterMultiplier : bonus
        inGap = false
        consecutive += 1
        p += 1
      } else {
        score += inGap ? gapExtension : gapStart
        inGap = true
        consecutive = 0
        firstBonus = 0
      }
    }
    return score
  }

  /// The bonus for matching at `index`: high at the start and after spaces, lower after
  /// punctuation, none inside a word.
  @inline(__always)
  private static func bonus(at index: Int, in text: UnsafeBufferPointer<UInt8>) -> Int {
    guard index > 0 else { return bonusWhitespaceBoundary }
    let previous = text[index - 1]
    if previous == 0x20 { return bonusWhitespaceBoundary }
    let isWordByte =
      previous >= 0x80 || (previous >= 0x30 && previous <= 0x39)
      || (previous >= 0x61 && previous <= 0x7A)
    return isWordByte ? 0 : bonusBoundary
  }

  /// Convenience for strings: folds both and scores.
  package static func score(_ pattern: String, in text: String) -> Int? {
    let pattern = Array(TextFolding.fold(pattern).utf8)
    let text = Array(TextFolding.fold(text).utf8)
    return pattern.withUnsafeBufferPointer { p in
      text.withUnsafeBufferPointer { t in score(p, in: t) }
    }
  }
}
