/// A catalog's synonyms: groups of expressions that find each other ("sofa", "couch",
/// "settee"), and one-way rules ("phone" also finds "iphone", not the other way). An expression
/// is one or more words; it is folded like everything else, so "New York" and "new york" are one.
///
/// A query term, or a run of terms, that equals an expression also matches its synonyms: a
/// single word as a term, several words as a phrase. Those matches rank after the matches of what
/// was typed (`MatchRank.viaSynonym`), and `--explain` says "via synonym".
public struct Synonyms: Hashable, Sendable, Codable {
  /// One group, or one one-way rule.
  public struct Entry: Hashable, Sendable, Codable {
    /// The expressions as given. In a group each finds the others; in a rule, these find `to`.
    public var expressions: [String]
    /// A one-way rule's targets; nil for a group.
    public var to: [String]?

    /// A group of expressions that find each other: at least two.
    public init(group expressions: [String]) {
      self.expressions = expressions
      to = nil
    }

    /// A one-way rule: `expressions` also find `to`, not the other way.
    public init(_ expressions: [String], to: [String]) {
      self.expressions = expressions
      self.to = to
    }

    /// "sofa = couch = settee", "phone → iphone".
    public var description: String {
      guard let to else { return expressions.joined(separator: " = ") }
      return expressions.joined(separator: " = ") + " → " + to.joined(separator: " = ")
    }

    /// Every expression it names, sources and targets.
    var all: [String] { expressions + (to ?? []) }
  }

  public var entries: [Entry] {
    didSet { lookup = Lookup(entries) }
  }
  /// What the entries find, worked out once: a search reads it at every keystroke.
  private var lookup: Lookup

  public init(_ entries: [Entry] = []) {
    self.entries = entries
    lookup = Lookup(entries)
  }

  public var isEmpty: Bool { entries.isEmpty }

  public init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode([Entry].self))
  }

  public static func == (a: Synonyms, b: Synonyms) -> Bool { a.entries == b.entries }

  public func hash(into hasher: inout Hasher) { hasher.combine(entries) }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(entries)
  }

  /// The first thing wrong with an entry, with what to do.
  public static func problem(with entry: Entry) -> String? {
    let expressions = entry.all
    if let empty = expressions.first(where: { key($0).isEmpty }) {
      return "the expression \"\(empty)\" has no searchable characters"
    }
    if let to = entry.to {
      if entry.expressions.isEmpty || to.isEmpty {
        return "a one-way synonym needs an expression and what it finds (`phone --to iphone`)"
      }
    } else if entry.expressions.count < 2 {
      return
        "a synonym group needs two expressions or more (`sofa couch`); for one that only finds another, use `--to`"
    }
    var seen = Set<String>()
    for expression in expressions where !seen.insert(key(expression)).inserted {
      return "\"\(expression)\" is named twice"
    }
    return nil
  }

  /// An expression as it is matched (`TextFolding.phraseKey`).
  static func key(_ expression: String) -> String { TextFolding.phraseKey(expression) }

  /// Per folded expression, the folded expressions it also finds; and the longest expression,
  /// in words: the longest run of terms worth comparing.
  private struct Lookup: Sendable {
    var targets: [String: [String]] = [:]
    var longest = 0
    /// The first word of every expression: a term that is none of them starts no run, which
    /// is most terms, told apart without building a key.
    var firstWords: Set<Substring> = []

    init(_ entries: [Entry]) {
      func add(_ source: String, _ found: [String]) {
        let source = Synonyms.key(source)
        for target in found.map(Synonyms.key) where target != source {
          if !(targets[source]?.contains(target) ?? false) {
            targets[source, default: []].append(target)
          }
        }
      }
      for entry in entries {
        for expression in entry.expressions { add(expression, entry.to ?? entry.expressions) }
      }
      longest =
        entries.flatMap(\.all).map { Synonyms.key($0).split(separator: " ").count }.max() ?? 0
      for source in targets.keys { firstWords.insert(source.split(separator: " ")[0]) }
    }
  }

  /// `terms` with each run of plain, positive terms that equals an expression (longest run
  /// first, left to right) made one `either` term: the run as typed, then each synonym — a word
  /// as a term, several as a phrase. The same terms when no run equals one.
  func expanding(_ terms: [QueryTerm]) -> [QueryTerm] {
    guard !entries.isEmpty else { return terms }
    let (targets, longest) = (lookup.targets, lookup.longest)
    var result: [QueryTerm] = []
    var index = 0
    while index < terms.count {
      if let alternatives = terms[index].alternatives {
        // Inside `sofa | chair`, each alternative's own runs.
        var term = terms[index]
        term.condition = .either(alternatives.map(expanding))
        result.append(term)
        index += 1
        continue
      }
      var matched: (end: Int, key: String)?
      var words: [Substring] = []
      for end in index..<min(terms.count, index + longest) {
        guard !terms[end].isNegated, let text = terms[end].textCondition, text.field == nil,
          text.synonymOf == nil
        else { break }
        // Needles are folded already: a key is their words joined by one space.
        let termWords = text.needle.split(separator: " ")
        if end == index, !(termWords.first.map(lookup.firstWords.contains) ?? false) { break }
        words += termWords
        let key = words.joined(separator: " ")
        if targets[key] != nil { matched = (end + 1, key) }
      }
      guard let (end, key) = matched, let found = targets[key] else {
        result.append(terms[index])
        index += 1
        continue
      }
      let run = Array(terms[index..<end])
      let range = run.first!.range.lowerBound..<run.last!.range.upperBound
      let synonyms = found.map { target in
        let isPhrase = target.contains(" ")
        return [
          QueryTerm(
            condition: .text(
              TextCondition(
                needle: target, isPhrase: isPhrase,
                number: isPhrase ? nil : NumberFilterSyntax.number(target), synonymOf: key)),
            range: range)
        ]
      }
      result.append(QueryTerm(condition: .either([run] + synonyms), range: range))
      index = end
    }
    return result
  }
}
