/// The search stack of a UIKit screen — UISearchController, its UISearchBar and
/// UISearchTextField with tokens — as one value-type state machine you can run and test
/// without a screen.
///
/// Send it events (`send(_:)`), perform the `Action`s it returns (they are the delegate and
/// `updateSearchResults(for:)` calls UIKit would make), and read the state: `isFiltering`,
/// `rows`, `indicator`, `suggestions`. It owns the `FilteredCollection` it filters, so edits made
/// through it keep the rows and the selection right while a search is active.
public struct SearchController: Sendable {
  /// Something that happened to the search UI.
  public enum Event: Hashable, Sendable {
    /// `isActive = true`: the search interface is presented (without focus).
    case activate
    /// `isActive = false` without clearing anything.
    case deactivate
    /// The search field becomes first responder (a tap in it); activates the search.
    case focus
    /// The search field resigns first responder (the Search key); the search stays active.
    case resignFocus
    /// The field's text changed to this.
    case setText(String)
    /// Backspace at the end of the text: deletes the last character, or the last token when
    /// the text is empty (UISearchTextField's behaviour).
    case deleteBackward
    case insertToken(SearchToken, at: Int)
    case removeToken(at: Int)
    /// A scope bar button was tapped.
    case selectScope(Int)
    /// Results by a field (a sort menu's choice); nil: by relevance.
    case setSort(SearchSort?)
    /// Results near a place, with or without a radius; nil: no place.
    case setNear(SearchNear?)
    /// Only the items inside an area (a map's "search this area"); nil: anywhere.
    case setWithinBox(GeoBox?)
    /// One result per value of this field (the best city of each country); nil: every match.
    case setDistinct(String?)
    /// The suggestion at this index of `suggestions` was chosen: it replaces the word being
    /// typed and becomes a token.
    case acceptSuggestion(Int)
    /// A row was selected (nil: deselected).
    case select(ItemID?)
    /// The Cancel button: clears text and tokens, resigns focus and deactivates.
    case cancel
  }

  /// What the caller should do or tell its delegates, in order.
  public enum Action: Hashable, Sendable {
    case willPresent
    case didPresent
    case willDismiss
    case didDismiss
    /// The moment UIKit calls `updateSearchResults(for:)`: rows and indicator have changed.
    case updateSearchResults
    case selectionChanged(ItemID?)
  }

  /// Whether the search is presented and whether its field has focus: one value, because a
  /// field cannot have focus in a search that is not presented.
  public enum Presentation: Hashable, Sendable {
    /// Not presented (`isActive == false`); the field cannot have focus.
    case dismissed
    /// Presented, the field without focus (after the Search key).
    case presented
    /// Presented, the field first responder: typing goes into it.
    case editing
  }

  public internal(set) var collection: FilteredCollection
  public private(set) var presentation = Presentation.dismissed
  /// UISearchController's `isActive`: the search interface is presented.
  public var isActive: Bool { presentation != .dismissed }
  /// Whether the search field has focus (first responder).
  public var isFirstResponder: Bool { presentation == .editing }
  public private(set) var text = ""
  /// The tokens, which stand before the text.
  public private(set) var tokens: [SearchToken] = []
  public private(set) var selectedScopeIndex = 0
  /// The order of the results: by a field, or nil for relevance. It outlasts a Cancel, as a
  /// sort menu's choice does.
  public private(set) var sort: SearchSort?
  /// The place results are near (distance ranks them after typos, word starts and a title match; a radius filters). It
  /// outlasts a Cancel, as the sort does; it is not saved for the next launch.
  public private(set) var near: SearchNear?
  /// The area results are kept inside; like the place, it outlasts a Cancel and is not saved.
  public private(set) var withinBox: GeoBox?
  /// The field results are grouped by, one row per value, spelt as the schema does; like the
  /// sort, it outlasts a Cancel and is not saved.
  public private(set) var distinct: String?
  public private(set) var selection: ItemID?
  /// The facets counted with the rows shown, when searches run elsewhere (kept so a screen
  /// drawn many times does not count them each time); nil: count them when asked.
  var installedFacets: Facets?
  /// What the empty field shows ("Search candies").
  public var placeholder: String

  /// Whether every state change searches at once (the default). An app whose catalog is large
  /// sets it to false, runs `pendingSearch` off its input loop and hands the result to
  /// `installSearchResult(_:)`, so typing never waits for a scan.
  public let searchesImmediately: Bool

  public init(
    collection: FilteredCollection, placeholder: String? = nil, searchesImmediately: Bool = true
  ) {
    self.collection = collection
    self.placeholder = placeholder ?? "Search \(collection.schema.title.lowercased())"
    self.searchesImmediately = searchesImmediately
    refresh()
  }

  /// True while the rows shown do not yet answer the current criteria.
  public var needsSearch: Bool { collection.criteria != criteria }

  /// The search still to run, as a job that may run on any thread (`job.run()`).
  package var pendingSearch: SearchJob<ItemID>? {
    needsSearch ? collection.searchJob(for: criteria) : nil
  }

  /// Installs the answer of a job run elsewhere, if it still answers the current state: same
  /// criteria, no edit since the job was made, and not installed already. Returns false for a
  /// stale or repeated answer, which is dropped.
  @discardableResult
  package mutating func installSearchResult(_ answer: SearchAnswer<ItemID>) -> Bool {
    guard needsSearch, answer.criteria == criteria, collection.install(answer) else {
      return false
    }
    installedFacets = answer.facets
    dropSelectionIfHidden()
    return true
  }

  /// How many items each scope-bar button and category token would show for the current
  /// state: counted with the search when it ran on another thread, else now.
  public var facets: Facets { installedFacets ?? collection.facets }

  public var schema: CatalogSchema { collection.schema }
  /// UISearchBar's `scopeButtonTitles`.
  public var scopeTitles: [String] { schema.scopeTitles }

  /// CandySearch's rule: active, and text, a scope other than the first, or a token
  /// (`SearchCriteria.isFiltering(presented:text:tokenCount:scopeIndex:)`).
  public var isFiltering: Bool {
    SearchCriteria.isFiltering(
      presented: isActive, text: text, tokenCount: tokens.count, scopeIndex: selectedScopeIndex)
      || collection.resolved.near?.withinKilometers != nil || withinBox != nil
      || distinct != nil
  }

  /// The ids of the items shown, best first: every item when not filtering.
  public var rows: MatchedIDs<ItemID> { collection.rows }

  public var indicator: ResultsIndicator { collection.indicator(isFiltering: isFiltering) }

  /// When a search finds nothing: the catalog word nearest the last word typed, in any scope
  /// ("Did you mean “caramel”?" while the Chocolate scope hides Caramel); nil otherwise.
  public var spellingSuggestion: String? {
    collection.didYouMean(text: text, indicator: indicator)
  }

  /// What the parser noticed in the text and tokens, for a status line.
  public var diagnostics: [QueryDiagnostic] { collection.resolved.diagnostics }

  /// The criteria the collection filters by
  /// (`SearchCriteria.searchField(presented:text:tokens:scopeIndex:)`): the search state when
  /// filtering, without a `#word` being typed for a token; nothing else.
  public var criteria: SearchCriteria {
    var criteria = SearchCriteria.searchField(
      presented: isActive, text: text, tokens: tokens, scopeIndex: selectedScopeIndex, sort: sort,
      near: near)
    criteria.keepInside(withinBox, location: schema.location)
    criteria.distinct = distinct
    return criteria
  }

  // MARK: - Events

  /// Applies an event and returns what UIKit would now tell the app.
  @discardableResult
  public mutating func send(_ event: Event) -> [Action] {
    let before = (criteria, selection)
    var actions: [Action] = []
    switch event {
    case .activate:
      actions += present()
    case .deactivate:
      actions += dismiss()
    case .focus:
      actions += present()
      presentation = .editing
    case .resignFocus:
      if presentation == .editing { presentation = .presented }
    case .setText(let newText):
      text = newText
    case .deleteBackward:
      if !text.isEmpty {
        text.removeLast()
      } else if !tokens.isEmpty {
        tokens.removeLast()
      }
    case .insertToken(let token, let index):
      tokens.insert(token, at: min(max(index, 0), tokens.count))
    case .removeToken(let index):
      if tokens.indices.contains(index) { tokens.remove(at: index) }
    case .selectScope(let index):
      if schema.scopes.indices.contains(index) { selectedScopeIndex = index }
    case .setSort(let newSort):
      sort = newSort.flatMap(schema.resolved)
    case .setNear(let newNear):
      near = newNear
    case .setWithinBox(let box):
      withinBox = box
    case .setDistinct(let field):
      distinct = field.flatMap { schema.distinctField(named: $0)?.name }
    case .acceptSuggestion(let index):
      let offered = suggestions
      if offered.indices.contains(index) {
        text = CatalogSchema.textAcceptingSuggestion(text)
        tokens.append(offered[index])
      }
    case .select(let id):
      if id == nil || id.flatMap(collection.row(of:)) != nil { selection = id }
    case .cancel:
      text = ""
      tokens = []
      actions += dismiss()
    }
    refresh()
    // UIKit asks for results when the search is presented and whenever what it filters by changes.
    if before.0 != criteria || actions.contains(.didPresent) {
      actions.append(.updateSearchResults)
    }
    if before.1 != selection { actions.append(.selectionChanged(selection)) }
    return actions
  }

  /// UISearchTextField's `insertToken(_:at:)`; an index past the end appends.
  @discardableResult
  public mutating func insertToken(_ token: SearchToken, at index: Int) -> [Action] {
    send(.insertToken(token, at: index))
  }

  /// UISearchTextField's `removeToken(at:)`; an index out of range changes nothing.
  @discardableResult
  public mutating func removeToken(at index: Int) -> [Action] {
    send(.removeToken(at: index))
  }

  /// UISearchTextField's `tokens(in:)`: the tokens in a range of token positions.
  public func tokens(in range: Range<Int>) -> [SearchToken] {
    let clamped = range.clamped(to: tokens.indices)
    return Array(tokens[clamped])
  }

  // MARK: - Suggestions

  /// Tokens offered for the word being typed (`CatalogSchema.suggestedTokens(forText:excluding:)`),
  /// those that keep the most results first (`Facets.ordering(_:)`): "london #g" offers GB 7
  /// first, not GA 0.
  public var suggestions: [SearchToken] {
    guard isActive else { return [] }
    let offered = schema.suggestedTokens(
      forText: text, excluding: tokens, known: collection.index.categorySpellings.values)
    return offered.count > 1 ? facets.ordering(offered) : offered
  }

  // MARK: - State

  private mutating func present() -> [Action] {
    guard !isActive else { return [] }
    presentation = .presented
    return [.willPresent, .didPresent]
  }

  private mutating func dismiss() -> [Action] {
    guard isActive else { return [] }
    presentation = .dismissed
    return [.willDismiss, .didDismiss]
  }

  /// Re-filters for the current state and keeps the selection only while it is shown.
  mutating func refresh() {
    if searchesImmediately, criteria != collection.criteria {
      collection.filter(by: criteria)
      installedFacets = nil
    }
    dropSelectionIfHidden()
  }

  mutating func dropSelectionIfHidden() {
    if let selected = selection, collection.row(of: selected) == nil { selection = nil }
  }

  /// Sets every part of the state at once (restoration), then re-filters.
  mutating func setState(
    isActive: Bool, isFirstResponder: Bool, text: String, tokens: [SearchToken],
    selectedScopeIndex: Int, sort: SearchSort?, near: SearchNear? = nil,
    withinBox: GeoBox? = nil, distinct: String? = nil, selection: ItemID?
  ) {
    presentation = isActive ? (isFirstResponder ? .editing : .presented) : .dismissed
    self.text = text
    self.tokens = tokens
    self.selectedScopeIndex = selectedScopeIndex
    self.sort = sort.flatMap(schema.resolved)
    self.near = near
    self.withinBox = withinBox
    self.distinct = distinct.flatMap { schema.distinctField(named: $0)?.name }
    self.selection = nil
    refresh()
    if let selection, collection.row(of: selection) != nil { self.selection = selection }
  }
}

extension String {
  func trimmingTrailingWhitespace() -> String {
    guard let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
    return String(self[...last])
  }
}
