import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The distinct folded words of one text column, sorted, each with the slots that hold it:
/// where a misspelt term looks for its near spellings, so it walks a few thousand words of a
/// sorted list (sharing the work of common beginnings, like a trie) instead of all the text.
///
/// Built once per column on the first search that needs it. It covers the slots that existed
/// then (`slotCount`); slots added later are checked one by one. A slot's text never changes:
/// an edit kills the slot and appends a new one, and compaction renumbers by dropping the
/// dictionaries — so a slot it lists below `slotCount` holds the word, or is no longer live,
/// which lets a lone misspelt term skip checking the text of what it lists.
final class TypoDictionary: Sendable {
  /// The words in byte order (which is scalar order), back to back.
  let words: IndexBuffer<UInt8>
  /// `words[wordStarts[w]..<wordStarts[w + 1]]` is word `w`.
  let wordStarts: IndexBuffer<UInt32>
  /// `postings[postingStarts[w]..<postingStarts[w + 1]]`: the slots holding word `w`, ascending.
  let postingStarts: IndexBuffer<UInt32>
  /// Borrowed from a mapped file, these are checked where they are read, not all on opening.
  let postings: IndexBuffer<Int32>
  /// The slots this dictionary covers: `0..<slotCount`.
  let slotCount: Int
  /// How long building (or reading it from a catalog file) took, for `sift bench`.
  let buildSeconds: Double
  /// Whether it was read from a catalog file rather than built.
  let wasStored: Bool
  /// The runs of recent terms: the same misspelling, or the same word typed by many people,
  /// walks the list once (a served keystroke and its facets both ask; the walk was a fifth of
  /// `sift serve`'s time under load). The dictionary never changes, so its runs stay right.
  private let recentRuns = RecentNearRuns()
  /// Where each first letter's words end, found on first use (`firstLetterEnds`).
  private let firstLetterEndsFound = Locked<[Int]?>(nil)

  var wordCount: Int { wordStarts.count - 1 }

  /// Bytes held: words, their offsets, postings.
  var memoryBytes: Int {
    words.count + (wordStarts.count + postingStarts.count + postings.count) * 4
  }

  /// Collects the words of `column`.
  ///
  /// - Complexity: O(*n*) in the column's bytes to find the distinct words (a hash table), then
  ///   O(*w* log *w*) to sort the *w* distinct ones.
  init(column: FoldedColumn) {
    let started = DispatchTime.now()
    slotCount = column.slotCount
    var lastSlot: [Int32] = []
    // Each slot's distinct words, slot after slot: where a slot's start is all that is kept of
    // it (a slot per occurrence cost the build a third more memory).
    var occurrenceWord: [Int32] = []
    var slotOccurrences: [UInt32] = [0]
    slotOccurrences.reserveCapacity(column.slotCount + 1)
    let (firstOffset, length) = column.withUnsafeBytes { bytes, starts in
      var table = WordTable(capacity: max(1024, bytes.count / 16))
      for slot in 0..<(starts.count - 1) {
        NearSpelling.forEachWord(in: bytes, range: Int(starts[slot])..<Int(starts[slot + 1])) {
          word in
          let (id, isNew) = table.id(
            of: UnsafeBufferPointer(rebasing: bytes[word]), at: word.lowerBound, in: bytes)
          if isNew { lastSlot.append(-1) }
          if lastSlot[Int(id)] != Int32(slot) {
            lastSlot[Int(id)] = Int32(slot)
            occurrenceWord.append(id)
          }
        }
        slotOccurrences.append(UInt32(truncatingIfNeeded: occurrenceWord.count))
      }
      return (table.firstOffset, table.length)
    }
    lastSlot = []
    // Sort the words: by their first eight bytes packed big-endian, then the rest.
    let (sortedWords, sortedStarts, order) = column.withUnsafeBytes { bytes, _ in
      var keys = [(key: UInt64, id: Int32)]()
      keys.reserveCapacity(firstOffset.count)
      for id in firstOffset.indices {
        var key: UInt64 = 0
        let start = Int(firstOffset[id])
        let count = Int(length[id])
        for k in 0..<8 { key = key << 8 | UInt64(k < count ? bytes[start + k] : 0) }
        keys.append((key, Int32(id)))
      }
      keys.sort { a, b in
        if a.key != b.key { return a.key < b.key }
        let lengthA = Int(length[Int(a.id)])
        let lengthB = Int(length[Int(b.id)])
        let shared = min(lengthA, lengthB) - 8
        if shared > 0 {
          let order = memcmp(
            bytes.baseAddress! + Int(firstOffset[Int(a.id)]) + 8,
            bytes.baseAddress! + Int(firstOffset[Int(b.id)]) + 8, shared)
          if order != 0 { return order < 0 }
        }
        return lengthA < lengthB
      }
      var words: [UInt8] = []
      words.reserveCapacity(length.reduce(0) { $0 + Int($1) })
      var starts: [UInt32] = [0]
      starts.reserveCapacity(keys.count + 1)
      for entry in keys {
        let start = Int(firstOffset[Int(entry.id)])
        words.append(contentsOf: bytes[start..<start + Int(length[Int(entry.id)])])
        starts.append(UInt32(truncatingIfNeeded: words.count))
      }
      return (words, starts, keys.map(\.id))
    }
    var position = [Int32](repeating: 0, count: order.count)
    for (sorted, id) in order.enumerated() { position[Int(id)] = Int32(sorted) }
    var counts = [UInt32](repeating: 0, count: order.count + 1)
    for id in occurrenceWord { counts[Int(position[Int(id)]) + 1] += 1 }
    for w in 0..<order.count { counts[w + 1] += counts[w] }
    var postings = [Int32](repeating: 0, count: occurrenceWord.count)
    var next = counts
    for slot in 0..<(slotOccurrences.count - 1) {
      for occurrence in Int(slotOccurrences[slot])..<Int(slotOccurrences[slot + 1]) {
        let w = Int(position[Int(occurrenceWord[occurrence])])
        postings[Int(next[w])] = Int32(slot)
        next[w] += 1
      }
    }
    words = IndexBuffer(sortedWords)
    wordStarts = IndexBuffer(sortedStarts)
    postingStarts = IndexBuffer(counts)
    self.postings = IndexBuffer(postings)
    buildSeconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
    wasStored = false
  }

  /// A dictionary read back from `NearSpellingArchive` bytes.
  private init(
    words: IndexBuffer<UInt8>, wordStarts: IndexBuffer<UInt32>,
    postingStarts: IndexBuffer<UInt32>, postings: IndexBuffer<Int32>, slotCount: Int,
    readSeconds: Double
  ) {
    self.words = words
    self.wordStarts = wordStarts
    self.postingStarts = postingStarts
    self.postings = postings
    self.slotCount = slotCount
    buildSeconds = readSeconds
    wasStored = true
  }

  func write(to writer: inout ArchiveWriter) {
    writer.append(UInt64(slotCount))
    writer.appendArray(words)
    writer.appendArray(wordStarts)
    writer.appendArray(postingStarts)
    writer.appendArray(postings)
  }

  /// The dictionary at the reader's offset, its offsets checked so that no lookup can fall
  /// outside its buffers (a checksum has vouched for the rest, such as the words' order; the
  /// slots in the postings are checked where they are read).
  static func read(
    from reader: inout ArchiveReader, slotLimit: Int, started: DispatchTime
  ) throws(IndexArchive.Failure) -> TypoDictionary {
    let slotCount = Int(clamping: try reader.read() as UInt64)
    let words: IndexBuffer<UInt8> = try reader.readBuffer()
    let wordStarts: IndexBuffer<UInt32> = try reader.readBuffer()
    let postingStarts: IndexBuffer<UInt32> = try reader.readBuffer()
    let postings: IndexBuffer<Int32> = try reader.readBuffer()
    guard slotCount <= slotLimit,
      reader.holds({
        wordStarts.areOffsets(into: words.count) && postingStarts.areOffsets(into: postings.count)
      }),
      wordStarts.count == postingStarts.count
    else { throw .damaged("near-spelling dictionary") }
    return TypoDictionary(
      words: words, wordStarts: wordStarts, postingStarts: postingStarts, postings: postings,
      slotCount: slotCount,
      readSeconds: Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9)
  }

  /// Calls `body` with each run of words (sorted positions) whose beginning is within the
  /// term's budget; the runs do not overlap.
  ///
  /// The sorted list is walked as a trie: consecutive words share the rows of their common
  /// beginning, a beginning already over budget skips every word that starts with it, and one
  /// within budget takes them all.
  func forEachNearWordRun(
    term: [UInt32], budget: Int, _ body: (Range<Int>) -> Void
  ) {
    nearWordRuns(term: term, budget: budget).forEach(body)
  }

  /// The runs `forEachNearWordRun` calls its body with.
  ///
  /// A term is typed a letter at a time, and a word near the term with one more letter is near
  /// the term without it at the same budget (an alignment of the longer term, cut before its
  /// last letter, aligns the shorter one with a beginning of the word at no greater cost): so
  /// when the term one letter shorter was walked at this budget, only its runs are walked.
  func nearWordRuns(term: [UInt32], budget: Int) -> [Range<Int>] {
    guard !term.isEmpty, wordCount > 0 else { return [] }
    let key = RecentNearRuns.Key(term: term, budget: budget)
    if let runs = recentRuns[key] { return runs }
    let shorter =
      term.count > 1
      ? recentRuns[RecentNearRuns.Key(term: Array(term.dropLast()), budget: budget)] : nil
    var runs: [Range<Int>] = []
    walkNearWordRuns(term: term, budget: budget, within: shorter ?? [0..<wordCount]) {
      runs.append($0)
    }
    recentRuns[key] = runs
    return runs
  }

  /// How many postings the words of `runs` have.
  func postingCount(inRuns runs: [Range<Int>]) -> Int {
    runs.reduce(0) { $0 + postingCount(inWords: $1) }
  }

  /// The walk behind `nearWordRuns`, over the words of `ranges` (ascending, not overlapping).
  ///
  /// Where a beginning's words end is remembered along the path (`PathEnds`), so that leaving
  /// a beginning, or jumping to its next possible letter, searches only among its own words —
  /// and the words of each first letter end where `firstLetterEnds` says, found once.
  private func walkNearWordRuns(
    term: [UInt32], budget: Int, within ranges: [Range<Int>], _ body: (Range<Int>) -> Void
  ) {
    var rows = NearSpelling.Rows(term: term, budget: budget)
    // The beginning of the next sibling a jump lands on, reused.
    var target: [UInt8] = []
    var candidates = 0..<wordCount
    if budget < 2 {
      // An edit of the first letter costs two: every near word starts with the term's.
      var first: [UInt8] = []
      UTF8.encode(Unicode.Scalar(term[0]) ?? " ") { first.append($0) }
      candidates = run(of: first, asPrefix: true)
    }
    // Below two edits the walk stays among the term's first letter's words: their end is the
    // only one it needs.
    let firstLetterEnds = budget < 2 ? [candidates.upperBound] : self.firstLetterEnds
    words.withUnsafeBufferPointer { words in
      wordStarts.withUnsafeBufferPointer { starts in
        var path = PathEnds(wordCount: wordCount, firstLetterEnds: firstLetterEnds)
        for range in ranges {
          var w = max(range.lowerBound, candidates.lowerBound)
          let last = min(range.upperBound, candidates.upperBound)
          while w < last {
            let word = Self.word(w, words: words, starts: starts)
            // Keep the rows of the beginning this word shares with the path walked so far.
            var offset = 0
            var common = 0
            while common < rows.depth, offset < word.count {
              let (letter, length) = NearSpelling.scalar(at: offset, in: word)
              guard letter == rows.letter(at: common) else { break }
              offset += length
              common += 1
            }
            rows.truncate(to: common)
            var skipTo = w + 1
            while offset < word.count {
              let (letter, length) = NearSpelling.scalar(at: offset, in: word)
              let parentEnd = offset
              offset += length
              rows.push(letter)
              path.forget(depth: rows.depth)
              guard rows.cost <= budget || rows.floor > budget else { continue }
              let depth = rows.depth
              let end = path.end(atDepth: depth, from: w, words: words, starts: starts)
              if rows.cost <= budget {
                body(w..<min(end, last))
                skipTo = end
                break
              }
              skipTo = end
              // Over budget. If the parent left no room for an edit, only a few letters can
              // follow it: jump to the next of them instead of trying every sibling.
              switch rows.nextLetter(after: letter, afterDepth: depth - 1) {
              case .roomForAnEdit:
                break
              case .letter(let next):
                target.removeAll(keepingCapacity: true)
                target.append(contentsOf: word[0..<parentEnd])
                UTF8.encode(Unicode.Scalar(next) ?? " ") { target.append($0) }
                let parent = path.end(
                  atDepth: depth - 1, from: end - 1, words: words, starts: starts)
                skipTo = target.withUnsafeBufferPointer {
                  Self.lowerBound(
                    $0, from: end, below: parent, galloping: true, words: words, starts: starts)
                }
              case .noLetterAfter:
                skipTo = path.end(atDepth: depth - 1, from: end - 1, words: words, starts: starts)
              }
              break
            }
            w = skipTo
          }
        }
      }
    }
  }

  /// Where the words sharing each beginning of the walk's path end, found as the walk needs
  /// them: the path's beginnings change only below the depth a word shares with the last.
  private struct PathEnds {
    /// `ends[d]`: the end of the words that share the path's first `d` letters; -1 unknown.
    private var ends: [Int]
    /// Where each first letter's words end (`TypoDictionary.firstLetterEnds`).
    let firstLetterEnds: [Int]

    init(wordCount: Int, firstLetterEnds: [Int]) {
      ends = [Int](repeating: -1, count: 32)
      ends[0] = wordCount
      self.firstLetterEnds = firstLetterEnds
    }

    /// Forgets the end at `depth`: the path has a new letter there.
    @inline(__always)
    mutating func forget(depth: Int) {
      if depth == ends.count { ends.append(-1) } else { ends[depth] = -1 }
    }

    /// The end of the words sharing the path's first `depth` letters, word `w` among them
    /// (searched from it on, within the parent's words where known).
    mutating func end(
      atDepth depth: Int, from w: Int, words: UnsafeBufferPointer<UInt8>,
      starts: UnsafeBufferPointer<UInt32>
    ) -> Int {
      if ends[depth] >= 0 { return ends[depth] }
      let found: Int
      if depth == 1 {
        found = TypoDictionary.firstLetterEnd(of: w, in: firstLetterEnds)
      } else {
        let word = TypoDictionary.word(w, words: words, starts: starts)
        var offset = 0
        for _ in 0..<depth { offset += NearSpelling.sequenceLength(word[offset]) }
        found = TypoDictionary.end(
          ofPrefix: UnsafeBufferPointer(rebasing: word[0..<offset]), from: w,
          below: ends[depth - 1] >= 0 ? ends[depth - 1] : ends[0], words: words, starts: starts)
      }
      ends[depth] = found
      return found
    }
  }

  /// Where the words of each first letter end, ascending: found once, on the first walk with
  /// room to edit a first letter, which would otherwise search for each letter's end.
  private var firstLetterEnds: [Int] {
    firstLetterEndsFound.withLock { found in
      if let found { return found }
      var ends: [Int] = []
      words.withUnsafeBufferPointer { words in
        wordStarts.withUnsafeBufferPointer { starts in
          var w = 0
          while w < wordCount {
            let word = Self.word(w, words: words, starts: starts)
            let first = word.isEmpty ? 0 : NearSpelling.sequenceLength(word[0])
            w =
              word.isEmpty
              ? w + 1
              : Self.end(
                ofPrefix: UnsafeBufferPointer(rebasing: word[0..<min(first, word.count)]), from: w,
                below: wordCount, words: words, starts: starts)
            ends.append(w)
          }
        }
      }
      found = ends
      return ends
    }
  }

  /// The end of the words that start with word `w`'s first letter.
  private static func firstLetterEnd(of w: Int, in ends: [Int]) -> Int {
    var low = 0
    var high = ends.count
    while low < high {
      let mid = (low + high) / 2
      if ends[mid] <= w { low = mid + 1 } else { high = mid }
    }
    return ends[low]
  }

  @inline(__always)
  private static func word(
    _ w: Int, words: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<UInt32>
  ) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: words[Int(starts[w])..<Int(starts[w + 1])])
  }

  /// Whether word `w` comes before `bytes` in byte order.
  @inline(__always)
  private static func word(
    _ w: Int, precedes bytes: UnsafeBufferPointer<UInt8>, words: UnsafeBufferPointer<UInt8>,
    starts: UnsafeBufferPointer<UInt32>
  ) -> Bool {
    let word = Self.word(w, words: words, starts: starts)
    let shared = min(word.count, bytes.count)
    let order = shared == 0 ? 0 : memcmp(word.baseAddress!, bytes.baseAddress!, shared)
    return order < 0 || (order == 0 && word.count < bytes.count)
  }

  /// The first word in `from..<limit` that is not before `bytes`, or `limit`: `galloping`
  /// from `from` where it is likely near (a jump to a sibling's next letter), else halving.
  private static func lowerBound(
    _ bytes: UnsafeBufferPointer<UInt8>, from: Int, below limit: Int, galloping: Bool,
    words: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<UInt32>
  ) -> Int {
    var low = from
    var high = limit
    if galloping {
      high = from
      var step = 1
      while high < limit, word(high, precedes: bytes, words: words, starts: starts) {
        low = high + 1
        high = from + step
        step *= 2
      }
      high = min(high, limit)
    }
    while low < high {
      let mid = (low + high) / 2
      if word(mid, precedes: bytes, words: words, starts: starts) {
        low = mid + 1
      } else {
        high = mid
      }
    }
    return low
  }

  /// The first word in `from + 1..<limit` that does not start with `prefix` (word `from`
  /// does), or `limit`: galloping first, since most runs skipped are short, then binary search.
  private static func end(
    ofPrefix prefix: UnsafeBufferPointer<UInt8>, from: Int, below limit: Int,
    words: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<UInt32>
  ) -> Int {
    func starting(_ w: Int) -> Bool {
      let start = Int(starts[w])
      return Int(starts[w + 1]) - start >= prefix.count
        && memcmp(words.baseAddress! + start, prefix.baseAddress!, prefix.count) == 0
    }
    var low = from + 1
    var step = 1
    var high = low
    while high < limit, starting(high) {
      low = high + 1
      high = from + 1 + step
      step *= 2
    }
    high = min(high, limit)
    while low < high {
      let mid = (low + high) / 2
      if starting(mid) { low = mid + 1 } else { high = mid }
    }
    return low
  }

  /// The words equal to `word` (one or none) or, with `asPrefix`, every word starting with it:
  /// where the parts of a word with its spaces moved look for their slots.
  func run(of word: [UInt8], asPrefix: Bool) -> Range<Int> {
    guard !word.isEmpty, wordCount > 0 else { return 0..<0 }
    return words.withUnsafeBufferPointer { words in
      wordStarts.withUnsafeBufferPointer { starts in
        word.withUnsafeBufferPointer { word in
          let first = Self.lowerBound(
            word, from: 0, below: wordCount, galloping: false, words: words, starts: starts)
          guard first < wordCount, Self.word(first, words: words, starts: starts).starts(with: word)
          else { return first..<first }
          if !asPrefix {
            return Self.word(first, words: words, starts: starts).count == word.count
              ? first..<first + 1 : first..<first
          }
          return
            first..<Self.end(
              ofPrefix: word, from: first, below: wordCount, words: words, starts: starts)
        }
      }
    }
  }

  /// How many postings the words in `run` have: what iterating them costs.
  func postingCount(inWords run: Range<Int>) -> Int {
    run.isEmpty ? 0 : Int(postingStarts[run.upperBound]) - Int(postingStarts[run.lowerBound])
  }

  /// Calls `body` with the slots of the words in `run`.
  func forEachSlot(inWords run: Range<Int>, _ body: (Int32) -> Void) {
    let slotCount = Int32(self.slotCount)
    postings.withUnsafeBufferPointer { postings in
      for slot in postings[Int(postingStarts[run.lowerBound])..<Int(postingStarts[run.upperBound])]
      where slot >= 0 && slot < slotCount {
        body(slot)
      }
    }
  }

  /// The words of a run, for tests and `--explain`.
  func word(_ w: Int) -> String {
    String(decoding: words[Int(wordStarts[w])..<Int(wordStarts[w + 1])], as: UTF8.self)
  }
}

/// Open addressing from a word's bytes to its id while a dictionary is built; ids count up from
/// 0 in order of first appearance, and each keeps where the word first appeared.
private struct WordTable {
  private var slots: [Int32]
  private var mask: Int
  private(set) var firstOffset: [UInt32] = []
  private(set) var length: [UInt32] = []

  init(capacity: Int) {
    var size = 1
    while size < capacity * 2 { size <<= 1 }
    slots = [Int32](repeating: -1, count: size)
    mask = size - 1
  }

  /// The id of `word`, which starts at `offset` of `bytes`; a new word gets the next id.
  mutating func id(
    of word: UnsafeBufferPointer<UInt8>, at offset: Int, in bytes: UnsafeBufferPointer<UInt8>
  ) -> (id: Int32, isNew: Bool) {
    var probe = Self.hash(word) & mask
    while true {
      let id = slots[probe]
      if id < 0 { break }
      if Int(length[Int(id)]) == word.count,
        memcmp(bytes.baseAddress! + Int(firstOffset[Int(id)]), word.baseAddress!, word.count) == 0
      {
        return (id, false)
      }
      probe = (probe + 1) & mask
    }
    let id = Int32(firstOffset.count)
    slots[probe] = id
    firstOffset.append(UInt32(truncatingIfNeeded: offset))
    length.append(UInt32(truncatingIfNeeded: word.count))
    if firstOffset.count * 2 > slots.count { grow(bytes: bytes) }
    return (id, true)
  }

  private mutating func grow(bytes: UnsafeBufferPointer<UInt8>) {
    var bigger = [Int32](repeating: -1, count: slots.count * 2)
    let biggerMask = bigger.count - 1
    for id in slots where id >= 0 {
      let start = Int(firstOffset[Int(id)])
      let word = UnsafeBufferPointer(rebasing: bytes[start..<start + Int(length[Int(id)])])
      var probe = Self.hash(word) & biggerMask
      while bigger[probe] >= 0 { probe = (probe + 1) & biggerMask }
      bigger[probe] = id
    }
    slots = bigger
    mask = biggerMask
  }

  /// FNV-1a.
  @inline(__always)
  private static func hash(_ word: UnsafeBufferPointer<UInt8>) -> Int {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in word { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return Int(truncatingIfNeeded: hash ^ (hash >> 29))
  }
}

/// The word dictionaries of an index's text columns, each built the first time a search needs
/// it. Copies of an index (a search on a worker thread) share them, so one build serves all;
/// compaction, which renumbers slots, starts a new set.
final class TypoDictionaries: Sendable {
  private struct State {
    var built: [Int: TypoDictionary] = [:]
    /// Reads the dictionaries a catalog file keeps, tried once on the first need.
    var stored: (@Sendable () -> [Int: TypoDictionary]?)?
  }

  private let state: Locked<State>

  init(stored: (@Sendable () -> [Int: TypoDictionary]?)? = nil) {
    state = Locked(State(stored: stored))
  }

  /// The dictionary of `column`: read from the file, else built by `make` if it is not yet.
  func dictionary(column: Int, make: () -> TypoDictionary) -> TypoDictionary {
    state.withLock { state in
      if let read = state.stored {
        state.stored = nil
        if let dictionaries = read() { state.built.merge(dictionaries) { kept, _ in kept } }
      }
      if let dictionary = state.built[column] { return dictionary }
      let dictionary = make()
      state.built[column] = dictionary
      return dictionary
    }
  }

  /// The dictionary of `column` if it was built or read already (the file is not read).
  func existing(column: Int) -> TypoDictionary? {
    state.withLock { $0.built[column] }
  }

  /// The dictionaries built so far.
  var all: [TypoDictionary] { state.withLock { Array($0.built.values) } }
}

extension SearchIndex {
  /// The word dictionary of a text column.
  func typoDictionary(column: Int) -> TypoDictionary {
    typoDictionaries.dictionary(column: column) { TypoDictionary(column: columns[column]) }
  }

  /// Builds the word dictionaries of every searchable text column now, so that the first
  /// misspelt query does not wait for them (an app calls it off the main thread after opening
  /// a large catalog).
  package func prepareNearSpellings() {
    for column in textFields.indices where textFields[column].isSearchable {
      _ = typoDictionary(column: column)
    }
  }

  /// What the near-spelling dictionaries built (or read) so far hold and cost, and whether
  /// they were all read from a catalog file.
  package var nearSpellingMemory: (words: Int, bytes: Int, buildSeconds: Double, wereStored: Bool) {
    let all = typoDictionaries.all
    return all.reduce((0, 0, 0, !all.isEmpty)) {
      ($0.0 + $1.wordCount, $0.1 + $1.memoryBytes, $0.2 + $1.buildSeconds, $0.3 && $1.wasStored)
    }
  }
}

extension SearchIndex {
  /// The catalog's word nearest to `term` within its typo budget, in any searchable text field,
  /// whatever the scope: fewest edits, then the word most items hold. For a "Did you mean"
  /// offer when a search finds nothing; nil when no word is near or the term may not have typos.
  func nearestCatalogWord(to term: String) -> String? {
    guard let typo = TypoTolerance.nearSpellingTerm(word: term) else { return nil }
    var best: (cost: Int, items: Int, word: String)?
    var rows = NearSpelling.Rows(term: typo.letters, budget: typo.budget)
    for column in textFields.indices where textFields[column].isSearchable {
      let dictionary = typoDictionary(column: column)
      dictionary.forEachNearWordRun(term: typo.letters, budget: typo.budget) { run in
        for w in run {
          let word = dictionary.word(w)
          let bytes = Array(word.utf8)
          guard
            let near = bytes.withUnsafeBufferPointer({
              NearSpelling.bestPrefix(of: $0, rows: &rows)
            })
          else { continue }
          let items = Int(dictionary.postingStarts[w + 1] - dictionary.postingStarts[w])
          if best.map({ (near.cost, -items) < ($0.cost, -$0.items) }) ?? true {
            best = (near.cost, items, word)
          }
        }
      }
    }
    return best?.word
  }
}

extension TypoTolerance {
  /// A word typed alone, read as a query term reads it, when it may have typos: what "did you
  /// mean" looks up.
  static func nearSpellingTerm(word term: String) -> (letters: [UInt32], budget: Int)? {
    nearSpellingTerm(
      TextCondition(
        needle: TextFolding.fold(term), number: NumberFilterSyntax.number(term),
        matchesInitials: TextFolding.isInitialConsonantQuery(term)))
  }
}

/// The near-word runs of the last terms a dictionary was asked for, at most `capacity` of
/// them (the oldest forgotten first); shared by the threads that search.
final class RecentNearRuns: Sendable {
  struct Key: Hashable {
    var term: [UInt32]
    var budget: Int
  }

  static let capacity = 256
  private let recent = Locked((runs: [Key: [Range<Int>]](), order: [Key]()))

  subscript(key: Key) -> [Range<Int>]? {
    get { recent.withLock { $0.runs[key] } }
    set {
      guard let newValue else { return }
      recent.withLock { recent in
        guard recent.runs.updateValue(newValue, forKey: key) == nil else { return }
        recent.order.append(key)
        if recent.order.count > Self.capacity { recent.runs[recent.order.removeFirst()] = nil }
      }
    }
  }
}
