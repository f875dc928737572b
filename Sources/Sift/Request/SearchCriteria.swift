/// Everything that decides which items show and in what order: the search text, the tokens,
/// the selected scope and the sort. `SearchController` derives it from its state; an app may
/// also build one directly.
public struct SearchCriteria: Hashable, Sendable {
  public var text: String
  public var tokens: [SearchToken]
  /// Index into the schema's scope bar; 0 is the first button.
  public var scopeIndex: Int
  /// Results by a field rather than by relevance; nil (or a field the schema cannot sort by)
  /// orders by relevance.
  public var sort: SearchSort?
  /// Results near a place: distance ranks them after typos, word starts and a title match, and a radius keeps only those
  /// within it. Nil (or a catalog without `CatalogSchema.location`): no distance.
  public var near: SearchNear?
  /// A filter the searcher did not choose — the rows a tenant token lets it see — applied as
  /// tokens are, but never theirs: it does not make a search filter, it is neither offered nor
  /// highlighted, and the total counts only the items it keeps.
  public var base: [SearchToken]
  /// One result per value of this field (`country`: the best city of each country), where the
  /// best of each group would stand; the total counts groups, facets still count items. An
  /// item without a value is a group of its own. Nil (or a field the catalog does not index):
  /// every match.
  public var distinct: String?
  /// Items by meaning (`SearchVector`): nearest a vector, or fused with the text's order; nil
  /// (or a catalog without vectors): by the text alone.
  public var vector: SearchVector?

  public init(
    text: String = "", tokens: [SearchToken] = [], scopeIndex: Int = 0, sort: SearchSort? = nil,
    near: SearchNear? = nil, base: [SearchToken] = [], distinct: String? = nil,
    vector: SearchVector? = nil
  ) {
    self.vector = vector
    self.distinct = distinct
    self.text = text
    self.tokens = tokens
    self.scopeIndex = scopeIndex
    self.sort = sort
    self.near = near
    self.base = base
  }

  /// No filter at all: every item in catalog order.
  public static let everything = SearchCriteria()
}

/// Criteria read against a schema: the parsed query, the token terms, the scope, and every
/// diagnostic met on the way.
public struct ResolvedCriteria: Hashable, Sendable {
  public var criteria: SearchCriteria
  public var query: Query
  /// The term each usable token stands for.
  public var tokenTerms: [QueryTerm]
  /// The terms of the base filter (`SearchCriteria.base`), searched after every other.
  public var baseTerms: [QueryTerm]
  public var scope: Scope?
  /// The sort in force, its field spelt as the schema does; nil: relevance.
  public var sort: SearchSort?
  /// The place results are near, when the catalog has a location.
  public var near: SearchNear?
  /// Diagnostics of the query text, then those of tokens.
  public var diagnostics: [QueryDiagnostic]
  /// The catalog's synonyms, which the request's terms are expanded with.
  public var synonyms: Synonyms
  /// The field results are grouped by, spelt as the schema does; nil: every match is a row.
  public var distinct: String?
  /// What the catalog's pins say of this text (`Pins`); nil: nothing.
  package var pins: Pins.Rule?
  /// The search by meaning, when the catalog has vectors (`SearchCriteria.vector`).
  public var vector: SearchVector?

  public init(_ criteria: SearchCriteria, schema: CatalogSchema) {
    self.criteria = criteria
    query = Query(parsing: criteria.text, schema: schema)
    diagnostics = query.diagnostics
    tokenTerms = []
    for token in criteria.tokens {
      switch Query.term(forToken: token.identifier, schema: schema) {
      case .success(let term): tokenTerms.append(term)
      case .failure(let diagnostic): diagnostics.append(diagnostic)
      }
    }
    baseTerms = criteria.base.map { token in
      switch Query.term(forToken: token.identifier, schema: schema) {
      case .success(let term): term
      // A base filter that cannot be read keeps nothing rather than everything.
      case .failure: QueryTerm(condition: .category(field: "", value: "\u{0}"), range: 0..<0)
      }
    }
    scope =
      schema.scopes.indices.contains(criteria.scopeIndex) ? schema.scopes[criteria.scopeIndex] : nil
    sort = criteria.sort.flatMap(schema.resolved)
    near = schema.location == nil ? nil : criteria.near
    synonyms = schema.synonyms
    distinct = criteria.distinct.flatMap { schema.distinctField(named: $0)?.name }
    pins = criteria.text.isEmpty ? nil : schema.pins.rule(for: criteria.text)
    vector = schema.vector == nil ? nil : criteria.vector
  }

  /// All terms: the text's, then the tokens', then the base filter's.
  public var allTerms: [QueryTerm] { query.terms + tokenTerms + baseTerms }

  /// The text's terms with the runs that equal a synonym's expression offered with their
  /// synonyms (`Synonyms.expanding`), then the tokens', then the base filter's.
  public var searchedTerms: [QueryTerm] {
    synonyms.expanding(query.terms) + tokenTerms + baseTerms
  }

  /// Whether some run of the text's terms equals a synonym's expression.
  var usesSynonyms: Bool { !synonyms.isEmpty && synonyms.expanding(query.terms) != query.terms }

  /// True when these criteria can only keep items the `previous` ones kept, so a search may
  /// run inside the previous results: same scope, every previous term implied by a new one.
  public func narrows(_ previous: ResolvedCriteria) -> Bool {
    narrowing(previous)?.isEmpty == true
  }

  /// Whether these criteria keep only items the `previous` ones kept or items that a term of
  /// theirs finds by its pinyin or romaji where the previous term could not read ("ho c" →
  /// "ho ch": one letter never reads, two do): nil when they do not narrow, else those terms
  /// (none: they narrow outright). A search then runs inside the previous results and the
  /// items those terms read at a word's start.
  package func narrowing(_ previous: ResolvedCriteria) -> [QueryTerm]? {
    guard scope == previous.scope, near == previous.near else { return nil }
    // Nearest neighbours are chosen among every item the filters keep, not among results.
    guard vector == nil, previous.vector == nil else { return nil }
    // A word that now equals an expression also finds its synonyms, which the previous
    // results may not hold ("sof" → "sofa", which finds "couch").
    guard !usesSynonyms else { return nil }
    let terms = allTerms
    var reading: [QueryTerm] = []
    for old in previous.allTerms where !terms.contains(where: { $0.implies(old) }) {
      guard let term = terms.first(where: { $0.implies(old, exceptReadings: true) }) else {
        return nil
      }
      if !reading.contains(term) { reading.append(term) }
    }
    return reading
  }
}

extension QueryTerm {
  /// Whether every item matching `self` also matches `other` — with `exceptReadings`, every
  /// item but those `self` finds by its pinyin or romaji (`Readings`).
  func implies(_ other: QueryTerm, exceptReadings: Bool = false) -> Bool {
    if self.condition == other.condition, isNegated == other.isNegated { return true }
    guard !isNegated, !other.isNegated, case .text(let new) = condition,
      case .text(let old) = other.condition, new.field == old.field
    else { return false }
    // A longer needle only narrows; but a number reading ("20" = 20), an initials reading or
    // a pinyin or romaji one can match items the shorter term did not, so those must be
    // unchanged.
    guard new.needle.utf8.count > old.needle.utf8.count,
      !ByteSearch.allOffsets(of: Array(old.needle.utf8), in: Array(new.needle.utf8)).isEmpty
    else { return false }
    if new.number != nil { return false }
    if new.matchesInitials && !old.matchesInitials { return false }
    // A reading matches at a word's start: the new term's readings are the old one's only when
    // the old term reads too and begins the new one ("bei" → "beij", not "ei" → "bei"). Two
    // letters may be a reading ("be" of 北京), which one letter never is.
    if Readings.mayMatch(new),
      !Readings.mayMatch(old) || !new.needle.utf8.starts(with: old.needle.utf8)
    {
      return exceptReadings
    }
    return true
  }
}
