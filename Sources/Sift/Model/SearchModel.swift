import Observation

/// The state a SwiftUI search screen binds to: the field's text and tokens, the suggested
/// tokens, the scope bar, whether search is presented — and what they select, `results` in
/// ranked order with the results indicator and a count for each scope.
///
/// ```swift
/// List(model.results) { candy in Text(candy.name) }
///   .searchable(text: $model.text, tokens: $model.tokens,
///               suggestedTokens: $model.suggestedTokens, isPresented: $model.isPresented) {
///     token in Label(token.text ?? "", systemImage: "tag")
///   }
///   .searchScopes($model.scope) {
///     ForEach(model.scopeTitles.indices, id: \.self) { Text(model.scopeTitles[$0]).tag($0) }
///   }
/// ```
///
/// Every change searches again. Collections of at least `backgroundThreshold` elements are
/// searched off the main actor; a search superseded by a later change, or started before an
/// edit, never lands: `results` only ever answer the current state.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor @Observable
public final class SearchModel<Element: Identifiable & Sendable> where Element.ID: Sendable {
  /// The search field's text.
  public var text = "" {
    didSet { if text != oldValue { stateChanged() } }
  }
  /// The tokens before the text. Taking a suggested token also removes the word typed for it.
  public var tokens: [TypedToken<Element>] = [] {
    didSet {
      guard tokens != oldValue else { return }
      if tokens.count == oldValue.count + 1, let added = tokens.last,
        suggestedTokens.contains(added)
      {
        text = CatalogSchema.textAcceptingSuggestion(text)
      }
      stateChanged()
    }
  }
  /// Tokens offered for the word being typed ("cho" → Chocolate; `#` offers them all).
  public var suggestedTokens: [TypedToken<Element>] = []
  /// The selected scope-bar button; 0 is the first.
  public var scope = 0 {
    didSet { if scope != oldValue { stateChanged() } }
  }
  /// The order of the results: by a field (`try schema.sort(by: \.price)`, a sort menu's
  /// choice), or nil for relevance. A field the schema cannot sort by orders by relevance.
  public var sort: SearchSort? {
    didSet { if sort != oldValue { stateChanged() } }
  }
  /// The place results are near (the device's location): distance ranks them right after
  /// typos, word starts and a title match, a radius keeps only those within it. Needs a schema with a location
  /// (`SearchSchema.located(latitude:longitude:)`); nil: no place.
  public var near: SearchNear? {
    didSet { if near != oldValue { stateChanged() } }
  }
  /// Only the items inside this area — a map's visible region, "search this area". Needs a
  /// schema with a location; nil: anywhere.
  public var withinBox: GeoBox? {
    didSet { if withinBox != oldValue { stateChanged() } }
  }
  /// One result per value of this field — the best edition of each book, the best city of each
  /// country — named as the schema names it; the count says how many groups. Nil: every match.
  public var distinct: String? {
    didSet { if distinct != oldValue { stateChanged() } }
  }
  /// Items by meaning: nearest an embedding of what was typed (or picked), or like another
  /// item, fused with the text's order when there is text. Needs a schema with vectors
  /// (`SearchSchema.searchingByMeaning(_:dimensions:)`); nil: by the words alone.
  public var vector: SearchVector? {
    didSet { if vector != oldValue { stateChanged() } }
  }
  /// Whether the search interface is presented. Dismissing it shows everything again.
  public var isPresented = false {
    didSet { if isPresented != oldValue { stateChanged() } }
  }

  /// The matching elements, best first (every element when not filtering).
  public private(set) var results: [Element] = []
  /// "Items found: 3", "No items match your query", "No exact matches — showing 2 near spellings".
  public private(set) var indicator: ResultsIndicator
  /// How many elements each scope-bar button would show for the current text and tokens.
  public private(set) var scopeCounts: [Int] = []
  /// The scope counts and, per category, what its token would show.
  public private(set) var facets: Facets
  /// True while a background search for the current state is running.
  public private(set) var isSearching = false
  /// What the query parser noticed in the text and tokens, and tokens the schema cannot read.
  public private(set) var diagnostics: [String] = []
  /// The scope-bar titles, first button first.
  public let scopeTitles: [String]
  /// How many elements a collection needs before it is searched off the main actor.
  public let backgroundThreshold: Int

  /// The collection whose results are shown.
  public private(set) var collection: SearchCollection<Element>
  @ObservationIgnored private var generation = 0
  @ObservationIgnored private var searchTask: Task<Void, Never>?
  /// Awaited before a background result is delivered (tests hold a search back with it).
  @ObservationIgnored var beforeDelivery: (@Sendable (SearchCriteria) async -> Void)?

  /// A model showing every element of `elements`.
  ///
  /// - Throws: `CatalogEditError.duplicateID` when two elements share an id.
  public convenience init(
    _ elements: some Sequence<Element>, schema: SearchSchema<Element>,
    typoTolerance: TypoTolerance = .automatic, backgroundThreshold: Int = 20_000
  ) throws(CatalogEditError) {
    self.init(
      try SearchCollection(elements, schema: schema, typoTolerance: typoTolerance),
      backgroundThreshold: backgroundThreshold)
  }

  /// A model showing every element of `collection` (one over an index read from a file, so
  /// that nothing is folded again).
  package init(_ collection: SearchCollection<Element>, backgroundThreshold: Int = 20_000) {
    self.collection = collection
    self.backgroundThreshold = backgroundThreshold
    scopeTitles = collection.schema.scopeTitles
    indicator = collection.indicator
    facets = collection.facets
    install(collection, facets: facets)
  }

  public var schema: SearchSchema<Element> { collection.searchSchema }

  /// CandySearch's rule: presented, and text, a scope other than the first, or a token
  /// (`SearchCriteria.isFiltering(presented:text:tokenCount:scopeIndex:)`).
  public var isFiltering: Bool {
    SearchCriteria.isFiltering(
      presented: isPresented, text: text, tokenCount: tokens.count, scopeIndex: scope)
      || near?.withinKilometers != nil || withinBox != nil || distinct != nil || vector != nil
  }

  /// What the current state filters by, by the rule `SearchController` follows
  /// (`SearchCriteria.searchField(presented:text:tokens:scopeIndex:)`): a `#word` being typed
  /// for a token is not searched for.
  public var criteria: SearchCriteria {
    var criteria = SearchCriteria.searchField(
      presented: isPresented, text: text, tokens: resolvedTokens.tokens, scopeIndex: scope,
      sort: sort, near: near)
    criteria.keepInside(withinBox, location: schema.catalog.location)
    criteria.distinct = distinct
    criteria.vector = vector
    return criteria
  }

  /// The smallest and largest value of the number property at `keyPath` among the results — a
  /// price slider's ends (`Slider(value: $price, in: model.range(of: \.price) ?? 0...1)`); nil
  /// when no result has one or the property is not a declared number field.
  public func range<Value>(of keyPath: KeyPath<Element, Value>) -> ClosedRange<Double>? {
    schema.field(for: keyPath).flatMap { facets.range(of: $0.name) }
  }

  /// The categories whose name matches `text` — a filter list's own search field over many
  /// values (countries, brands) — each with how many results hold it, most first; near
  /// spellings when none matches as written (`Facets.categories(matching:schema:limit:)`).
  public func categories(matching text: String, limit: Int = .max) -> [FacetValue] {
    facets.categories(matching: text, schema: schema.catalog, limit: limit)
  }

  /// Where the current search matched in the element's property (`\.name`), for highlighting.
  public func highlights(
    _ keyPath: any KeyPath<Element, String> & Sendable, of element: Element
  ) -> [Range<String.Index>] {
    collection.highlights(keyPath, of: element)
  }

  /// What a suggested token would show if taken.
  public func count(of token: TypedToken<Element>) -> Int? {
    guard let searchToken = try? schema.searchToken(for: token) else { return nil }
    return facets.count(of: searchToken)
  }

  /// Waits until the results answer the current state.
  public func waitForSearch() async {
    while let task = searchTask {
      await task.value
      if searchTask == task { searchTask = nil }
    }
  }

  // MARK: - Edits

  /// Adds an element; it shows at once if it matches.
  @discardableResult
  public func add(_ element: Element) throws(CatalogEditError) -> RowChanges {
    try edit { (collection) throws(CatalogEditError) in try collection.add(element) }
  }

  /// Replaces the element with the same id.
  @discardableResult
  public func update(_ element: Element) throws(CatalogEditError) -> RowChanges {
    try edit { (collection) throws(CatalogEditError) in try collection.update(element) }
  }

  /// Deletes the element with this id.
  @discardableResult
  public func delete(id: Element.ID) throws(CatalogEditError) -> RowChanges {
    try edit { (collection) throws(CatalogEditError) in try collection.delete(id: id) }
  }

  /// Applies an edit to the collection shown; a search in flight started before it is dropped
  /// and run again.
  private func edit(
    _ change: (inout SearchCollection<Element>) throws(CatalogEditError) -> RowChanges
  ) throws(CatalogEditError) -> RowChanges {
    var edited = collection
    let changes = try change(&edited)
    install(edited, facets: edited.facets)
    if isSearching { stateChanged() }
    return changes
  }

  // MARK: - Searching

  private var resolvedTokens: (tokens: [SearchToken], errors: [String]) {
    var tokens: [SearchToken] = []
    var errors: [String] = []
    for token in self.tokens {
      do {
        tokens.append(try schema.searchToken(for: token))
      } catch {
        errors.append(error.description)
      }
    }
    return (tokens, errors)
  }

  private func stateChanged() {
    let suggestions =
      isPresented
      ? schema.catalog.suggestedTokens(
        forText: text, excluding: resolvedTokens.tokens,
        known: collection.index.categorySpellings.values
      ).map(schema.typedToken(for:)) : []
    if suggestions != suggestedTokens { suggestedTokens = suggestions }
    generation += 1
    let criteria = self.criteria
    guard collection.totalCount >= backgroundThreshold else {
      searchTask?.cancel()
      searchTask = nil
      if isSearching { isSearching = false }
      var next = collection
      next.filter(by: criteria)
      install(next, facets: next.facets)
      return
    }
    searchTask?.cancel()
    if !isSearching { isSearching = true }
    let job = collection.searchJob(for: criteria)
    let generation = generation
    let gate = beforeDelivery
    searchTask = Task.detached(priority: .userInitiated) { [weak self] in
      let answer = job.run()
      await gate?(criteria)
      await self?.deliver(answer, generation: generation)
    }
  }

  /// Installs a background answer if it still answers the current state: no later change of
  /// the state and no edit since the job was made.
  private func deliver(_ answer: SearchAnswer<Element.ID>, generation: Int) {
    guard generation == self.generation else { return }
    var next = collection
    guard next.install(answer) else { return }
    install(next, facets: answer.facets ?? next.facets)
    isSearching = false
  }

  /// Shows `next`, touching only the properties whose values change (each set notifies views).
  private func install(_ next: SearchCollection<Element>, facets: Facets) {
    let previous = collection
    collection = next
    if next.rows != previous.rows || next.revision != previous.revision || results.isEmpty {
      results = Array(next.results)
    }
    if facets != self.facets { self.facets = facets }
    if facets.scopes != scopeCounts { scopeCounts = facets.scopes }
    if next.indicator != indicator { indicator = next.indicator }
    let diagnostics = next.resolved.diagnostics.map(\.message) + resolvedTokens.errors
    if diagnostics != self.diagnostics { self.diagnostics = diagnostics }
  }
}
