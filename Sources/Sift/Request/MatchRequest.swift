/// What the index is asked: the terms every item must satisfy, with the search field's tokens
/// and the scope bar already resolved into terms, a category and a set of fields. The index
/// knows nothing of `SearchToken`s or scope-bar positions.
package struct MatchRequest: Hashable, Sendable {
  /// Every term, the text's, the tokens', then the base filter's; all must hold.
  package var terms: [QueryTerm]
  /// How many of the last terms are the base filter's (`SearchCriteria.base`): matched, never
  /// highlighted.
  package var baseTermCount = 0
  /// The folded category value a category scope keeps; nil keeps every category.
  var requiredCategory: String?
  /// The fields unfielded terms search (a field scope such as FoodTracker's Rating); nil: every
  /// searchable field.
  var searchedFields: [String]?
  /// When terms may also match near spellings.
  package var typos: TypoTolerance
  /// Whether the query's last word is still being typed (`Query.endsInTypedWord`): "gen" is
  /// on its way to "Geneva" or "Genoa", and a hamlet or a code that equals it is weak evidence.
  /// Exactness then ranks a value equal to the whole query first only in the title; any other
  /// value equal to it or starting with it is a start, and among starts popularity decides
  /// (docs/ranking.md).
  package var isTyping: Bool
  /// Results by this field, relevance breaking ties; nil: relevance alone.
  package var sort: SearchSort?
  /// The place distances are measured from, and the radius that keeps items; nil: none.
  package var near: SearchNear?
  /// The field whose value groups the matches, one row per group (`SearchCriteria.distinct`);
  /// nil: every match is a row.
  package var distinct: String?
  /// The items pinned at rows of these results and those hidden from them (`Pins`); nil:
  /// none.
  package var pins: Pins.Rule?
  /// A search by meaning (`SearchVector`) and the terms that filter before the nearest are
  /// chosen; nil: by the text alone.
  package var vector: VectorPlan?

  package init(
    terms: [QueryTerm], requiredCategory: String? = nil, searchedFields: [String]? = nil,
    typos: TypoTolerance = .automatic, isTyping: Bool = false, sort: SearchSort? = nil,
    near: SearchNear? = nil
  ) {
    self.sort = sort
    self.near = near
    self.terms = terms
    self.requiredCategory = requiredCategory
    self.searchedFields = searchedFields
    self.typos = typos
    self.isTyping = isTyping
  }

  /// The terms the searcher chose: all but the base filter's, which frames what they see and
  /// is never highlighted as theirs.
  var searchedByUser: ArraySlice<QueryTerm> { terms.dropLast(baseTermCount) }

  /// The request near spellings are looked for with: a plain term holding punctuation
  /// ("cluj-napcoa", "saint-lous") is searched as its words, each a term with a budget of its
  /// own — a misspelt word cannot be found inside the term as written. The same request when no
  /// term has punctuation inside.
  var forNearSpellings: MatchRequest {
    guard splitsForNearSpellings else { return self }
    var request = self
    request.terms = terms.flatMap(Self.nearSpellingTerms)
    return request
  }

  /// Whether a short word of this request may have a typo (`TypoTolerance.budget`): the query
  /// has two plain words or more, one of at least four letters, that anchor it. A short word
  /// alone stays exact: "sna" finds nothing new, "sna francisco" finds San Francisco.
  var anchorsShortWords: Bool {
    let plain = terms.compactMap { term -> TextCondition? in
      guard !term.isNegated, let text = term.textCondition, text.isPlain else { return nil }
      return text
    }
    return plain.count > 1
      && plain.contains {
        !$0.needle.utf8.contains(where: NearSpelling.isWordBoundary)
          && $0.needle.unicodeScalars.count >= TypoTolerance.anchorLetters
      }
  }

  /// Whether `forNearSpellings` differs: some plain term holds punctuation.
  var splitsForNearSpellings: Bool {
    terms.contains { $0.flattened.contains { Self.words(of: $0) != nil } }
  }

  /// A term as near spellings are looked for: its words when it holds punctuation, the same
  /// inside each alternative.
  private static func nearSpellingTerms(_ term: QueryTerm) -> [QueryTerm] {
    if let alternatives = term.alternatives {
      let split = alternatives.map { $0.flatMap(nearSpellingTerms) }
      return [QueryTerm(isNegated: term.isNegated, condition: .either(split), range: term.range)]
    }
    let synonymOf = term.textCondition?.synonymOf
    return words(of: term)?.map {
      QueryTerm(
        condition: .text(TextCondition(needle: $0, synonymOf: synonymOf)), range: term.range)
    } ?? [term]
  }

  // MARK: - Alternatives

  /// Whether a term offers alternatives (`rose | tulip`, an expression with synonyms): the
  /// request is then searched as each of `alternatives`, and their matches joined.
  var hasAlternatives: Bool { terms.contains { $0.alternatives != nil } }

  /// The most alternatives a request is searched as: `a | b` three times over is 8; what goes
  /// past this is left out.
  static let maximumAlternatives = 64

  /// The requests without alternatives whose matches, joined, are this one's: one for each way
  /// of picking an alternative of every `either` term, in the order they are written (the
  /// first is all that was typed, before any synonym). Each is ranked as finished words when
  /// the searcher's terms offer the alternatives: the rule for a word being typed weighs one
  /// value against the query, and an alternative is not what was typed. Alternatives of the
  /// base filter alone (a box across the 180° meridian) leave the words as typed.
  package var alternatives: [MatchRequest] {
    let typedAlternatives = searchedByUser.contains { $0.alternatives != nil }
    return Self.expanded(terms).map {
      var request = self
      request.terms = $0
      if typedAlternatives { request.isTyping = false }
      return request
    }
  }

  private static func expanded(_ terms: [QueryTerm]) -> [[QueryTerm]] {
    var expanded: [[QueryTerm]] = [[]]
    for term in terms {
      guard let alternatives = term.alternatives else {
        for index in expanded.indices { expanded[index].append(term) }
        continue
      }
      let choices = alternatives.flatMap { Self.expanded($0) }
      expanded = Array(
        expanded.lazy.flatMap { prefix in choices.lazy.map { prefix + $0 } }
          .prefix(maximumAlternatives))
    }
    return expanded
  }

  /// One way of writing the query with a space moved: the term written (its `TextCondition`
  /// `movesSpaces`) and the searched terms with it in place of the word or words it stands for.
  struct SpaceMove {
    var condition: TextCondition
    var terms: [QueryTerm]
  }

  /// The query with the spaces between its words moved: each plain word split in two at every
  /// letter (with a space or a hyphen between, or a dot in a word of four letters at most:
  /// `spiderman` finds Spider-Man, `laguardia` La Guardia, `et` E.T.), and each two
  /// neighbouring plain words joined (`sun flower` finds Sunflower). Empty when the request
  /// has no plain word, offers alternatives already, or allows no typos: a moved space is a
  /// slip of the keyboard, looked for when near spellings are (`SearchIndex.searchSlots`).
  /// Only the terms are made: a way becomes a request (`request(moving:)`) where it may match.
  var spaceMoves: [SpaceMove] {
    let plain = movablePlainTerms
    guard !plain.isEmpty else { return [] }
    let user = Array(searchedByUser)
    func move(_ needle: String, of typed: String, _ range: Range<Int>, replacing: Range<Int>)
      -> SpaceMove
    {
      let condition = TextCondition(needle: needle, synonymOf: typed, movesSpaces: true)
      var terms = user
      terms.replaceSubrange(replacing, with: [QueryTerm(condition: .text(condition), range: range)])
      return SpaceMove(condition: condition, terms: terms)
    }
    // At most `maximumAlternatives` ways: a long text (a pasted paragraph) offers its first
    // words' ways and stops there.
    let most = Self.maximumAlternatives
    var moves: [SpaceMove] = []
    for (a, b) in zip(plain, plain.dropFirst()) where b == a + 1 && moves.count < most {
      let (left, right) = (user[a].textCondition!.needle, user[b].textCondition!.needle)
      let range = user[a].range.lowerBound..<max(user[a].range.upperBound, user[b].range.upperBound)
      moves.append(move(left + right, of: left + " " + right, range, replacing: a..<b + 1))
    }
    for index in plain where moves.count < most {
      let typed = user[index].textCondition!.needle
      let letters = typed.unicodeScalars
      let count = letters.count
      guard (2...Self.longestSplitWord).contains(count) else { continue }
      var cutIndex = letters.startIndex
      for _ in 1..<count where moves.count < most {
        // Each half copied from the word's UTF-8 at once: a view rebuilt scalar by scalar was
        // 14 % of a served search's time, as highlighting asks for the moved terms per value.
        cutIndex = letters.index(after: cutIndex)
        let left = String(letters[..<cutIndex])
        let right = String(letters[cutIndex...])
        // A dot only inside a short abbreviation ("e.t", "u.s"): the letters of a longer word
        // are not initials.
        for separator in count <= 4 ? [" ", "-", "."] : [" ", "-"]
        where moves.count < most {
          moves.append(
            move(
              left + separator + right, of: typed, user[index].range,
              replacing: index..<index + 1))
        }
      }
    }
    return moves
  }

  /// The request of one of `spaceMoves`: ranked as the words typed are, a last word being typed
  /// included — the words are what was typed, with a slip.
  func request(moving move: SpaceMove) -> MatchRequest {
    var request = self
    request.terms = move.terms + terms.suffix(baseTermCount)
    return request
  }

  /// Whether `spaceMoves` has a way of writing, without making them (every search asks).
  var mayMoveSpaces: Bool {
    let plain = movablePlainTerms
    let user = searchedByUser
    return zip(plain, plain.dropFirst()).contains { $1 == $0 + 1 }
      || plain.contains {
        (2...Self.longestSplitWord).contains(
          user[user.startIndex + $0].textCondition!.needle.unicodeScalars.count)
      }
  }

  /// The positions in `searchedByUser` of the words whose spaces may move: plain, positive,
  /// one word each, typed rather than a synonym; none when typos are off or the request offers
  /// alternatives.
  private var movablePlainTerms: [Int] {
    guard typos.isEnabled, !hasAlternatives else { return [] }
    let user = Array(searchedByUser)
    return user.indices.filter { index in
      guard !user[index].isNegated, let text = user[index].textCondition else { return false }
      return text.isPlain && text.synonymOf == nil
        && !text.needle.utf8.contains(where: NearSpelling.isWordBoundary)
    }
  }

  /// The longest word split in two (`spaceMoves`): 23 cuts, 46 ways of writing it.
  static let longestSplitWord = 24

  /// The moved terms of every `spaceMoves`: what they mark in a highlight.
  var movedSpaceConditions: [TextCondition] { spaceMoves.map(\.condition) }

  /// Whether this alternative holds a synonym beside what was typed: its items rank after
  /// those of what was typed. Not when a synonym stands for every word typed — "ny" with
  /// `ny = new york` means New York as much as it means the values that equal "ny", and ranks
  /// it with its own exact matches.
  package var viaSynonym: Bool {
    let text = searchedByUser.flatMap(\.flattened).filter { !$0.isNegated }.compactMap(
      \.textCondition)
    // Words with their spaces moved stand for what was typed, not beside it.
    let synonyms = text.filter { $0.synonymOf != nil && !$0.movesSpaces }
    return !synonyms.isEmpty && synonyms.count < text.count
  }

  /// The words of a plain, positive text term that holds punctuation; nil for any other term.
  private static func words(of term: QueryTerm) -> [String]? {
    guard !term.isNegated, let text = term.textCondition, text.isPlain,
      text.needle.utf8.contains(where: NearSpelling.isWordBoundary)
    else { return nil }
    let words = text.needle.utf8.split(whereSeparator: NearSpelling.isWordBoundary).map {
      String(decoding: $0, as: UTF8.self)
    }
    return words.isEmpty ? nil : words
  }
}

extension TextCondition {
  /// Plain text: no field, phrase, number or initial consonants — what may have typos, word by
  /// word (`TypoTolerance.nearSpellingTerm`, `MatchRequest.forNearSpellings`).
  var isPlain: Bool { field == nil && !isPhrase && number == nil && !matchesInitials }
}

extension ResolvedCriteria {
  /// The criteria as the index takes them: tokens as terms, the scope as a category or fields.
  package func request(typos: TypoTolerance = .automatic) -> MatchRequest {
    var request = MatchRequest(
      terms: searchedTerms, typos: typos, isTyping: query.endsInTypedWord, sort: sort,
      near: near)
    request.baseTermCount = baseTerms.count
    request.distinct = distinct
    request.pins = pins
    if let vector {
      // Everything but the text's words filters: tokens, the base, and `year:>2000` typed.
      let filters = query.terms.filter { term in
        switch term.condition {
        case .text, .either: false
        default: true
        }
      }
      let words = criteria.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
      request.vector = VectorPlan(
        search: vector, filterTerms: filters + tokenTerms + baseTerms,
        hasText: filters.count < query.terms.count, foldedText: Array(TextFolding.fold(words).utf8))
    }
    switch scope?.filter {
    case .category(let value): request.requiredCategory = TextFolding.fold(value)
    case .fields(let names): request.searchedFields = names
    case .all, .none: break
    }
    return request
  }
}

extension CatalogSchema {
  /// Whether unfielded terms of `request` search `field`: the one rule that matching and
  /// highlighting share. A field scope names the fields; otherwise every searchable one.
  func searchesUnfielded(_ field: FieldDefinition, in request: MatchRequest) -> Bool {
    guard field.kind != .category else { return false }
    guard let names = request.searchedFields else { return field.isSearchable }
    let key = Self.fieldKey(field.name)
    return names.contains { Self.fieldKey($0) == key }
  }
}

/// Typo tolerance (docs/ranking.md): when exact matching finds fewer items than `threshold`, plain
/// terms of four or more letters may also match a word, or a word's beginning, within one edit
/// (two from eight letters; an edit of the first letter counts twice). Never numbers, phrases,
/// field filters or Hangul initial consonants.
///
/// By default an exact match counts toward the threshold only when every term starts a word in
/// it: "exter" inside "Dexter" is a match, but no sign that the person did not mean "Exeter",
/// so near spellings are still looked for (and rank after the exact matches). While a query's
/// last word is typed in a catalog whose ranking field weighs (`MatchRequest.isTyping`), only
/// an exact start weighing 7 or more counts (`MatchRank.isStrongTypedStart`: a name starting
/// with the query, of an item among the catalog's most popular tenth).
public struct TypoTolerance: Hashable, Sendable {
  public var isEnabled: Bool
  /// Near spellings are looked for while exact matches are fewer than this.
  public var threshold: Int
  /// Whether matches found only inside words ("exter" in "Dexter") count toward the threshold.
  public var countsInfixMatches: Bool

  public init(isEnabled: Bool = true, threshold: Int = 1, countsInfixMatches: Bool = false) {
    self.isEnabled = isEnabled
    self.threshold = max(0, threshold)
    self.countsInfixMatches = countsInfixMatches
  }

  /// On, below one exact match (the default).
  public static let automatic = TypoTolerance()
  /// Exact matches only (`sift search --typos off`).
  public static let off = TypoTolerance(isEnabled: false)

  /// The edits a term of `letters` letters may have: none below 4, one below 8, then two — and
  /// one for a word of three letters that another word of the query anchors
  /// (`MatchRequest.anchorsShortWords`): "nwe york", "lso angeles". Not two: within one edit,
  /// "ne" would be the beginning of every word that starts with "n".
  public static func budget(letters: Int, anchored: Bool = false) -> Int {
    letters >= 8 ? 2 : letters >= 4 ? 1 : anchored && letters == 3 ? 1 : 0
  }

  /// The fewest letters of a word that anchors the short words of its query.
  static let anchorLetters = 4

  /// A term's letters and budget when it may match near spellings — plain text (no field,
  /// phrase, number or initials), one word of at least four letters, or of three when
  /// `anchored` — else nil.
  static func nearSpellingTerm(
    _ text: TextCondition, anchored: Bool = false
  ) -> (letters: [UInt32], budget: Int)? {
    guard text.isPlain, !text.needle.utf8.contains(where: NearSpelling.isWordBoundary)
    else { return nil }
    let letters = NearSpelling.scalars(text.needle.utf8)
    let budget = budget(letters: letters.count, anchored: anchored)
    guard budget > 0, letters.count <= 64 else { return nil }
    return (letters, budget)
  }
}

/// How the index searches by meaning: the request's `SearchVector`, the terms every candidate
/// must hold (all but the text's words) and whether the text has words to fuse with.
package struct VectorPlan: Hashable, Sendable {
  package var search: SearchVector
  package var filterTerms: [QueryTerm]
  package var hasText: Bool
  /// The text as typed, folded, its words one space apart: a name equal to it comes first.
  package var foldedText: [UInt8]
}
