/// A search asked for in words rather than keystrokes — a scope by its title, tokens by their
/// identifiers, the text — as `sift search` and `sift serve` receive it.
public struct SearchRequestInput: Hashable, Sendable {
  public var text: String
  /// A scope-bar title, any case; nil for the first scope.
  public var scope: String?
  /// Token identifiers (`category:Chocolate`, `year:>=2010`), in order.
  public var tokens: [String]
  /// Results by a field; nil: by relevance.
  public var sort: SearchSort?
  /// Results near a place (`--near LAT,LON --within KM`); nil: no place.
  public var near: SearchNear?
  /// Only the items inside this area (`--within-box SOUTH,WEST,NORTH,EAST`); nil: anywhere.
  public var withinBox: GeoBox?
  /// Token identifiers of a filter the searcher did not choose (a tenant token's), applied as
  /// tokens are but never shown as theirs (`SearchCriteria.base`).
  public var base: [String]
  /// One result per value of this field (`--distinct country`); nil: every match.
  public var distinct: String?
  /// Items by meaning (`--vector FILE`, `--like ID`); nil: by the text alone.
  public var vector: SearchVector?

  public init(
    text: String, scope: String? = nil, tokens: [String] = [], sort: SearchSort? = nil,
    near: SearchNear? = nil, withinBox: GeoBox? = nil, base: [String] = [],
    distinct: String? = nil, vector: SearchVector? = nil
  ) {
    self.vector = vector
    self.distinct = distinct
    self.text = text
    self.scope = scope
    self.tokens = tokens
    self.sort = sort
    self.near = near
    self.withinBox = withinBox
    self.base = base
  }
}

/// A `SearchRequestInput` read against a catalog's schema, once, below any UI: the scope's
/// index, the tokens (a suggested token keeps its display text and icon), what it filters by
/// and the tokens offered for the word being typed. `SearchController.apply(_:)` and the server
/// search what this reading says, whatever the store, so the command line, HTTP and the app give
/// the same items for the same input.
public struct SearchRequest: Hashable, Sendable {
  public let text: String
  public let tokens: [SearchToken]
  public let scopeIndex: Int
  /// The order asked for, its field spelt as the schema does; nil: relevance.
  public let sort: SearchSort?
  /// The place results are near, when one was asked for.
  public let near: SearchNear?
  /// The area results are kept inside, when one was asked for: the base filter holds it.
  public let withinBox: GeoBox?
  /// The field results are grouped by, one row per value, spelt as the schema does.
  public var distinct: String? { criteria.distinct }
  /// What the request filters by: `SearchCriteria.searchField(presented:text:tokens:scopeIndex:)`
  /// of a presented search.
  public let criteria: SearchCriteria
  /// Tokens offered for the word being typed at the end of the text.
  public let suggestions: [SearchToken]
  /// The filter the searcher did not choose (`SearchRequestInput.base`), as `criteria` holds it.
  public var base: [SearchToken] { criteria.base }
  /// The search by meaning, as `criteria` holds it.
  public var vector: SearchVector? { criteria.vector }

  /// Reads `input` against `schema`.
  ///
  /// - Throws: `SearchRequestError` for a scope the catalog does not have, a token that is
  ///   not one of its filters, a sort by a field it cannot sort by, a place in a catalog
  ///   without locations, a sort by distance without a place or a group by a field the
  ///   catalog does not index.
  public init(_ input: SearchRequestInput, schema: CatalogSchema) throws(SearchRequestError) {
    if input.near != nil || input.withinBox != nil, schema.location == nil {
      throw .noLocation(catalog: schema.name)
    }
    if let vector = input.vector {
      if let problem = vector.problem(for: schema) { throw problem }
      // Nearness orders a search by meaning: another order would drop what it found.
      if let sort = input.sort { throw .sortByMeaning(sort.field) }
    }
    var distinct: String?
    if let asked = input.distinct {
      guard let field = schema.distinctField(named: asked) else {
        throw .notDistinct(
          asked, catalog: schema.name, fields: schema.distinctFieldNames,
          isKept: schema.storedFields.contains {
            CatalogSchema.fieldKey($0.name) == CatalogSchema.fieldKey(asked)
          })
      }
      distinct = field.name
    }
    var sort: SearchSort?
    if let asked = input.sort {
      guard let resolved = schema.resolved(asked) else {
        throw .unsortable(
          asked.field, catalog: schema.name, sortable: schema.sortChoiceNames)
      }
      if resolved.isDistance, input.near == nil { throw .distanceWithoutPlace }
      sort = resolved
    }
    self.sort = sort
    near = input.near
    withinBox = input.withinBox
    var scopeIndex = 0
    if let scope = input.scope {
      guard
        let index = schema.scopeTitles.firstIndex(where: { $0.lowercased() == scope.lowercased() })
      else {
        throw .unknownScope(scope, catalog: schema.name, scopes: schema.scopeTitles)
      }
      scopeIndex = index
    }
    let tokens = try Self.tokens(input.tokens, schema: schema)
    // The area is a filter of the location's numbers, kept as a tenant's is: never shown as
    // the searcher's tokens.
    let area = input.withinBox.map { box in schema.location.map(box.filterIdentifiers) ?? [] }
    let base = try Self.tokens(input.base + (area ?? []), schema: schema)
    text = input.text
    self.tokens = tokens
    self.scopeIndex = scopeIndex
    var criteria = SearchCriteria.searchField(
      presented: true, text: input.text, tokens: tokens, scopeIndex: scopeIndex, sort: sort,
      near: input.near)
    criteria.base = base
    criteria.distinct = distinct
    criteria.vector = input.vector
    self.criteria = criteria
    suggestions = schema.suggestedTokens(forText: input.text, excluding: tokens + base)
  }

  /// The tokens `identifiers` stand for.
  private static func tokens(
    _ identifiers: [String], schema: CatalogSchema
  ) throws(SearchRequestError) -> [SearchToken] {
    var tokens: [SearchToken] = []
    for identifier in identifiers {
      guard case .success(let term) = Query.term(forToken: identifier, schema: schema) else {
        throw .invalidToken(identifier, catalog: schema.name)
      }
      tokens.append(Self.token(identifier, term: term, schema: schema))
    }
    return tokens
  }

  /// The token `identifier` stands for, as the catalog shows it: a suggested token's text and
  /// icon, found also when a category is named by its field or in another case
  /// (`country:br` reads as the chip "BR"); else the identifier itself.
  private static func token(
    _ identifier: String, term: QueryTerm, schema: CatalogSchema
  ) -> SearchToken {
    if let known = schema.suggestedTokens.first(where: { $0.identifier == identifier }) {
      return known
    }
    if !term.isNegated, case .category(_, let folded) = term.condition,
      let known = schema.suggestedTokens.first(where: {
        $0.identifier.hasPrefix("category:") && TextFolding.fold($0.text) == folded
      })
    {
      return SearchToken(text: known.text, icon: known.icon, identifier: identifier)
    }
    if !term.isNegated, case .category = term.condition {
      // A category the schema does not list (one an edit added): its value as typed.
      let value = String(identifier.drop { $0 != ":" }.dropFirst()).trimmingWhitespace()
      return SearchToken(text: value, identifier: identifier)
    }
    return SearchToken(text: identifier, identifier: identifier)
  }

  /// Two requests are the same search when they were read from the same text, tokens and
  /// scope: the criteria and suggestions follow from those (a server keys its recent searches
  /// by request, so hashing is on every one).
  public static func == (lhs: SearchRequest, rhs: SearchRequest) -> Bool {
    lhs.text == rhs.text && lhs.scopeIndex == rhs.scopeIndex && lhs.tokens == rhs.tokens
      && lhs.sort == rhs.sort && lhs.near == rhs.near && lhs.withinBox == rhs.withinBox
      && lhs.base == rhs.base && lhs.distinct == rhs.distinct && lhs.vector == rhs.vector
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(text)
    hasher.combine(scopeIndex)
    hasher.combine(tokens)
    hasher.combine(sort)
    hasher.combine(near)
    hasher.combine(withinBox)
    hasher.combine(base)
    hasher.combine(distinct)
    hasher.combine(vector)
  }

  /// Whether it filters at all (`SearchCriteria.isFiltering(presented:text:tokenCount:scopeIndex:)`):
  /// a request without text, tokens or scope shows every item.
  public var isFiltering: Bool {
    SearchCriteria.isFiltering(
      presented: true, text: text, tokenCount: tokens.count, scopeIndex: scopeIndex)
      || near?.withinKilometers != nil || withinBox != nil || distinct != nil || vector != nil
  }
}

/// Why a `SearchRequestInput` cannot be searched; the description names the part at fault.
public enum SearchRequestError: Error, Hashable, Sendable, CustomStringConvertible {
  case unknownScope(String, catalog: String, scopes: [String])
  case invalidToken(String, catalog: String)
  /// A `category:` token whose value no item of the catalog has (`category:Nope`): a typo the
  /// caller should hear about, not an empty page. `known` holds a few values it does have.
  case unknownCategory(String, token: String, catalog: String, known: [String])
  /// A sort by a field that is neither a number nor the title (`--sort nope`).
  case unsortable(String, catalog: String, sortable: [String])
  /// A place (`--near`) asked of a catalog whose items have no location.
  case noLocation(catalog: String)
  /// `--sort distance` without a place to measure from.
  case distanceWithoutPlace
  /// A search by meaning (`SearchVector`) of a catalog whose items have no vectors.
  case noVectors(catalog: String)
  /// A query vector the catalog's vectors cannot be compared with.
  case invalidVector(VectorProblem)
  /// A semantic ratio outside 0…1.
  case invalidSemanticRatio(Double)
  /// A count of nearest items outside 1…`SearchVector.maximumNeighbors`.
  case invalidNeighbors(Int)
  /// A sort by a field asked with a search by meaning, which nearness orders.
  case sortByMeaning(String)
  /// A group (`--distinct`) by a field the catalog does not have, or keeps with each item
  /// without indexing it (`isKept`).
  case notDistinct(String, catalog: String, fields: [String], isKept: Bool = false)

  public var description: String {
    switch self {
    case .unknownScope(let scope, let catalog, let scopes):
      let known =
        scopes.isEmpty ? "it has no scope bar" : "its scopes are \(scopes.joined(separator: ", "))"
      return "unknown scope \"\(scope)\" for catalog \(catalog): \(known)"
    case .invalidToken(let token, let catalog):
      return
        "invalid token \"\(token)\": not one filter of catalog \(catalog) (e.g. category:VALUE, FIELD:<NUMBER)"
    case .unknownCategory(let value, let token, let catalog, let known):
      let examples =
        known.isEmpty
        ? "it has no categories" : "e.g. \(known.map { "category:\($0)" }.joined(separator: ", "))"
      return
        "unknown category \"\(value)\" in token \"\(token)\": no item of catalog \(catalog) has it (\(examples))"
    case .unsortable(let field, let catalog, let sortable):
      return
        "cannot sort by \"\(field)\": catalog \(catalog) sorts by \(sortable.joined(separator: ", ")) (FIELD, FIELD:asc or FIELD:desc)"
    case .noLocation(let catalog):
      return
        "catalog \(catalog) has no location to be near: import it with --location LAT_FIELD,LON_FIELD"
    case .distanceWithoutPlace:
      return "a sort by distance needs a place to measure from (--near LAT,LON, near=LAT,LON)"
    case .noVectors(let catalog):
      return
        "catalog \(catalog) has no vectors to search by meaning (import them with --vector FIELD)"
    case .invalidVector(let problem): return "the query vector \(problem)"
    case .invalidSemanticRatio(let ratio):
      return
        "a semantic ratio is between 0 and 1 (0: the text alone, 1: meaning alone), not \(ratio)"
    case .invalidNeighbors(let count):
      return
        "a search by meaning finds 1 to \(SearchVector.maximumNeighbors) nearest items, not \(count)"
    case .sortByMeaning(let field):
      return "a search by meaning is ordered by nearness; it cannot be sorted by \(field)"
    case .notDistinct(let field, let catalog, let fields, let isKept):
      let kept =
        isKept ? " (\(field) is kept, not searched: import it with --text or --number)" : ""
      return
        "cannot keep one result per \"\(field)\": catalog \(catalog) groups by \(fields.joined(separator: ", "))\(kept)"
    }
  }
}

extension SearchCriteria {
  /// The rule of CandySearch that every front end follows: a search filters while it is
  /// presented and has text, a scope other than the first, or a token.
  public static func isFiltering(
    presented: Bool, text: String, tokenCount: Int, scopeIndex: Int
  ) -> Bool {
    presented && (!text.isEmpty || scopeIndex != 0 || tokenCount > 0)
  }

  /// What a search field's state filters by, for `SearchController`, `SearchModel` and every
  /// request alike: nothing when it does not filter; a `#word` being typed at the end asks for
  /// a token, so it is not searched for — the rows and counts stay those of the rest of the
  /// text while a token is picked.
  public static func searchField(
    presented: Bool, text: String, tokens: [SearchToken], scopeIndex: Int,
    sort: SearchSort? = nil, near: SearchNear? = nil
  ) -> SearchCriteria {
    guard
      isFiltering(
        presented: presented, text: text, tokenCount: tokens.count, scopeIndex: scopeIndex)
    else { return SearchCriteria(sort: sort, near: near) }
    let searched =
      CatalogSchema.suggestionFragment(of: text)?.isExplicit == true
      ? CatalogSchema.textAcceptingSuggestion(text) : text
    return SearchCriteria(
      text: searched, tokens: tokens, scopeIndex: scopeIndex, sort: sort, near: near)
  }

  /// Whether these criteria keep fewer than every item: text, a token, a scope past the
  /// first, a radius or one result per group (a sort or a place alone reorders, it does not
  /// filter).
  public var filters: Bool {
    !text.isEmpty || !tokens.isEmpty || scopeIndex != 0 || near?.withinKilometers != nil
      || distinct != nil
  }
}

extension SearchController {
  /// Shows `input`'s search: presented, with its scope, tokens and text in place of the ones
  /// before, searched once.
  ///
  /// - Throws: `SearchRequestError` for a scope the catalog does not have or a token that is
  ///   not one of its filters; the controller is then unchanged.
  public mutating func apply(_ input: SearchRequestInput) throws(SearchRequestError) {
    apply(try SearchRequest(input, schema: schema))
  }

  /// Shows `request`'s search: presented, with its scope, tokens and text in place of the ones
  /// before, searched once.
  public mutating func apply(_ request: SearchRequest) {
    setState(
      isActive: true, isFirstResponder: isFirstResponder, text: request.text,
      tokens: request.tokens, selectedScopeIndex: request.scopeIndex, sort: request.sort,
      near: request.near, withinBox: request.withinBox, distinct: request.distinct,
      selection: selection)
  }
}
