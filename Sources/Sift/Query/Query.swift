/// A parsed search text: terms that must all match, and what the parser noticed on the way.
///
/// Two doors (see GRDB's `FTS3Pattern`): `init(parsing:schema:)` is for text as it is typed and
/// never fails — a half-typed `price:<` is searched as plain text with a diagnostic — and
/// `init(validating:schema:)` is for queries given whole, and throws the first fault with its
/// place and a suggestion.
public struct Query: Hashable, Sendable {
  /// The text as given.
  public var text: String
  public var terms: [QueryTerm]
  public var diagnostics: [QueryDiagnostic]

  public init(text: String = "", terms: [QueryTerm] = [], diagnostics: [QueryDiagnostic] = []) {
    self.text = text
    self.terms = terms
    self.diagnostics = diagnostics
  }

  /// Parses typed text; never fails.
  ///
  /// - Complexity: O(*n*) in the length of `text`.
  public init(parsing text: String, schema: CatalogSchema) {
    var parser = QueryParser(text: text, schema: schema)
    parser.parse()
    self.init(text: text, terms: parser.terms, diagnostics: parser.diagnostics)
  }

  /// Parses a query given whole; throws the first problem the forgiving parser would only report.
  public init(validating text: String, schema: CatalogSchema) throws(QueryError) {
    self.init(parsing: text, schema: schema)
    if let first = diagnostics.first {
      throw QueryError(diagnostic: first, query: text)
    }
  }

  /// The term a token identifier stands for (`category:Chocolate`, `year:>=2010`), or a
  /// diagnostic when it is not exactly one usable term.
  public static func term(
    forToken identifier: String, schema: CatalogSchema
  ) -> Result<QueryTerm, QueryDiagnostic> {
    let query = Query(parsing: identifier, schema: schema)
    let whole = 0..<identifier.count
    guard query.diagnostics.isEmpty, query.terms.count == 1, var term = query.terms.first else {
      return .failure(QueryDiagnostic(.invalidToken(identifier), range: whole))
    }
    term.range = whole
    return .success(term)
  }

  /// True when there is nothing to filter by.
  public var isEmpty: Bool { terms.isEmpty }

  /// Whether the text ends in a word still being typed: its last term is plain text (or a
  /// field's text) with nothing after it — no space, no closing quote of a phrase — and not
  /// negated. "gen" is typed, "gen " and "\"gen\"" are finished (`MatchRequest.isTyping`).
  public var endsInTypedWord: Bool {
    guard let last = terms.last, !last.isNegated, let condition = last.textCondition,
      !condition.isPhrase, last.range.upperBound == text.count,
      text.last.map({ !$0.isWhitespace }) ?? false
    else { return false }
    return true
  }

  /// The positive text conditions, those of every alternative included: what highlighting
  /// looks for.
  public var positiveTextConditions: [TextCondition] {
    terms.flatMap(\.flattened).compactMap { $0.isNegated ? nil : $0.textCondition }
  }
}

/// The scanner behind `Query`. Works on the characters of the text so that diagnostics point at
/// what a person sees.
struct QueryParser {
  let characters: [Character]
  let schema: CatalogSchema
  var terms: [QueryTerm] = []
  var diagnostics: [QueryDiagnostic] = []
  private var position = 0
  /// Each `|` or `OR` read: where it stands and the index of the term after it.
  private var operators: [(before: Int, range: Range<Int>)] = []

  init(text: String, schema: CatalogSchema) {
    self.characters = Array(text)
    self.schema = schema
  }

  mutating func parse() {
    while position < characters.count {
      if characters[position].isWhitespace {
        position += 1
        continue
      }
      if characters[position] == "|" {
        operators.append((terms.count, position..<position + 1))
        position += 1
        continue
      }
      if let end = orWordEnd() {
        operators.append((terms.count, position..<end))
        position = end
        continue
      }
      parseTerm()
    }
    joinAlternatives()
  }

  /// The end of the word `OR` at `position` when it stands between two terms (a term before
  /// it, no operator just before it, and more to read after it that is not an operator);
  /// anywhere else `OR` is a word like another ("Portland OR").
  private func orWordEnd() -> Int? {
    let end = position + 2
    guard end <= characters.count, characters[position] == "O", characters[position + 1] == "R",
      end == characters.count || characters[end].isWhitespace,
      !terms.isEmpty, operators.last?.before != terms.count
    else { return nil }
    guard let next = characters[end...].firstIndex(where: { !$0.isWhitespace }),
      characters[next] != "|"
    else { return nil }
    return end
  }

  /// Makes each run of terms joined by operators one `either` term. An operator with no term
  /// on one side (`rose |`, `| rose`, `rose | | tulip`) is reported and ignored.
  private mutating func joinAlternatives() {
    var joined = Set<Int>()
    for (before, range) in operators {
      guard before > 0, before < terms.count, joined.insert(before).inserted else {
        diagnostics.append(QueryDiagnostic(.danglingOr, range: range))
        continue
      }
    }
    guard !joined.isEmpty else { return }
    var result: [QueryTerm] = []
    var index = 0
    while index < terms.count {
      var end = index + 1
      while joined.contains(end) { end += 1 }
      if end - index == 1 {
        result.append(terms[index])
      } else {
        let group = terms[index..<end]
        result.append(
          QueryTerm(
            condition: .either(group.map { [$0] }),
            range: group.first!.range.lowerBound..<group.last!.range.upperBound))
      }
      index = end
    }
    terms = result
  }

  private mutating func parseTerm() {
    let start = position
    var negated = false
    if characters[position] == "-" {
      let next = position + 1
      if next == characters.count || characters[next].isWhitespace || characters[next] == "|" {
        diagnostics.append(QueryDiagnostic(.loneMinus, range: start..<next))
        position = next
        return
      }
      negated = true
      position = next
    }
    if characters[position] == "\"" {
      let phrase = readPhrase()
      addText(phrase, field: nil, isPhrase: true, negated: negated, range: start..<position)
      return
    }
    // A word, or `field:value` where the value may be a quoted phrase.
    let wordStart = position
    var colon: Int?
    while position < characters.count, !characters[position].isWhitespace,
      characters[position] != "|"
    {
      if characters[position] == ":", colon == nil {
        colon = position
        if position + 1 < characters.count, characters[position + 1] == "\"",
          isFieldName(characters[wordStart..<position])
        {
          let name = String(characters[wordStart..<position])
          position += 1
          let phrase = readPhrase()
          addField(
            name: name, value: phrase, quoted: true,
            whole: String(characters[wordStart..<position]),
            negated: negated, range: start..<position)
          return
        }
      }
      position += 1
    }
    let word = String(characters[wordStart..<position])
    if let colon, isFieldName(characters[wordStart..<colon]) {
      addField(
        name: String(characters[wordStart..<colon]),
        value: String(characters[(colon + 1)..<position]), quoted: false, whole: word,
        negated: negated, range: start..<position)
    } else {
      addText(word, field: nil, isPhrase: false, negated: negated, range: start..<position)
    }
  }

  /// Reads `"…"` from the opening quote at `position`; an unclosed quote runs to the end.
  private mutating func readPhrase() -> String {
    let open = position
    position += 1
    let contentStart = position
    while position < characters.count, characters[position] != "\"" {
      position += 1
    }
    let content = String(characters[contentStart..<position])
    if position < characters.count {
      position += 1
    } else {
      diagnostics.append(QueryDiagnostic(.unclosedQuote, range: open..<position))
    }
    return content
  }

  private func isFieldName(_ name: ArraySlice<Character>) -> Bool {
    guard let first = name.first, first.isLetter else { return false }
    return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
  }

  private mutating func addField(
    name: String, value: String, quoted: Bool, whole: String, negated: Bool, range: Range<Int>
  ) {
    guard let field = schema.field(named: name) else {
      let key = CatalogSchema.fieldKey(name)
      if let stored = schema.storedFields.first(where: { CatalogSchema.fieldKey($0.name) == key }) {
        diagnostics.append(QueryDiagnostic(.storedField(stored.name), range: range))
      } else if value.isEmpty, !quoted, suggestField(for: name) == nil {
        // `flag: Japan`, `Star Wars: Episode`: a colon that ends a word is punctuation, not a
        // field with its value missing (unless the word is a near miss of one: `prise:`).
      } else {
        diagnostics.append(
          QueryDiagnostic(.unknownField(name, suggestion: suggestField(for: name)), range: range))
      }
      addText(whole, field: nil, isPhrase: false, negated: negated, range: range)
      return
    }
    let trimmed = value.trimmingWhitespace()
    switch field.kind {
    case .text:
      guard !trimmed.isEmpty else {
        diagnostics.append(QueryDiagnostic(.missingValue(field: field.name), range: range))
        addText(whole, field: nil, isPhrase: false, negated: negated, range: range)
        return
      }
      addText(value, field: field.name, isPhrase: quoted, negated: negated, range: range)
    case .category:
      let folded = TextFolding.fold(trimmed)
      guard !folded.isEmpty else {
        diagnostics.append(QueryDiagnostic(.missingValue(field: field.name), range: range))
        addText(whole, field: nil, isPhrase: false, negated: negated, range: range)
        return
      }
      terms.append(
        QueryTerm(
          isNegated: negated, condition: .category(field: field.name, value: folded), range: range))
    case .number:
      switch trimmed.isEmpty ? .failure(.unfinished) : NumberFilterSyntax.parse(trimmed) {
      case .success(let predicate):
        if case .between(let low, let high) = predicate, low > high {
          diagnostics.append(QueryDiagnostic(.emptyRange(field: field.name), range: range))
        }
        terms.append(
          QueryTerm(
            isNegated: negated, condition: .number(field: field.name, predicate), range: range))
      case .failure(.unfinished):
        diagnostics.append(QueryDiagnostic(.missingValue(field: field.name), range: range))
        addText(whole, field: nil, isPhrase: false, negated: negated, range: range)
      case .failure(.notANumber):
        diagnostics.append(
          QueryDiagnostic(.invalidNumber(field: field.name, value: trimmed), range: range))
        addText(whole, field: nil, isPhrase: false, negated: negated, range: range)
      }
    }
  }

  private mutating func addText(
    _ raw: String, field: String?, isPhrase: Bool, negated: Bool, range: Range<Int>
  ) {
    let needle = TextFolding.fold(raw)
    let meaningful = isPhrase ? !needle.isEmpty : !needle.trimmingWhitespace().isEmpty
    guard meaningful else {
      if !raw.isEmpty { diagnostics.append(QueryDiagnostic(.emptyTerm(raw), range: range)) }
      return
    }
    let condition = TextCondition(
      needle: needle, field: field, isPhrase: isPhrase,
      number: isPhrase ? nil : NumberFilterSyntax.number(raw),
      matchesInitials: !isPhrase && TextFolding.isInitialConsonantQuery(raw))
    terms.append(QueryTerm(isNegated: negated, condition: .text(condition), range: range))
  }

  /// The closest field name, for "did you mean": within two edits, or a prefix of one.
  private func suggestField(for name: String) -> String? {
    let key = CatalogSchema.fieldKey(name)
    var best: (name: String, distance: Int)?
    let candidates = schema.fieldNames + schema.fields.map(\.label)
    for candidate in candidates {
      let distance = editDistance(key, CatalogSchema.fieldKey(candidate))
      if distance <= max(1, min(2, key.count / 2)), distance < (best?.distance ?? .max) {
        best = (candidate, distance)
      }
    }
    if let best { return schema.field(named: best.name)?.name ?? best.name }
    if key.count >= 2,
      let prefixed = schema.fieldNames.first(where: {
        CatalogSchema.fieldKey($0).hasPrefix(key)
      })
    {
      return prefixed
    }
    return nil
  }
}

/// Levenshtein distance between two short strings.
func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a)
  let b = Array(b)
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var previous = Array(0...b.count)
  var current = [Int](repeating: 0, count: b.count + 1)
  for i in 1...a.count {
    current[0] = i
    for j in 1...b.count {
      let cost = a[i - 1] == b[j - 1] ? 0 : 1
      current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
    }
    swap(&previous, &current)
  }
  return previous[b.count]
}

extension String {
  func trimmingWhitespace() -> String {
    guard let first = firstIndex(where: { !$0.isWhitespace }),
      let last = lastIndex(where: { !$0.isWhitespace })
    else { return "" }
    return String(self[first...last])
  }
}
