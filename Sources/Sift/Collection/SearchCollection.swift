/// A live, filtered and ranked view over an editable collection of an app's own elements —
/// what the seeds' table views show while a search is active — keyed by their stable ids.
///
/// It owns the elements (as `IdentifiedArray` does) and an index of what it searches, read
/// through the schema's key paths; the index keeps no copy of their fields. A collection too big
/// to hold as values keeps only the index and reads the elements it shows from an
/// `ElementSource` (a catalog file's table). Edits address
/// elements by id (or by row of this view, resolved to an id at once), so a filtered delete
/// removes that element and no other even when titles repeat. Every edit returns the
/// `RowChanges` that turn the previous rows into the new ones, ready for a batch update: an
/// edited element that stops matching leaves the rows, an added one that matches enters at its
/// ranked place (FoodTracker's rules, seed 004).
///
/// `FilteredCollection` is the same view over `Item`s, for catalogs whose fields are known only
/// at run time.
public struct SearchCollection<Element: Identifiable & Sendable>: Sendable
where Element.ID: Sendable {
  public typealias ID = Element.ID

  /// How elements are read and searched.
  public private(set) var searchSchema: SearchSchema<Element>
  /// What the engine searches: folded text, numbers, ids and order.
  package private(set) var index: SearchIndex<ID>
  private var elements: ElementStorage<Element>
  /// The criteria in force, as read against the schema (with diagnostics).
  public private(set) var resolved: ResolvedCriteria
  /// The matches of the criteria in force, best first.
  package private(set) var matches: RankedMatches<ID>
  /// Counts edits. A search run on a copy of this collection is only current while the copy's
  /// revision equals this one.
  public private(set) var revision = 0
  /// How many elements the base filter in force keeps (`SearchCriteria.base`), counted once
  /// per base and revision; nil without one.
  var baseCount: Int?
  /// When near spellings are looked for; changing it searches again.
  public var typoTolerance: TypoTolerance {
    didSet {
      guard typoTolerance != oldValue else { return }
      matches = index.search(request)
    }
  }

  /// A view of `elements` (in catalog order) showing everything.
  ///
  /// - Throws: `CatalogEditError.duplicateID` when two elements share an id.
  /// - Complexity: O(*n*) in the elements' text, folded on every core.
  public init(
    _ elements: some Sequence<Element>, schema: SearchSchema<Element>,
    typoTolerance: TypoTolerance = .automatic
  ) throws(CatalogEditError) {
    let elements = Array(elements)
    self.init(
      held: elements, schema: schema,
      checkedIndex: try SearchIndex(schema: schema, elements: elements),
      typoTolerance: typoTolerance)
  }

  /// A view of `elements` (in catalog order) over an index built before — read back from an
  /// archive (`SearchIndex(archive:schema:)`) — so nothing is folded again.
  ///
  /// - Throws: `CatalogEditError.indexDoesNotMatch` unless the index holds exactly these ids in
  ///   this order.
  /// - Complexity: O(*n*) to check the ids and keep the elements.
  package init(
    _ elements: some Sequence<Element>, schema: SearchSchema<Element>, index: SearchIndex<ID>,
    typoTolerance: TypoTolerance = .automatic
  ) throws(CatalogEditError) {
    let elements = Array(elements)
    guard index.count == elements.count, index.allIDs.elementsEqual(elements.lazy.map(\.id))
    else { throw .indexDoesNotMatch }
    self.init(held: elements, schema: schema, checkedIndex: index, typoTolerance: typoTolerance)
  }

  /// A view over `index` that holds no elements: the ones shown are read from `source` when
  /// asked for (`elements(atRows:)`, `element(id:)`), so memory holds only what is searched.
  ///
  /// The caller vouches that `source` holds exactly the index's elements (a catalog file checks
  /// that its index is stamped with its items' generation); edits must then be written to
  /// `source` before they are applied here (`SearchController.commit(_:to:)`).
  ///
  /// - Complexity: O(1) beyond the first search (everything shown, in catalog order).
  package init(
    index: SearchIndex<ID>, schema: SearchSchema<Element>, source: some ElementSource<Element>,
    typoTolerance: TypoTolerance = .automatic
  ) {
    self.init(
      storage: .fetched(source), schema: schema, checkedIndex: index, typoTolerance: typoTolerance)
  }

  private init(
    held elements: [Element], schema: SearchSchema<Element>, checkedIndex index: SearchIndex<ID>,
    typoTolerance: TypoTolerance
  ) {
    self.init(
      storage: .held(
        Dictionary(elements.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })),
      schema: schema, checkedIndex: index, typoTolerance: typoTolerance)
  }

  /// A view showing everything over an index known to hold exactly the stored elements.
  private init(
    storage: ElementStorage<Element>, schema: SearchSchema<Element>,
    checkedIndex index: SearchIndex<ID>, typoTolerance: TypoTolerance
  ) {
    searchSchema = schema
    self.index = index
    elements = storage
    self.typoTolerance = typoTolerance
    resolved = ResolvedCriteria(.everything, schema: schema.catalog)
    matches = index.search(resolved.request(typos: typoTolerance))
  }

  public var schema: CatalogSchema { searchSchema.catalog }
  public var criteria: SearchCriteria { resolved.criteria }

  /// The expressions that find each other (`Synonyms`). Setting them searches the criteria in
  /// force again; the index does not change.
  public var synonyms: Synonyms {
    get { schema.synonyms }
    set {
      searchSchema.catalog.synonyms = newValue
      searchAgainWithSchema()
    }
  }
  /// The items pinned at rows of a query's results or hidden from them (`Pins`). Setting them
  /// searches the criteria in force again; the index does not change.
  public var pins: Pins {
    get { schema.pins }
    set {
      searchSchema.catalog.pins = newValue
      searchAgainWithSchema()
    }
  }

  /// Searches the criteria in force again, read with the schema as it is now.
  private mutating func searchAgainWithSchema() {
    let next = ResolvedCriteria(resolved.criteria, schema: schema)
    install(
      SearchJob(
        index: index, resolved: next, request: next.request(typos: typoTolerance),
        previous: nil, revision: revision
      ).run(withFacets: false))
  }
  /// The criteria in force as the index takes them.
  package var request: MatchRequest { resolved.request(typos: typoTolerance) }
  /// The ids of the matching elements, best first: a view, each id read when asked for.
  public var rows: MatchedIDs<ID> { matches.ids }
  /// Whether the elements are read from an `ElementSource` when shown rather than held.
  public var readsElementsWhenShown: Bool {
    if case .fetched = elements { true } else { false }
  }
  /// The matching elements, best first.
  ///
  /// - Complexity: O(1) for held elements; reading every matching element from an
  ///   `ElementSource` (prefer `elements(atRows:)` for what is on screen).
  public var results: SearchResults<Element> {
    let all = Array(matches.ids)
    let found = elements.found(all)
    // Held elements are every id's; a source may have lost some, which are left out.
    let ids = readsElementsWhenShown ? all.filter { found[$0] != nil } : all
    return SearchResults(ids: ids, elements: found)
  }
  /// How many of the rows match every term as written.
  public var exactMatchCount: Int { matches.exactCount }
  /// Whether the rows include near spellings: exact matches fell below the typo threshold.
  public var includesNearSpellings: Bool { matches.includesNearSpellings }
  /// The number of elements in the collection, shown or not.
  public var totalCount: Int { index.count }
  /// The number of elements the searcher may see: those the base filter keeps
  /// (`SearchCriteria.base`), else every one.
  public var visibleCount: Int { baseCount ?? totalCount }
  /// "Items found: 3", "No items match your query", "15 items" while nothing filters.
  public var indicator: ResultsIndicator { indicator(isFiltering: criteria.filters) }

  /// The indicator of these rows for a search field that is `isFiltering` (a controller's field
  /// may be inactive while its criteria still filter): the one place the counts are read.
  func indicator(isFiltering: Bool) -> ResultsIndicator {
    ResultsIndicator(
      isFiltering: isFiltering, matchCount: rows.count, totalCount: visibleCount,
      exactMatchCount: exactMatchCount)
  }
  /// The elements in catalog order, shown or not.
  ///
  /// - Complexity: O(*n*); every element is read when they come from an `ElementSource`.
  public var allElements: [Element] { elements.elements(index.allIDs).compactMap { $0 } }

  public func element(id: ID) -> Element? { elements.element(id) }

  /// Whether an element has `id`, shown or not (the index answers: nothing is read).
  public func contains(id: ID) -> Bool { index.contains(id: id) }

  /// The element shown at `row`.
  public func element(atRow row: Int) -> Element? {
    rows.indices.contains(row) ? elements.element(rows[row]) : nil
  }

  /// The elements shown at `rows` (clamped to the rows there are), in one read when they come
  /// from an `ElementSource`: what a screen or a page of output shows. Position *i* is row
  /// `rows.lowerBound + i`; nil where a source no longer has the element.
  public func elements(atRows rows: Range<Int>) -> [Element?] {
    elements.elements(ids(atRows: rows))
  }

  /// The ids of the elements shown at `rows` (clamped to the rows there are), in row order.
  public func ids(atRows rows: Range<Int>) -> [ID] {
    Array(matches.ids[rows.clamped(to: self.rows.indices)])
  }

  /// The row showing the element, if it is shown.
  ///
  /// - Complexity: O(log *n*): the element's own rank tells where it must be.
  public func row(of id: ID) -> Int? { index.row(of: id, in: matches, request: request) }

  /// Where the element at `row` stands on the relevance rules before popularity.
  public func rank(atRow row: Int) -> MatchRank? { matches.rank(at: row) }

  /// Filters by `criteria`. When they narrow the criteria in force (a letter typed at the end
  /// of a term, a term or token added), only the rows shown are searched again when few.
  ///
  /// - Complexity: O(*n*) in the searched text; O(*k*) in the rows when refining them.
  public mutating func filter(by criteria: SearchCriteria) {
    guard criteria != resolved.criteria else { return }
    install(searchJob(for: criteria).run(withFacets: false))
  }

  /// The search that would bring the rows to `criteria`, as a job to run on another thread:
  /// the index (shared, not copied), the request and the rows it may refine — not the elements.
  package func searchJob(for criteria: SearchCriteria) -> SearchJob<ID> {
    let next = ResolvedCriteria(criteria, schema: schema)
    let reading = next.narrowing(resolved)
    return SearchJob(
      index: index, resolved: next, request: next.request(typos: typoTolerance),
      previous: reading == nil ? nil : matches, reading: reading ?? [], revision: revision)
  }

  /// Installs the answer of a job made from this collection, unless an edit came since (then
  /// its matches may miss or hold edited elements). Returns whether it was installed.
  @discardableResult
  package mutating func install(_ answer: SearchAnswer<ID>) -> Bool {
    guard answer.revision == revision, answer.request.typos == typoTolerance else { return false }
    let sameBase = answer.resolved.baseTerms == resolved.baseTerms
    resolved = answer.resolved
    matches = answer.matches
    if !sameBase { baseCount = countedBase() }
    return true
  }

  /// Where the criteria in force matched in `text`, a displayed value of the field named
  /// `field` of `element`.
  public func highlightRanges(
    in text: String, field: String, of element: Element
  ) -> [Range<String.Index>] {
    highlightRanges(in: text, field: field, of: element, slot: nil)
  }

  /// `highlightRanges(in:field:of:)` of an element whose index slot is known (a row's).
  func highlightRanges(
    in text: String, field: String, of element: Element, slot: Int?
  ) -> [Range<String.Index>] {
    index.highlightRanges(
      in: text, field: field, value: searchSchema.value(of: element, field: field),
      of: element.id, slot: slot, request: request, nearSpellings: includesNearSpellings)
  }

  /// Where the criteria in force matched in the element's property at `keyPath` (`\.title`).
  public func highlights(
    _ keyPath: any KeyPath<Element, String> & Sendable, of element: Element
  ) -> [Range<String.Index>] {
    guard let field = searchSchema.field(for: keyPath) else { return [] }
    return highlightRanges(in: element[keyPath: keyPath], field: field.name, of: element)
  }

  /// Where the criteria in force matched in each value of a list property (`\.aliases`).
  public func highlights(
    _ keyPath: any KeyPath<Element, [String]> & Sendable, of element: Element
  ) -> [[Range<String.Index>]] {
    let values = element[keyPath: keyPath]
    guard let field = searchSchema.field(for: keyPath) else { return values.map { _ in [] } }
    return values.map { highlightRanges(in: $0, field: field.name, of: element) }
  }

  // MARK: - Facets

  /// For the criteria in force: how many elements each scope-bar button and each category
  /// token would show ("All 15 · Chocolate 5 · Hard 4 · Other 6").
  ///
  /// - Complexity: O(*k*) in the rows for the first scope without typo-prone terms; otherwise
  ///   one search, plus one per field scope.
  public var facets: Facets { index.facets(of: resolved, request: request, matches: matches) }
}

extension SearchCollection {

  // MARK: - Edits

  /// Adds an element at the end of catalog order; it shows if it matches, at its ranked place.
  ///
  /// - Complexity: O(*m*) in its text to index it, O(*k*) in the rows in order to place it.
  @discardableResult
  public mutating func add(_ element: Element) throws(CatalogEditError) -> RowChanges {
    let values = searchSchema.indexedValues(of: element)
    let changes = try edit(element.id, changed: false) { index throws(CatalogEditError) in
      try index.add(element.id, values)
    }
    elements.store(element)
    return changes
  }

  /// Replaces the element that has `element.id`. It leaves the rows if it no longer matches.
  ///
  /// - Complexity: as `add(_:)`.
  @discardableResult
  public mutating func update(_ element: Element) throws(CatalogEditError) -> RowChanges {
    let values = searchSchema.indexedValues(of: element)
    let changes = try edit(element.id, changed: true) { index throws(CatalogEditError) in
      try index.update(element.id, values)
    }
    elements.store(element)
    return changes
  }

  /// Deletes the element with `id` and returns it.
  ///
  /// - Complexity: O(*k*) in the rows in order.
  @discardableResult
  public mutating func delete(id: ID) throws(CatalogEditError) -> RowChanges {
    let changes = try edit(id, changed: false) { index throws(CatalogEditError) in
      try index.remove(id: id)
    }
    elements.remove(id)
    return changes
  }

  /// Deletes the element shown at `row` of this view.
  @discardableResult
  public mutating func deleteRow(_ row: Int) throws(CatalogEditError) -> RowChanges {
    guard rows.indices.contains(row) else { throw .rowOutOfRange(row, rowCount: rows.count) }
    return try delete(id: rows[row])
  }

  /// Changes the element shown at `row` of this view; its id must stay.
  @discardableResult
  public mutating func updateRow(
    _ row: Int, _ change: (inout Element) -> Void
  ) throws(CatalogEditError) -> RowChanges {
    guard var element = element(atRow: row) else {
      throw .rowOutOfRange(row, rowCount: rows.count)
    }
    let id = element.id
    change(&element)
    guard element.id == id else { throw .idChanged(SearchIndex<ID>.describe(id)) }
    return try update(element)
  }

  /// Applies one element's edit to the index, puts the element where the criteria in force
  /// rank it (or nowhere), and reports the row changes: only its own row moves, so they are
  /// read from its row before and after — except under `SearchCriteria.distinct`, where
  /// another item may take or give up its group's row, and the rows are compared whole.
  ///
  /// The matches let go of the index they were made from while it changes, so the index is
  /// changed in place rather than copied whole.
  private mutating func edit(
    _ id: ID, changed: Bool,
    _ change: (inout SearchIndex<ID>) throws(CatalogEditError) -> Void
  ) throws(CatalogEditError) -> RowChanges {
    let oldRow = row(of: id)
    let before = request.distinct == nil && request.pins == nil ? nil : Array(matches.ids)
    matches = matches.detached()
    do {
      try change(&index)
    } catch {
      matches = index.replacing(nil, in: matches, request: request)
      throw error
    }
    revision += 1
    matches = index.replacing(id, in: matches, request: request)
    if baseCount != nil { baseCount = countedBase() }
    if let before {
      return RowChanges(from: before, to: Array(matches.ids), changed: changed ? [id] : [])
    }
    return RowChanges(row: oldRow, becoming: row(of: id), changed: changed)
  }

  /// What the collection holds, per item: the index's buffers and the elements' own text.
  ///
  /// - Complexity: O(*n*); every element is read when they come from an `ElementSource`.
  package var memory: IndexMemory {
    var memory = index.memory
    memory.rawTextBytes = allElements.reduce(0) { total, element in
      total
        + searchSchema.indexedTexts(of: element).reduce(0) {
          $0 + $1.reduce(0) { $0 + $1.utf8.count }
        }
    }
    return memory
  }
}

/// A search to run off the caller's thread: everything the index needs, nothing more.
package struct SearchJob<ID: Hashable & Sendable>: Sendable {
  let index: SearchIndex<ID>
  let resolved: ResolvedCriteria
  let request: MatchRequest
  let previous: RankedMatches<ID>?
  /// The terms that may find by a reading items `previous` lacks (`ResolvedCriteria.narrowing`).
  var reading: [QueryTerm] = []
  let revision: Int

  /// The criteria the job searches for.
  package var criteria: SearchCriteria { resolved.criteria }

  /// Runs the search (and counts the facets, for a scope bar that shows them).
  package func run(withFacets: Bool = true) -> SearchAnswer<ID> {
    let matches = index.search(request, narrowing: previous, reading: reading)
    return SearchAnswer(
      resolved: resolved, request: request, matches: matches, revision: revision,
      facets: withFacets ? index.facets(of: resolved, request: request, matches: matches) : nil)
  }
}

/// What a `SearchJob` found, for `SearchCollection.install(_:)`.
package struct SearchAnswer<ID: Hashable & Sendable>: Sendable {
  let resolved: ResolvedCriteria
  let request: MatchRequest
  package let matches: RankedMatches<ID>
  let revision: Int
  /// The facet counts of the answer, when the job counted them.
  package let facets: Facets?

  /// The criteria the answer answers.
  package var criteria: SearchCriteria { resolved.criteria }
}

/// The matching elements of a `SearchCollection`, best first: a view, not a copy.
public struct SearchResults<Element: Identifiable & Sendable>: RandomAccessCollection, Sendable
where Element.ID: Sendable {
  let ids: [Element.ID]
  let elements: [Element.ID: Element]

  public var startIndex: Int { 0 }
  public var endIndex: Int { ids.count }
  public subscript(position: Int) -> Element { elements[ids[position]]! }
}

/// The dynamic door: items with named fields, for catalogs known only at run time.
public typealias FilteredCollection = SearchCollection<Item>

extension SearchCollection where Element == Item {
  /// A view of `items` (in catalog order) showing everything.
  ///
  /// - Throws: `CatalogEditError.duplicateID`, or `.invalidSchema` for a schema that does not
  ///   describe a catalog.
  public init(
    schema: CatalogSchema, items: some Sequence<Item> = [],
    typoTolerance: TypoTolerance = .automatic
  ) throws(CatalogEditError) {
    let searchSchema: SearchSchema<Item>
    do {
      searchSchema = try SearchSchema(schema)
    } catch {
      throw .invalidSchema(error)
    }
    try self.init(items, schema: searchSchema, typoTolerance: typoTolerance)
  }

  public func item(id: ItemID) -> Item? { element(id: id) }
  public func item(atRow row: Int) -> Item? { element(atRow: row) }
  /// The items in catalog order, shown or not.
  public var allItems: [Item] { allElements }
}
