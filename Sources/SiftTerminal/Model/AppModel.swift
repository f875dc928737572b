import Foundation
import Sift

/// The terminal app as a value: keys in, effects out, and a `Grid` to draw. It performs no
/// I/O — the runtime (`TerminalApp`) writes to the catalog file, runs searches off the input
/// loop and draws — so tests drive it key by key and read the screen at a pinned size.
public struct AppModel: Sendable {
  /// What fills the screen. Help and the delete question carry the screen they cover, so
  /// returning from them cannot land anywhere else.
  public enum Screen: Hashable, Sendable {
    case list
    case detail(ItemID)
    /// The keys, over the screen they were asked for on; any key returns to it.
    case help(over: Underneath)
    /// "Delete …?" on the status line, over the list or the item's detail.
    case confirmDelete(ItemID, over: Underneath)
    /// The add/edit form; it stays open until its edit is saved.
    case editor(ItemEditor)

    /// A screen that help or a question can cover.
    public enum Underneath: Hashable, Sendable {
      case list
      case detail(ItemID)

      public var screen: Screen {
        switch self {
        case .list: .list
        case .detail(let id): .detail(id)
        }
      }
    }
  }

  public enum Effect: Hashable, Sendable {
    /// An edit for the runtime to commit through the edit pipeline: `commit(_:to:)`.
    case write(CatalogEdit)
    /// Save this search state (a `SearchController.Snapshot` as JSON) in the catalog.
    case saveSearchState(Data)
    case quit
  }

  public private(set) var controller: SearchController
  public private(set) var screen: Screen = .list
  /// The text cursor, in characters of the search text.
  public private(set) var cursor = 0
  public private(set) var selectedRow = 0
  /// The first row of the results shown.
  public private(set) var scrollTop = 0
  public private(set) var suggestionIndex = 0
  /// The first line of the detail view shown: ↑↓, PgUp PgDn, Home and End scroll it.
  public private(set) var detailTop = 0
  /// A transient line for the status bar (an error, a confirmation).
  public private(set) var message: String?
  public private(set) var width: Int
  public private(set) var height: Int
  /// After a restore, the first search result keeps the restored selection.
  private var keepSelection = false
  /// Where the form goes back to when it closes: the detail it was opened from, or the list.
  private var underEditor: Screen.Underneath = .list

  /// Searches people made before (`SearchHistory`, what `sift serve --record-searches`
  /// counted), most made first: the empty search field offers them.
  public var pastSearches: [String] = []

  /// A model on `controller`, with the search field focused (typing filters at once).
  public init(controller: SearchController, width: Int = 80, height: Int = 24) {
    self.controller = controller
    self.width = width
    self.height = height
    if !controller.isActive { self.controller.send(.focus) }
    cursor = self.controller.text.count
  }

  /// Searches near a place from now on (`sift --near LAT,LON --within KM`): rows say how far
  /// each is, the footer names the place, and Ctrl-S also offers nearest first.
  public mutating func search(near: SearchNear?) {
    controller.send(.setNear(near))
    if controller.searchesImmediately { syncSelection(resetToTop: true) }
  }

  /// Keeps only the items inside an area from now on (`sift --within-box S,W,N,E`); the
  /// footer says so.
  public mutating func search(withinBox box: GeoBox?) {
    controller.send(.setWithinBox(box))
    if controller.searchesImmediately { syncSelection(resetToTop: true) }
  }

  /// The orders Ctrl-S cycles through: relevance, each sortable field both ways, and nearest
  /// first near a place.
  var sortChoices: [SearchSort?] {
    let schema = controller.schema
    let nearest = controller.near != nil && schema.location != nil ? [SearchSort.distance] : []
    return schema.sortChoices + nearest
  }

  /// Restores a saved search state; returns the problems met (also shown on the status line).
  @discardableResult
  public mutating func restore(from data: Data) -> [SearchController.RestorationProblem] {
    let problems = controller.restore(from: data)
    cursor = controller.text.count
    keepSelection = controller.selection != nil
    syncSelection(resetToTop: false)
    if !problems.isEmpty {
      message =
        "Search state not fully restored: \(problems.map(\.description).joined(separator: "; "))"
    }
    return problems
  }

  /// Shows a line on the status bar until the next key (a notice from opening the catalog).
  public mutating func show(_ line: String) {
    message = line
  }

  public mutating func resize(width: Int, height: Int) {
    self.width = width
    self.height = height
    scrollToSelection()
  }

  // MARK: - Searching off the input loop

  /// The search the runtime should run now, if the rows do not answer the state yet.
  package var pendingSearch: SearchJob<ItemID>? { controller.pendingSearch }

  /// A search result from the runtime; a stale one is dropped. Returns whether it was shown.
  @discardableResult
  package mutating func deliver(_ answer: SearchAnswer<ItemID>) -> Bool {
    guard controller.installSearchResult(answer) else { return false }
    syncSelection(resetToTop: !keepSelection)
    keepSelection = false
    return true
  }

  // MARK: - Edits

  /// Commits an edit the model asked for (`Effect.write`) through the pipeline every catalog
  /// editor shares (`SearchController.commit(_:to:)`): written to `persistence` first, then
  /// shown. On failure nothing changes and the status line says why; a form stays open with
  /// what was typed.
  public mutating func commit<Persistence: CatalogPersistence>(
    _ edit: CatalogEdit, to persistence: Persistence
  ) {
    let selected = controller.selection
    var deletedTitle: String?
    if case .delete(let id) = edit {
      deletedTitle = controller.collection.item(id: id).map(title(of:))
    }
    let committed: CommittedEdit
    do {
      committed = try controller.commit(edit, to: persistence)
    } catch {
      message = "Not saved: \(error)"
      return
    }
    if case .editor = screen {
      // An edited item's detail shows it as saved; an added one's place is the list.
      if case .update = committed.edit { screen = underEditor.screen } else { screen = .list }
    }
    let shown = controller.collection.row(of: committed.id) != nil
    switch committed.edit {
    case .add(_, let fields):
      message = "Added \u{201C}\(title(of: Item(id: committed.id, fields: fields)))\u{201D}"
      if !shown { message! += " (not shown: it does not match the search)" }
    case .update(let item):
      message = "Saved \u{201C}\(title(of: item))\u{201D}"
      if !shown { message! += " (it no longer matches the search)" }
    case .delete(let id):
      message = "Deleted \u{201C}\(deletedTitle ?? id.rawValue)\u{201D}"
    }
    if case .add = committed.edit, let row = controller.collection.row(of: committed.id) {
      select(row)
    } else if let selected, let row = controller.collection.row(of: selected) {
      select(row)
    } else {
      select(min(selectedRow, max(0, controller.rows.count - 1)))
    }
  }

  // MARK: - Keys

  /// Handles a key and returns what the runtime must do.
  public mutating func handle(_ key: Key) -> [Effect] {
    if key == .control("q") || key == .control("c") {
      if case .editor = screen { screen = .list }
      return [.saveSearchState(controller.encodedSnapshot()), .quit]
    }
    switch screen {
    case .list: return handleList(key)
    case .detail(let id): return handleDetail(key, id: id)
    case .help(let underneath):
      screen = underneath.screen
      return []
    case .confirmDelete(let id, let underneath):
      screen = underneath.screen
      if key == .character("y") || key == .character("Y") || key == .enter {
        // The detail of a deleted item would show nothing: back to the list.
        screen = .list
        return [.write(.delete(id))]
      }
      message = "Not deleted"
      return []
    case .editor(var editor):
      return handleEditor(key, editor: &editor)
    }
  }

  private mutating func handleList(_ key: Key) -> [Effect] {
    message = nil
    switch key {
    case .up, .down, .pageUp, .pageDown, .enter, .control("e"), .control("d"):
      settlePendingSearch()
    default: break
    }
    let popup = suggestionPopup
    switch key {
    case .backspace where cursor == 0 && !controller.tokens.isEmpty:
      // Backspace in front of the text removes the last token, as UISearchTextField does.
      controller.send(.removeToken(at: controller.tokens.count - 1))
    case .up:
      if !popup.isEmpty {
        suggestionIndex = (suggestionIndex + popup.count - 1) % popup.count
      } else {
        select(selectedRow - 1)
      }
    case .down:
      if !popup.isEmpty {
        suggestionIndex = (suggestionIndex + 1) % popup.count
      } else {
        select(selectedRow + 1)
      }
    case .pageUp: select(selectedRow - visibleItemCount)
    case .pageDown: select(selectedRow + visibleItemCount)
    case .tab, .shiftTab:
      let count = controller.scopeTitles.count
      guard count > 0 else { break }
      if !controller.isActive { controller.send(.focus) }
      let step = key == .tab ? 1 : count - 1
      controller.send(.selectScope((controller.selectedScopeIndex + step) % count))
    case .enter:
      if !popup.isEmpty {
        let offered = controller.suggestions
        if let index = offered.firstIndex(of: popup[min(suggestionIndex, popup.count - 1)]) {
          controller.send(.acceptSuggestion(index))
          cursor = controller.text.count
          suggestionIndex = 0
        }
      } else if controller.rows.indices.contains(selectedRow) {
        screen = .detail(controller.rows[selectedRow])
        detailTop = 0
      }
    case .escape:
      controller.send(.cancel)
      cursor = 0
      suggestionIndex = 0
    case .f1:
      screen = .help(over: .list)
    case .control("s"):
      // The next order: relevance, then each sortable field one way and the other.
      let choices = sortChoices
      let next = ((choices.firstIndex(of: controller.sort) ?? 0) + 1) % choices.count
      controller.send(.setSort(choices[next]))
      message =
        "Sorted by "
        + (choices[next] == nil ? "relevance" : controller.schema.describe(choices[next]))
      if controller.searchesImmediately { syncSelection(resetToTop: true) }
    case .control("n"):
      underEditor = .list
      screen = .editor(ItemEditor(schema: controller.schema))
    case .control("e"):
      if let item = selectedItem {
        underEditor = .list
        screen = .editor(ItemEditor(schema: controller.schema, item: item))
      } else {
        message = "Nothing selected to edit"
      }
    case .control("d"):
      if let item = selectedItem {
        screen = .confirmDelete(item.id, over: .list)
      } else {
        message = "Nothing selected to delete"
      }
    default:
      // The rest are the search field's: `LineEditor` knows which keys edit a line.
      if case .character = key, !controller.isFirstResponder { controller.send(.focus) }
      var line = LineEditor(controller.text, cursor: cursor)
      switch line.handle(key) {
      case .edited:
        cursor = line.cursor
        setText(line.text)
      case .moved: cursor = line.cursor
      case .ignored: break
      }
    }
    return []
  }

  private mutating func handleDetail(_ key: Key, id: ItemID) -> [Effect] {
    message = nil
    switch key {
    case .escape, .backspace, .left, .enter:
      screen = .list
    case .f1:
      screen = .help(over: .detail(id))
    case .control("e"):
      if let item = controller.collection.item(id: id) {
        underEditor = .detail(id)
        screen = .editor(ItemEditor(schema: controller.schema, item: item))
      }
    case .control("d"):
      screen = .confirmDelete(id, over: .detail(id))
    case .down, .up, .pageDown, .pageUp, .home, .end:
      let lines = controller.collection.item(id: id).map { detailLines(of: $0).count } ?? 0
      let page = max(1, detailHeight - 1)
      let moved =
        switch key {
        case .down: detailTop + 1
        case .up: detailTop - 1
        case .pageDown: detailTop + page
        case .pageUp: detailTop - page
        case .home: 0
        default: lines
        }
      detailTop = max(0, min(moved, lines - detailHeight))
    default:
      break
    }
    return []
  }

  private mutating func handleEditor(_ key: Key, editor: inout ItemEditor) -> [Effect] {
    message = nil
    switch key {
    case .escape:
      screen = editor.isNew ? .list : underEditor.screen
      message = editor.isNew ? "Not added" : "Changes discarded"
      return []
    case .tab, .down: editor.moveFocus(by: 1)
    case .shiftTab, .up: editor.moveFocus(by: -1)
    case .enter:
      switch editor.edit(titleField: controller.schema.titleField) {
      case .success(let edit):
        // The form stays until the edit is saved (`commit(_:to:)`), so a failure loses nothing.
        screen = .editor(editor)
        return [.write(edit)]
      case .failure(let problem):
        message = problem.message
      }
    default:
      _ = editor.edit(key)
    }
    screen = .editor(editor)
    return []
  }

  // MARK: - Helpers

  /// Keys that act on the rows first wait for the search the screen does not show yet (it runs
  /// here, on the input loop): a quick Ctrl-D after typing must never act on the old rows.
  private mutating func settlePendingSearch() {
    guard let pending = controller.pendingSearch else { return }
    deliver(pending.run())
  }

  /// The suggestions shown under the search field: only for a word that starts with `#`.
  public var suggestionPopup: [SearchToken] {
    guard controller.isActive, let word = controller.text.split(separator: " ").last,
      word.hasPrefix("#"), !controller.text.hasSuffix(" ")
    else { return [] }
    return controller.suggestions
  }

  public var selectedItem: Item? {
    guard controller.rows.indices.contains(selectedRow) else { return nil }
    return controller.collection.item(id: controller.rows[selectedRow])
  }

  /// Result items that fit between the bars.
  var visibleItemCount: Int {
    max(1, resultLines / rowHeight)
  }

  /// The lines between the bars.
  var resultLines: Int { height - Layout.chromeHeight - (showsNearSpellingNotice ? 1 : 0) }

  /// Lines a result takes: its title and its fields, or on a terminal too short for two (8
  /// lines) its title alone, so a result always shows.
  var rowHeight: Int { resultLines >= 2 ? 2 : 1 }

  /// Whether the list starts with a line saying the rows are near spellings, not exact matches.
  var showsNearSpellingNotice: Bool {
    let indicator = controller.indicator
    return indicator.includesNearSpellings && indicator.exactMatchCount == 0
      && !controller.needsSearch && height - Layout.chromeHeight > 4
  }

  private mutating func setText(_ text: String) {
    controller.send(.setText(text))
    suggestionIndex = 0
    if controller.searchesImmediately { syncSelection(resetToTop: true) }
  }

  private mutating func select(_ row: Int) {
    let count = controller.rows.count
    selectedRow = count == 0 ? 0 : min(max(0, row), count - 1)
    controller.send(.select(count == 0 ? nil : controller.rows[selectedRow]))
    scrollToSelection()
  }

  /// After the rows changed: the best match on top after typing, or the selection kept.
  private mutating func syncSelection(resetToTop: Bool) {
    if !resetToTop, let id = controller.selection, let row = controller.collection.row(of: id) {
      select(row)
    } else {
      scrollTop = 0
      select(0)
    }
  }

  private mutating func scrollToSelection() {
    let visible = visibleItemCount
    if selectedRow < scrollTop { scrollTop = selectedRow }
    if selectedRow >= scrollTop + visible { scrollTop = selectedRow - visible + 1 }
    scrollTop = max(0, min(scrollTop, max(0, controller.rows.count - visible)))
  }

  func title(of item: Item) -> String {
    item[controller.schema.titleField]?.displayText ?? item.id.rawValue
  }
}

/// Rows of the screen that are not results.
enum Layout {
  /// Navigation bar, search bar, scope bar and rule above; rule, footer and status below.
  static let chromeHeight = 7
  static let resultsTop = 4
}
