/// How a value written in another script is typed: the keys that find it besides its folded
/// text. Hangul by its initial consonants (`ㅅㅇ` for 서울), Han characters by their Mandarin
/// reading without tones (`beijing` for 北京, its initials `bj`, and from each syllable on:
/// `jing`), kana by Hepburn romaji (`toukyou` and `tokyo` for とうきょう).
///
/// An index keeps them in a column of their own beside each text column (`readingColumns`),
/// which only values with such letters fill, so a catalog without them carries nothing. Each
/// run of letters of one kind is written after a marker byte that says which (`Kind`), its
/// keys separated by spaces: "bj" then starts a word there as "beijing" does.
enum Readings {
  /// What a run of keys reads; its raw value is the byte written before the run, which
  /// folded text never holds (controls fold to spaces) and which separates words.
  enum Kind: UInt8, Sendable {
    case initialConsonants = 1
    case pinyin = 2
    case romaji = 3

    /// The words `--explain` says: "by pinyin".
    var name: String {
      switch self {
      case .initialConsonants: "initial consonants"
      case .pinyin: "pinyin"
      case .romaji: "romaji"
      }
    }
  }

  /// Written before the keys of a run that begin at a later syllable ("jing" of 北京), in place
  /// of a space: what tells a reading that starts the value from one inside it
  /// (`SearchIndex.readingPosition`). A control byte, so it separates words as a space does.
  static let laterSyllables: UInt8 = 4

  /// Readings of a run of Han characters, its most common one included: up to this many
  /// (重庆 is "chongqing" and "zhongqing"). Each costs a keystroke a look at its letters.
  static let mostVariants = 8
  /// Han runs up to this long get keys from each syllable on and every combination of
  /// readings; a longer run (a sentence, not a name) only its most common reading, whole.
  static let longestNamedRun = 12

  /// Appends the readings of `text` to `output`; returns false (appending nothing) when it
  /// has none.
  @discardableResult
  static func append(of text: String, to output: inout [UInt8]) -> Bool {
    let start = output.count
    output.append(Kind.initialConsonants.rawValue)
    if !TextFolding.appendInitialConsonants(of: text, to: &output) { output.removeLast() }
    forEachRun(of: text) { kind, words, whole in
      output.append(kind.rawValue)
      for (index, word) in words.enumerated() {
        if index > 0 { output.append(index == whole ? laterSyllables : UInt8(ascii: " ")) }
        for piece in word { output.append(contentsOf: piece.letters) }
      }
    }
    return output.count > start
  }

  /// Whether `scalar` may have a reading: a Hangul syllable, kana or a Han character. A quick
  /// test for the line folder, before `append`.
  @inline(__always)
  static func mayRead(_ scalar: UInt32) -> Bool {
    PinyinTable.mayRead(scalar) || (0xAC00...0xD7A3).contains(scalar)
      || (0xFF66...0xFF9F).contains(scalar)
  }

  /// Whether `text` has a reading.
  static func hasReading(_ text: String) -> Bool {
    var bytes: [UInt8] = []
    return append(of: text, to: &bytes)
  }

  /// The pinyin and romaji keys of `text` (not its initial consonants, which highlighting
  /// finds in `TextFolding.foldWithOrigins`), with, per byte, the UTF-8 range in `text` of the
  /// character it reads (empty for a marker or a separator).
  static func withOrigins(of text: String) -> (bytes: [UInt8], origins: [Range<Int>]) {
    var bytes: [UInt8] = []
    var origins: [Range<Int>] = []
    forEachRun(of: text) { kind, words, whole in
      bytes.append(kind.rawValue)
      origins.append(0..<0)
      for (index, word) in words.enumerated() {
        if index > 0 {
          bytes.append(index == whole ? laterSyllables : UInt8(ascii: " "))
          origins.append(0..<0)
        }
        for piece in word {
          bytes += piece.letters
          origins += repeatElement(piece.origin, count: piece.letters.count)
        }
      }
    }
    return (bytes, origins)
  }

  /// The kind of the run that holds byte `offset` of a reading column's `bytes`, whose value
  /// starts at `start`: the last marker before it.
  static func kind(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Kind? {
    var at = offset
    while at > start {
      at -= 1
      if bytes[at] < 4, let kind = Kind(rawValue: bytes[at]) { return kind }
      if bytes[at] == 0 { return nil }
    }
    return nil
  }

  /// A piece of a key: the letters one character adds, and where that character is.
  struct Piece {
    var letters: [UInt8]
    var origin: Range<Int>
  }

  /// Calls `body` with each run of Han characters or kana of `text`, in order, its keys, and
  /// how many of them read the whole run (the rest begin at a later syllable).
  private static func forEachRun(of text: String, _ body: (Kind, [[Piece]], Int) -> Void) {
    // Han, kana and the ideographic zero all have UTF-8 lead bytes E3…E9 (compatibility
    // ideographs and halfwidth katakana EF): most text has none.
    guard text.utf8.contains(where: { $0 >= 0xE3 && $0 <= 0xEF }) else { return }
    let characters = characters(of: text)
    var index = 0
    while index < characters.count {
      let scalar = characters[index].scalar
      if PinyinTable.mayRead(scalar), !PinyinTable.shared.readings(of: scalar).isEmpty {
        var end = index + 1
        while end < characters.count,
          !PinyinTable.shared.readings(of: characters[end].scalar).isEmpty
        {
          end += 1
        }
        let (keys, whole) = pinyinKeys(characters[index..<end])
        if !keys.isEmpty { body(.pinyin, keys, whole) }
        index = end
      } else if Romaji.reads(scalar) {
        var end = index + 1
        while end < characters.count, Romaji.reads(characters[end].scalar) { end += 1 }
        let keys = romajiKeys(characters[index..<end])
        if !keys.isEmpty { body(.romaji, keys, keys.count) }
        index = end
      } else {
        index += 1
      }
    }
  }

  /// The scalars of `text` as the tables read them, each with its range in `text`: katakana
  /// (full or halfwidth) as hiragana, a compatibility ideograph as its unified one. Not
  /// folded: folding drops the voicing marks (ド to と), which romaji keeps ("do"); a separate
  /// mark (゛ ゜, halfwidth ﾞ ﾟ) joins the kana before it.
  private static func characters(of text: String) -> [(scalar: UInt32, origin: Range<Int>)] {
    var characters: [(scalar: UInt32, origin: Range<Int>)] = []
    var offset = 0
    for scalar in text.unicodeScalars {
      let origin = offset..<offset + UTF8.width(scalar)
      offset = origin.upperBound
      var value = scalar.value
      switch value {
      case 0x30A1...0x30F6:
        value -= 0x60
      case 0xFF66...0xFF9D:
        // Halfwidth katakana: folding gives its hiragana (ｶ to か).
        value = TextFolding.fold(String(scalar)).unicodeScalars.first?.value ?? value
      case 0x3099, 0x309A, 0xFF9E, 0xFF9F:
        let semi = value == 0x309A || value == 0xFF9F
        if let last = characters.last, let marked = Romaji.voiced(last.scalar, semi: semi) {
          characters[characters.count - 1] = (marked, last.origin.lowerBound..<origin.upperBound)
          continue
        }
      case 0xF900...0xFAFF:
        value = TextFolding.fold(String(scalar)).unicodeScalars.first?.value ?? value
      default:
        break
      }
      characters.append((value, origin))
    }
    return characters
  }

  /// The keys of a run of Han characters: its readings whole and as initials (the most common,
  /// then one or two characters read another way, `mostVariants` in all), then, from each later
  /// syllable on, the most common reading. Each key once.
  private static func pinyinKeys(
    _ run: ArraySlice<(scalar: UInt32, origin: Range<Int>)>
  ) -> (keys: [[Piece]], whole: Int) {
    let readings = run.map { PinyinTable.shared.readings(of: $0.scalar) }
    let origins = run.map(\.origin)
    let named = run.count <= longestNamedRun
    var keys: [[Piece]] = []
    var seen: Set<[UInt8]> = []
    func add(_ key: [Piece]) {
      if seen.insert(key.flatMap(\.letters)).inserted { keys.append(key) }
    }
    func whole(_ choice: [Int], from first: Int = 0) -> [Piece] {
      (first..<readings.count).map { Piece(letters: readings[$0][choice[$0]], origin: origins[$0]) }
    }
    func initials(_ key: [Piece]) -> [Piece] {
      key.map { Piece(letters: [$0.letters[0]], origin: $0.origin) }
    }
    // The most common reading, then each character read another way while the rest keep
    // theirs — the way a name departs from the common readings, one character at a time
    // (重庆: 重 is "chong" there) — then each pair of characters read another way.
    let common = [Int](repeating: 0, count: readings.count)
    var choices = [common]
    if named {
      let departures = readings.indices.flatMap { index in
        readings[index].indices.dropFirst().map { (index, $0) }
      }
      for (index, reading) in departures {
        var choice = common
        choice[index] = reading
        choices.append(choice)
      }
      for (first, (a, readingA)) in departures.enumerated() {
        for (b, readingB) in departures[(first + 1)...] where b != a {
          guard choices.count < mostVariants else { break }
          var choice = common
          choice[a] = readingA
          choice[b] = readingB
          choices.append(choice)
        }
      }
    }
    for choice in choices.prefix(mostVariants) {
      let key = whole(choice)
      add(key)
      add(initials(key))
    }
    let wholeCount = keys.count
    guard named else { return (keys, wholeCount) }
    for first in 1..<max(1, readings.count) { add(whole(common, from: first)) }
    return (keys, wholeCount)
  }

  /// The keys of a run of kana: Hepburn as written, then with long vowels as typed when that
  /// differs.
  private static func romajiKeys(
    _ run: ArraySlice<(scalar: UInt32, origin: Range<Int>)>
  ) -> [[Piece]] {
    let letters = Romaji.read(run.map(\.scalar))
    let origins = run.map(\.origin)
    func key(_ letters: [[UInt8]]) -> [Piece] {
      zip(letters, origins).compactMap { $0.isEmpty ? nil : Piece(letters: $0, origin: $1) }
    }
    let written = key(letters)
    let typed = key(Romaji.collapsingLongVowels(letters))
    guard !written.isEmpty else { return [] }
    return typed.flatMap(\.letters) == written.flatMap(\.letters) ? [written] : [written, typed]
  }

  /// Whether a term may match readings: two or more letters a–z, as a word is typed (not a
  /// phrase, a synonym or words with spaces moved). One letter would match most of them.
  static func mayMatch(_ condition: TextCondition) -> Bool {
    !condition.isPhrase && condition.synonymOf == nil && !condition.movesSpaces
      && condition.needle.utf8.count >= 2
      && condition.needle.utf8.allSatisfy { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
  }
}
