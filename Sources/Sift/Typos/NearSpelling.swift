/// The typo rule (docs/ranking.md) on folded text: the cost of turning a term into the beginning of a
/// word by inserting, deleting or substituting letters or swapping two neighbours, where an edit
/// that touches the first letter of either counts twice. Letters are Unicode scalars, so a
/// misspelt Cyrillic or Greek name costs what a Latin one does.
///
/// `Row` is one column of the classic dynamic programme: the cost of each prefix of the term
/// against one prefix of the word. Adding the word's letters one at a time lets a sorted word
/// list share the rows of common prefixes (`TypoDictionary`), and a slot's words be checked one
/// by one (`SearchIndex.nearestWord`).
package enum NearSpelling {
  /// Costs stop growing here; no budget comes close.
  static let infinite: UInt8 = 100

  /// Whether a folded byte separates words: ASCII that is neither a letter nor a digit (space,
  /// punctuation, the 0 between values). Every other byte is part of a word.
  @inline(__always)
  static func isWordBoundary(_ byte: UInt8) -> Bool {
    byte < 0x80 && !(byte >= 0x30 && byte <= 0x39) && !(byte >= 0x61 && byte <= 0x7A)
      && !(byte >= 0x41 && byte <= 0x5A)
  }

  /// Calls `body` with the range of each word of `bytes[range]`: each run of bytes that do not
  /// separate words.
  @inline(__always)
  static func forEachWord(
    in bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>, _ body: (Range<Int>) -> Void
  ) {
    var offset = range.lowerBound
    let end = range.upperBound
    while offset < end {
      while offset < end, isWordBoundary(bytes[offset]) { offset += 1 }
      let start = offset
      while offset < end, !isWordBoundary(bytes[offset]) { offset += 1 }
      if offset > start { body(start..<offset) }
    }
  }

  /// The scalars of valid folded UTF-8.
  package static func scalars(_ bytes: some Collection<UInt8>) -> [UInt32] {
    var result: [UInt32] = []
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    while case .scalarValue(let scalar) = decoder.decode(&iterator) { result.append(scalar.value) }
    return result
  }

  /// The length of the UTF-8 sequence led by `byte` (1 for a stray continuation byte).
  @inline(__always)
  static func sequenceLength(_ byte: UInt8) -> Int {
    byte < 0xC0 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
  }

  /// The scalar at `offset` of valid UTF-8 and its length.
  @inline(__always)
  static func scalar(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (UInt32, Int) {
    let lead = bytes[offset]
    let length = sequenceLength(lead)
    guard length > 1, offset + length <= bytes.count else { return (UInt32(lead), 1) }
    var value = UInt32(lead) & (0xFF >> UInt32(length + 1))
    for next in 1..<length { value = value << 6 | UInt32(bytes[offset + next] & 0x3F) }
    return (value, length)
  }

  /// The rows of the programme for one term, back to back in one buffer.
  package struct Rows {
    let term: [UInt32]
    let budget: Int
    /// Row `j` (after `j` letters of the word; row 0 is the empty word) is
    /// `cells[j * width ..< (j + 1) * width]`; rows past `depth` are room for the next letters
    /// (a walk pushes and forgets letters millions of times: no appending or removing).
    private var cells: [UInt8]
    /// `storedLetters[j - 1]` is the word's `j`th letter, for `j` up to `depth`.
    private var storedLetters: [UInt32]
    /// The number of word letters the rows cover.
    private(set) var depth = 0
    private let width: Int

    package init(term: [UInt32], budget: Int) {
      self.term = term
      self.budget = budget
      width = term.count + 1
      cells = [UInt8](repeating: 0, count: width * 32)
      for i in 1..<width { cells[i] = cells[i - 1] &+ (i == 1 ? 2 : 1) }
      storedLetters = [UInt32](repeating: 0, count: 31)
    }

    /// The word's letter at `index` (below `depth`).
    @inline(__always)
    func letter(at index: Int) -> UInt32 { storedLetters[index] }

    /// Forgets the letters after the first `depth`.
    @inline(__always)
    mutating func truncate(to depth: Int) {
      self.depth = min(self.depth, depth)
    }

    /// Adds the word's next letter.
    mutating func push(_ letter: UInt32) {
      let j = depth + 1
      if (j + 1) * width > cells.count {
        cells.append(contentsOf: repeatElement(0, count: cells.count))
        storedLetters.append(contentsOf: repeatElement(0, count: storedLetters.count + 1))
      }
      let width = width
      let previousLetter = j > 1 ? storedLetters[j - 2] : 0
      term.withUnsafeBufferPointer { term in
        cells.withUnsafeMutableBufferPointer { cells in
          let previous = (j - 1) * width
          let current = j * width
          let edge: UInt8 = j == 1 ? 2 : 1
          cells[current] = min(NearSpelling.infinite, cells[previous] &+ edge)
          for i in 1..<width {
            var best = min(
              cells[previous + i] &+ edge, cells[current + i - 1] &+ (i == 1 ? 2 : 1))
            let substitution: UInt8 = term[i - 1] == letter ? 0 : (i == 1 || j == 1 ? 2 : 1)
            best = min(best, cells[previous + i - 1] &+ substitution)
            if i > 1, j > 1, term[i - 1] == previousLetter, term[i - 2] == letter {
              best = min(best, cells[(j - 2) * width + i - 2] &+ (i == 2 || j == 2 ? 2 : 1))
            }
            cells[current + i] = min(best, NearSpelling.infinite)
          }
        }
      }
      storedLetters[j - 1] = letter
      depth = j
    }

    /// What may follow the word's first `depth` letters without going over the budget.
    enum NextLetter: Equatable {
      /// The row has a cost below the budget: any letter may.
      case roomForAnEdit
      /// The smallest letter after the one asked about that may: one of the term's letters
      /// that extends a cell at the budget with a match.
      case letter(UInt32)
      /// No letter after the one asked about may.
      case noLetterAfter
    }

    /// When the row after `depth` letters has no cost below the budget, the only letters that
    /// can come next are the term's letters that extend a cell at the budget with a match: the
    /// smallest of them above `letter`.
    func nextLetter(after letter: UInt32, afterDepth depth: Int) -> NextLetter {
      let row = depth * width
      var lowest = NearSpelling.infinite
      for i in 0..<width where cells[row + i] < lowest { lowest = cells[row + i] }
      guard Int(lowest) == budget else { return .roomForAnEdit }
      var next: UInt32?
      for i in 0..<term.count where Int(cells[row + i]) == budget && term[i] > letter {
        if next.map({ term[i] < $0 }) ?? true { next = term[i] }
      }
      return next.map { .letter($0) } ?? .noLetterAfter
    }

    /// The cost of the whole term against the word's first `depth` letters.
    var cost: Int { Int(cells[depth * width + width - 1]) }
    /// No longer word can cost less than this.
    var floor: Int {
      var lowest = NearSpelling.infinite
      for cell in cells[(depth * width)..<(depth * width + width)] where cell < lowest {
        lowest = cell
      }
      return Int(lowest)
    }
  }

  /// The cheapest beginning of one word within `budget`: its cost and its length in bytes (the
  /// longest beginning of that cost, so "lisbn" highlights all of "lisbon").
  package static func bestPrefix(
    of word: UnsafeBufferPointer<UInt8>, rows: inout Rows
  ) -> (cost: Int, length: Int)? {
    rows.truncate(to: 0)
    // An edit of the first letter costs 2: over a budget of one, the first letters must agree.
    if rows.budget < 2, let first = rows.term.first, !word.isEmpty,
      scalar(at: 0, in: word).0 != first
    {
      return nil
    }
    var best: (cost: Int, length: Int)?
    var offset = 0
    while offset < word.count {
      let (letter, length) = scalar(at: offset, in: word)
      offset += length
      rows.push(letter)
      let cost = rows.cost
      if cost <= rows.budget, cost <= (best?.cost ?? .max) { best = (cost, offset) }
      if rows.floor > min(rows.budget, best?.cost ?? .max) { break }
    }
    return best
  }
}
