/// One page of a search's results as a front end shows it, whatever the store: the results indicator with its counts, the page's items with the values
/// to show and where the query matched them, the tokens offered for the word being typed, what
/// the parser noticed, and on request the facet counts and why each result stands where it
/// does. `sift serve` writes it as JSON.
public struct SearchPage: Sendable {
  public var indicator: ResultsIndicator
  /// The row of the page's first result.
  public var offset: Int
  public var results: [PageResult]
  public var suggestions: [SearchToken]
  public var diagnostics: [QueryDiagnostic]
  /// How many items each scope and category would show; nil when not asked for.
  public var facets: Facets?
  /// The catalog word nearest a query that found nothing.
  public var didYouMean: String?
  /// Why a page is empty when a `category:` token names a value no item has: a typo the
  /// searcher should hear about rather than an empty page (`sift search` and `sift serve`
  /// refuse the request with it).
  public var unknownCategory: SearchRequestError?
  /// With facets asked and a base filter in force: the scope titles its rows hold
  /// (`SearchCollection.scopesHeldByBase`), the scope buttons a tenant sees; nil otherwise.
  public var heldScopes: [String]?

  public init(
    indicator: ResultsIndicator, offset: Int, results: [PageResult],
    suggestions: [SearchToken], diagnostics: [QueryDiagnostic], facets: Facets?,
    didYouMean: String?, unknownCategory: SearchRequestError? = nil, heldScopes: [String]? = nil
  ) {
    self.indicator = indicator
    self.offset = offset
    self.results = results
    self.suggestions = suggestions
    self.diagnostics = diagnostics
    self.facets = facets
    self.didYouMean = didYouMean
    self.unknownCategory = unknownCategory
    self.heldScopes = heldScopes
  }
}

/// What a page asks of a search besides its criteria.
public struct PageRequest: Hashable, Sendable {
  public var offset: Int
  public var limit: Int
  /// Count the facets of the whole search.
  public var facets: Bool
  /// Say why each result stands where it does.
  public var explain: Bool
  /// Work out each result's fields as a page shows them, with highlights; false leaves
  /// `PageResult.fields` empty, for a caller that prints whole items (`sift search`).
  public var showsFields: Bool
  /// Cut each text value but the title to this many words around its highlights
  /// (`PageResult.cropped(toWords:titleField:)`); nil: whole values.
  public var crop: Int?
  /// Without `showsFields`, still give each list field in `PageResult.fields`, every value,
  /// those the search matched first and no highlights: what a line of text needs (`sift
  /// search`), without highlighting every value of every result.
  public var ordersListValues: Bool

  public init(
    offset: Int = 0, limit: Int, facets: Bool = false, explain: Bool = false,
    showsFields: Bool = true, crop: Int? = nil, ordersListValues: Bool = false
  ) {
    self.offset = offset
    self.limit = limit
    self.facets = facets
    self.explain = explain
    self.showsFields = showsFields
    self.crop = crop
    self.ordersListValues = ordersListValues
  }

  public var rows: Range<Int> { offset..<offset + limit }
}

/// One result: the item, each of its fields as shown, and why it stands where it does.
///
/// On a page of search results a field of many values (a city's 200 other names) shows the
/// values that matched (at most `matchedValuesShown`), then others up to `listValuesOnAPage`,
/// and counts what it left out: a page costs a page. An item read on its own shows every value.
public struct PageResult: Sendable {
  public var item: Item
  /// The fields the item has, in schema order.
  public var fields: [ShownField]
  public var explanation: MatchExplanation?
  /// The fields whose text was cut to a snippet (`PageRequest.crop`): the item holds more.
  public var croppedFields: [String] = []
  /// How far the item is from the place searched near (`SearchNear`), in kilometres to the
  /// metre; nil without a place or a location.
  public var distanceKilometers: Double?
  /// In a search by meaning, the cosine similarity of the item's vector to the query's (-1…1);
  /// nil otherwise, or when the item has no vector.
  public var similarity: Double?

  /// How many values of a list field a search result shows at least: what a row draws.
  public static let listValuesOnAPage = 2
  /// How many matched values of a list field a search result shows at most (a one-letter
  /// query matches most of a city's names).
  public static let matchedValuesShown = 10

  public init(item: Item, fields: [ShownField], explanation: MatchExplanation? = nil) {
    self.item = item
    self.fields = fields
    self.explanation = explanation
  }
}

extension PageResult {
  /// `item` where no search is in force: its values without highlights; with `listValues`, a
  /// list field shows its first that many and counts the rest.
  public init(plain item: Item, schema: CatalogSchema, listValues: Int? = nil) {
    var fields: [ShownField] = []
    for field in schema.allFields {
      guard let value = item[field.name] else { continue }
      if case .texts(let texts) = value, let listValues {
        let shown = Array(texts.prefix(max(0, listValues)))
        fields.append(
          ShownField(
            name: field.name, value: .texts(shown), highlights: [],
            omitted: texts.count - shown.count))
      } else {
        fields.append(ShownField(name: field.name, value: value, highlights: [], omitted: 0))
      }
    }
    self.init(item: item, fields: fields)
  }
}

/// One field of a result: the value to show, and where the search matched its texts.
public struct ShownField: Sendable {
  public var name: String
  /// The value, or for a list field on a page of results the values chosen to show.
  public var value: FieldValue
  /// The texts the search matched, each with the ranges that matched, in the value's order.
  public var highlights: [Highlight]
  /// How many values of a list field were left out.
  public var omitted: Int

  public struct Highlight: Sendable {
    public var text: String
    public var ranges: [Range<String.Index>]
  }
}

extension SearchCollection where Element == Item {
  /// `item` as a result of this collection's search shows it: highlights from the search, and
  /// with `listValues` a list field cut to its matched values and that many in all.
  public func pageResult(
    _ item: Item, explanation: MatchExplanation? = nil, listValues: Int? = nil
  ) -> PageResult {
    pageResult(item, slot: nil, explanation: explanation, listValues: listValues)
  }

  /// `pageResult(_:explanation:listValues:)` of the item in index slot `slot` (a row's: its id
  /// is not looked up).
  func pageResult(
    _ item: Item, slot: Int?, explanation: MatchExplanation? = nil, listValues: Int? = nil
  ) -> PageResult {
    var fields: [ShownField] = []
    let searched = schema.fields.count
    for (position, field) in schema.allFields.enumerated() {
      guard let value = item[field.name] else { continue }
      // A stored field is shown, never matched.
      let highlighted = field.kind != .number && position < searched
      let texts = value.strings
      if case .texts = value, let listValues {
        let mayMatch =
          valuesThatMayMatch(field: field.name, of: item.id, slot: slot).flatMap {
            $0.count == texts.count ? $0 : nil
          } ?? texts.map { _ in true }
        var shown: [ShownField.Highlight] = []
        var unmatched: [String] = []
        for (text, candidate) in zip(texts, mayMatch) {
          guard shown.count < PageResult.matchedValuesShown else { break }
          let ranges =
            candidate && highlighted
            ? highlightRanges(in: text, field: field.name, of: item, slot: slot) : []
          if ranges.isEmpty {
            unmatched.append(text)
          } else {
            shown.append(.init(text: text, ranges: ranges))
          }
        }
        let matched = shown
        shown += unmatched.prefix(max(0, listValues - shown.count)).map {
          .init(text: $0, ranges: [])
        }
        fields.append(
          ShownField(
            name: field.name, value: .texts(shown.map(\.text)), highlights: matched,
            omitted: texts.count - shown.count))
        continue
      }
      var highlights: [ShownField.Highlight] = []
      if highlighted {
        for text in texts {
          let ranges = highlightRanges(in: text, field: field.name, of: item, slot: slot)
          if !ranges.isEmpty { highlights.append(.init(text: text, ranges: ranges)) }
        }
      }
      fields.append(ShownField(name: field.name, value: value, highlights: highlights, omitted: 0))
    }
    return PageResult(item: item, fields: fields, explanation: explanation)
  }

  /// Each searched list field of `item` with every value, those the search matched first (at
  /// most `PageResult.matchedValuesShown` looked for), and no highlights.
  func listsMatchedFirst(_ item: Item, slot: Int?) -> [ShownField] {
    schema.fields.compactMap { field -> ShownField? in
      guard field.kind == .text, case .texts(let values)? = item[field.name], values.count > 1,
        let ordered = valuesMatchedFirst(
          values, field: field.name, of: item, slot: slot,
          lookingFor: PageResult.matchedValuesShown)
      else { return nil }
      return ShownField(name: field.name, value: .texts(ordered), highlights: [], omitted: 0)
    }
  }

  /// `values`, the list field `field` of `item`, with those the search matched first (the first
  /// `limit` found, in their order) and then the others as they came; nil when none matched.
  /// Only the values the index says may hold a match are highlighted to find out: a row of a
  /// city with 200 other names looks at a few. What a terminal row and a line of text show.
  package func valuesMatchedFirst(
    _ values: [String], field: String, of item: Item, slot: Int? = nil, lookingFor limit: Int
  ) -> [String]? {
    let mayMatch =
      valuesThatMayMatch(field: field, of: item.id, slot: slot).flatMap {
        $0.count == values.count ? $0 : nil
      } ?? values.map { _ in true }
    var matched: [Int] = []
    for (place, candidate) in mayMatch.enumerated() where candidate && matched.count < limit {
      if !highlightRanges(in: values[place], field: field, of: item, slot: slot).isEmpty {
        matched.append(place)
      }
    }
    guard !matched.isEmpty else { return nil }
    let first = Set(matched)
    return matched.map { values[$0] }
      + values.indices.filter { !first.contains($0) }.map {
        values[$0]
      }
  }
}

extension SearchCollection where Element == Item {
  /// This collection filtered by `request`: the one search every store and front end makes for
  /// a request. From a collection that answered a search the request narrows (a letter typed
  /// at the end, a token added), only its rows are searched again.
  public func searched(_ request: SearchRequest) -> FilteredCollection {
    var searched = self
    searched.filter(by: request.criteria)
    return searched
  }

  /// The page `page` asks for of this collection's search, which answers `request`
  /// (`searched(_:)`): what `sift search`, `sift serve` and a node answer, assembled here alone.
  /// `items`: the page's items, read already (nil where gone); nil: read them from the
  /// collection.
  public func page(
    _ page: PageRequest, answering request: SearchRequest, items: [Item?]? = nil
  ) -> SearchPage {
    self.page(
      page, isFiltering: request.isFiltering, text: request.text, tokens: request.tokens,
      offered: request.suggestions, items: items, facets: nil)
  }

  /// The page of this collection's search as a search field in any state shows it:
  /// `isFiltering`, `text` and `tokens` as the field has them, `offered` the tokens offered for
  /// the word being typed (ordered here by the facets when more than one), `facets` when
  /// counted already.
  func page(
    _ page: PageRequest, isFiltering: Bool, text: String, tokens: [SearchToken],
    offered: [SearchToken], items: [Item?]?, facets counted: Facets?
  ) -> SearchPage {
    let matched = rows.count
    let rows = min(page.rows.lowerBound, matched)..<min(page.rows.upperBound, matched)
    let results = zip(rows, items ?? elements(atRows: rows)).compactMap {
      row, item -> PageResult? in
      guard let item else { return nil }
      var explanation = page.explain ? self.explanation(forRow: row) : nil
      // The rule against the next result on the page: the last one's next is not shown.
      if row == rows.upperBound - 1 { explanation?.aheadOfNext = nil }
      // Its place in the whole catalog would tell a searcher framed by a base filter how many
      // rows others have.
      if hasBase { explanation?.hidesCatalogOrder = true }
      let slot = matches.ids.slot(at: row)
      var result =
        page.showsFields
        ? pageResult(
          item, slot: slot, explanation: explanation, listValues: PageResult.listValuesOnAPage
        ).cropped(toWords: page.crop, titleField: schema.titleField)
        : PageResult(
          item: item, fields: page.ordersListValues ? listsMatchedFirst(item, slot: slot) : [],
          explanation: explanation)
      result.distanceKilometers = schema.kilometers(of: item, from: resolved.near)
      if resolved.vector != nil {
        result.similarity = explanation?.meaning?.similarity ?? meaning(forRow: row)?.similarity
      }
      return result
    }
    let offered = heldByBase(offered)
    // Facets cost a search: counted only when asked for or when they order the tokens offered.
    let facets = counted ?? (page.facets || offered.count > 1 ? self.facets : nil)
    let indicator = indicator(isFiltering: isFiltering)
    return SearchPage(
      indicator: indicator, offset: page.offset, results: results,
      suggestions: offered.count > 1 ? facets?.ordering(offered) ?? offered : offered,
      diagnostics: resolved.diagnostics, facets: page.facets ? facets : nil,
      didYouMean: didYouMean(text: text, indicator: indicator),
      unknownCategory: matched == 0 ? unknownCategory(in: tokens) : nil,
      heldScopes: page.facets ? scopesHeldByBase : nil)
  }

  /// The first `category:` token of `tokens` whose value no item has; nil when each names one
  /// some item has (an edit's new category included: the index answers, not the schema's list).
  func unknownCategory(in tokens: [SearchToken]) -> SearchRequestError? {
    for token in tokens {
      guard case .success(let term) = Query.term(forToken: token.identifier, schema: schema),
        !term.isNegated, case .category = term.condition,
        index.matchCount(MatchRequest(terms: [term], typos: .off)) == 0
      else { continue }
      let known = schema.suggestedTokens.compactMap { suggestion -> String? in
        guard suggestion.identifier.hasPrefix("category:") else { return nil }
        return String(suggestion.identifier.dropFirst("category:".count))
      }
      // A category no suggestion lists reads as its value, as typed (`SearchRequest`).
      return .unknownCategory(
        token.text, token: token.identifier, catalog: schema.name, known: Array(known.prefix(3)))
    }
    return nil
  }

  /// When a search finds nothing: the catalog word nearest the last word typed, in any scope
  /// ("Did you mean “caramel”?" while the Chocolate scope hides Caramel) but within the base
  /// filter's rows; nil otherwise.
  public func didYouMean(text: String, indicator: ResultsIndicator) -> String? {
    guard let last = Self.spellingTerm(text: text, indicator: indicator),
      let suggestion = index.nearestCatalogWord(to: last), suggestion != TextFolding.fold(last),
      baseHolds(word: suggestion)
    else { return nil }
    return suggestion
  }

  /// The word "did you mean" looks up: the last one typed, when a search found nothing and it
  /// is a plain word (not negated, fielded or quoted).
  static func spellingTerm(text: String, indicator: ResultsIndicator) -> String? {
    guard indicator.isNoResults,
      let last = text.split(whereSeparator: \.isWhitespace).last, !last.hasPrefix("-"),
      !last.contains(":"), !last.contains("\"")
    else { return nil }
    return String(last)
  }
}

extension SearchController {
  /// The page `request` asks for of the rows shown, as the search field shows them
  /// (`FilteredCollection.page(_:answering:items:)` assembles it).
  public func searchPage(_ request: PageRequest) -> SearchPage {
    collection.page(
      request, isFiltering: isFiltering, text: text, tokens: tokens,
      offered: isActive ? schema.suggestedTokens(forText: text, excluding: tokens) : [],
      items: nil, facets: installedFacets)
  }
}
