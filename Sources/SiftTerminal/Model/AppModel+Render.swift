import Foundation
import Sift

extension AppModel {
  /// The whole screen at the model's size.
  ///
  /// ```
  ///  Sift                        Candies                  ^N Add  F1 Help
  ///  🔍 [🍫 Chocolate] car▌                                        Cancel
  ///   All │ Chocolate │ Hard │ Other
  /// ────────────────────────────────────────────────────────────────────
  ///  Caramel
  ///    Category: Other
  /// ────────────────────────────────────────────────────────────────────
  ///  1 item found                                        Filtering 1 of 15
  ///  ↑↓ select  Enter open  Tab scope  #token  ^S sort  Esc cancel  F1 help  ^Q quit
  /// ```
  public func render() -> Grid {
    var grid = Grid(width: width, height: height)
    switch screen {
    case .list, .confirmDelete(_, over: .list):
      drawList(&grid)
    case .detail(let id), .confirmDelete(_, over: .detail(let id)):
      drawDetail(&grid, id: id)
    case .help:
      drawHelp(&grid)
    case .editor(let editor):
      drawEditor(&grid, editor)
    }
    drawStatus(&grid)
    return grid
  }

  /// Where the terminal's cursor belongs (in the search field or the focused form field).
  public var cursorPosition: (x: Int, y: Int)? {
    switch screen {
    case .list:
      guard controller.isFirstResponder else { return nil }
      let x = searchTextColumn + searchLine.visible(width: searchTextWidth).cursorColumn
      return x < width ? (x, 1) : nil
    case .editor(let editor):
      let y = 2 + editor.focus - editorTop(editor)
      guard y < height - 2 else { return nil }
      let column = editorValueColumn(editor)
      let x = column + editor.line.visible(width: width - column - 1).cursorColumn
      return x < width ? (x, y) : nil
    default:
      return nil
    }
  }

  // MARK: - The list

  /// The top line: `left` at the start, the title centred but never over `left` (on a narrow
  /// screen it follows it, cut to fit), `right` at the end where it fits after the title.
  private func drawNavigationBar(_ grid: inout Grid, left: String, title: String, right: String) {
    grid.put(" " + left, x: 0, y: 0, style: .dim, maxWidth: width)
    let leftEnd = left.isEmpty ? 0 : 1 + TerminalText.displayWidth(left) + 1
    let titleWidth = TerminalText.displayWidth(title)
    let titleX = max((width - titleWidth) / 2, leftEnd)
    guard titleX < width - 1 else { return }
    grid.put(title, x: titleX, y: 0, style: .bold, maxWidth: width - titleX - 1)
    let rightWidth = TerminalText.displayWidth(right)
    if width - rightWidth - 1 > titleX + titleWidth {
      grid.put(right, x: width - rightWidth - 1, y: 0, style: .dim)
    }
  }

  /// The column where the search text starts: after the icon and the token chips.
  var searchTextColumn: Int {
    var x = 4
    for token in controller.tokens { x += TerminalText.displayWidth(chip(token)) + 1 }
    return min(x, max(4, width - 10))
  }

  /// The search text as its line editor.
  var searchLine: LineEditor { LineEditor(controller.text, cursor: cursor) }

  /// The columns the search text has: up to "Cancel" while the search is active.
  var searchTextWidth: Int {
    let cancel = controller.isActive ? "Cancel".count + 1 : 0
    return max(1, width - searchTextColumn - cancel - 1)
  }

  private func chip(_ token: SearchToken) -> String {
    " " + (token.icon.map { $0 + " " } ?? "") + token.text + " "
  }

  private func drawList(_ grid: inout Grid) {
    drawNavigationBar(&grid, left: "Sift", title: controller.schema.title, right: "^N Add  F1 Help")
    // Search bar: icon, chips, text or placeholder, Cancel while active.
    grid.put("🔍", x: 1, y: 1)
    // Chips wider than their room (a narrow terminal) are cut with "…" before the text.
    var x = 4
    let chipsEnd = searchTextColumn - 1
    for token in controller.tokens where x < chipsEnd {
      x =
        grid.put(
          chip(token), x: x, y: 1, style: CellStyle(reverse: true, color: 36),
          maxWidth: chipsEnd - x) + 1
    }
    let cancel = controller.isActive ? "Cancel" : ""
    let textWidth = searchTextWidth
    if controller.text.isEmpty && controller.tokens.isEmpty {
      // The empty field offers what people searched for before.
      let past = pastSearches.isEmpty ? "" : "   ⌕ " + pastSearches.joined(separator: " · ")
      grid.put(
        (controller.placeholder + past).inert, x: searchTextColumn, y: 1, style: .dim,
        maxWidth: textWidth)
    } else {
      // Text wider than the field scrolls with the cursor.
      grid.put(
        searchLine.visible(width: textWidth).text, x: searchTextColumn, y: 1, maxWidth: textWidth)
    }
    if !cancel.isEmpty {
      grid.put(cancel, x: width - cancel.count - 1, y: 1, style: CellStyle(color: 34))
    }
    // Scope bar: shown while searching, as UISearchBar does.
    // Each button with what it would show for the current text and tokens (facets).
    if controller.isActive && !controller.scopeTitles.isEmpty {
      let counts = controller.needsSearch ? nil : controller.facets.scopes
      let buttons = controller.scopeTitles.enumerated().map { index, title in
        (
          title: " \(title)",
          count: counts.map { " " + FieldValue.grouped(Double($0[index])) + " " } ?? " "
        )
      }
      // Too many for the width: the bar starts at a later button, so the selected one shows
      // whole ("‹" says some are to the left).
      let widths = buttons.map {
        TerminalText.displayWidth($0.title) + TerminalText.displayWidth($0.count) + 1
      }
      let selectedIndex = controller.selectedScopeIndex
      var first = 0
      // The bar starts at column 1 either way ("‹" takes column 0).
      while first < selectedIndex, 1 + widths[first...selectedIndex].reduce(0, +) > width {
        first += 1
      }
      var scopeX = first > 0 ? grid.put("‹", x: 0, y: 2, style: .dim) : 1
      for index in first..<buttons.count {
        if index > first { scopeX = grid.put("│", x: scopeX, y: 2, style: .dim) }
        let selected = index == selectedIndex
        scopeX = grid.put(
          buttons[index].title, x: scopeX, y: 2, style: selected ? .reverse : .plain)
        scopeX = grid.put(buttons[index].count, x: scopeX, y: 2, style: selected ? .reverse : .dim)
      }
    }
    rule(&grid, y: 3)
    drawResults(&grid)
    rule(&grid, y: height - 3)
    drawFooter(&grid)
    drawSuggestions(&grid)
  }

  private func rule(_ grid: inout Grid, y: Int) {
    guard y >= 0, y < height else { return }
    grid.put(String(repeating: "─", count: width), x: 0, y: y, style: .dim)
  }

  private func drawResults(_ grid: inout Grid) {
    let top = Layout.resultsTop + (showsNearSpellingNotice ? 1 : 0)
    let bottom = height - 3
    let rows = controller.rows
    if rows.isEmpty {
      drawEmptyResults(&grid, top: top, bottom: bottom)
      return
    }
    if showsNearSpellingNotice {
      // Said above the rows too, where the eye is: these are not what was typed.
      let typed = controller.text.trimmingCharacters(in: .whitespaces)
      let notice = "No exact matches for “\(typed)” — showing near spellings"
      grid.put(" " + notice, x: 0, y: top - 1, style: .dim, maxWidth: width - 1)
    }
    // The rows that fit, read in one go when the catalog is read when shown.
    let lines = rowHeight
    let shown = controller.collection.elements(
      atRows: scrollTop..<(scrollTop + max(0, (bottom - top) / lines)))
    var y = top
    var row = scrollTop
    while row < rows.count, y + lines - 1 < bottom {
      if row - scrollTop < shown.count, let item = shown[row - scrollTop] {
        drawItem(&grid, item, y: y, selected: row == selectedRow, withFields: lines > 1)
      }
      y += lines
      row += 1
    }
    // A scroll indicator on the right edge when the list is longer than the screen.
    if rows.count > visibleItemCount, bottom - top > 1 {
      let span = bottom - top
      let position = top + (span - 1) * scrollTop / max(1, rows.count - visibleItemCount)
      grid.put("▐", x: width - 1, y: min(bottom - 1, position), style: .dim)
    }
  }

  /// The list area when nothing shows, as iOS draws it: what was searched, and what to try.
  private func drawEmptyResults(_ grid: inout Grid, top: Int, bottom: Int) {
    var lines: [(String, CellStyle)]
    if controller.indicator.isNoResults {
      let text = controller.text.trimmingCharacters(in: .whitespaces)
      lines = [
        ("No Results", .bold),
        (text.isEmpty ? "No items match these filters" : "No results for “\(text)”", .plain),
      ]
      var hints = ["Check the spelling or try fewer words"]
      // What Tab does from here — the next scope (after the last, the first) — when that
      // scope has results for this search (the scope bar's counts).
      let scopes = controller.scopeTitles
      if scopes.count > 1, !controller.needsSearch {
        let next = (controller.selectedScopeIndex + 1) % scopes.count
        let count = controller.facets.scopes[next]
        if count > 0 {
          hints.append("Tab to search \(scopes[next]) (\(FieldValue.grouped(Double(count))))")
        }
      }
      if !controller.tokens.isEmpty { hints.append("Backspace removes a token") }
      // What was typed finds items that the scope in force hides: say so, rather than offer
      // another spelling of a word that matches (the scope bar's counts).
      let hidden =
        controller.needsSearch || scopes.count < 2
        ? nil
        : scopes.indices.first {
          $0 != controller.selectedScopeIndex && controller.facets.scopes[$0] > 0
        }
      let suggestion = controller.spellingSuggestion
      // A word that starts the suggestion matched as typed: the scope, not the spelling, is why.
      let typed = controller.text.split(whereSeparator: \.isWhitespace).last.map {
        TextFolding.fold(String($0))
      }
      if let hidden, suggestion == nil || typed.map({ suggestion!.hasPrefix($0) }) == true {
        let count = FieldValue.grouped(Double(controller.facets.scopes[hidden]))
        lines.append(
          (
            "\(count) in \(scopes[hidden]): the \(scopes[controller.selectedScopeIndex]) scope hides them",
            .plain
          ))
      } else if let suggestion {
        lines.append(("Did you mean “\(suggestion)”?", .plain))
      }
      lines.append((hints.joined(separator: " · "), .dim))
      lines.append(("Esc shows everything", .dim))
    } else {
      lines = [("No Items", .bold), ("Ctrl-N adds one", .dim)]
    }
    let first = top + max(0, (bottom - top - lines.count) / 2)
    for (offset, (line, style)) in lines.enumerated() where first + offset < bottom {
      let lineWidth = TerminalText.displayWidth(TerminalText.inert(line))
      grid.put(
        line, x: max(0, (width - lineWidth) / 2), y: first + offset, style: style,
        maxWidth: width)
    }
  }

  private func drawItem(
    _ grid: inout Grid, _ item: Item, y: Int, selected: Bool, withFields: Bool = true
  ) {
    let schema = controller.schema
    let title = item[schema.titleField]?.displayText ?? ""
    grid.put(
      [(" ", .plain)] + highlighted(title, field: schema.titleField, item: item, base: .bold),
      x: 0, y: y, maxWidth: width - 1)
    guard withFields else {
      if selected { grid.fill(y: y, to: width - 1, style: .reverse) }
      return
    }
    var details: [(String, CellStyle)] = [("   ", .plain)]
    for (field, value) in rowDetails(of: item) {
      guard var shown = field.summary(value, maximumValues: 4) else { continue }
      if case .text(let text) = value, field.kind == .text {
        // A long text shows a few words around where the search matched it (`Snippet`).
        let matched = controller.collection.highlightRanges(in: text, field: field.name, of: item)
        shown = Snippet(text, ranges: matched, words: Self.rowWords).text
      }
      if details.count > 1 { details.append(("  ·  ", .dim)) }
      details.append(("\(field.label): ", .dim))
      details += highlighted(shown, field: field.name, item: item, base: .dim)
    }
    if let distance = controller.schema.kilometers(
      of: item, from: controller.collection.resolved.near)
    {
      // Near a place, how far it is comes first: a long line is cut at its end.
      let away: [(String, CellStyle)] = [(MatchExplanation.kilometers(distance), .plain)]
      details.insert(contentsOf: away + (details.count > 1 ? [("  ·  ", .dim)] : []), at: 1)
    }
    grid.put(details, x: 0, y: y + 1, maxWidth: width - 1)
    if selected {
      grid.fill(y: y, to: width - 1, style: .reverse)
      grid.fill(y: y + 1, to: width - 1, style: .reverse)
    }
  }

  /// The most words of a long text a row shows: the snippet around the match.
  static let rowWords = 6

  /// The fields a row shows under its title: the short ones first (numbers, categories, single
  /// texts, in schema order), then lists — a city's 200 other names no longer push its country
  /// off the line — each list with the values the search matched first. The coordinates of a
  /// catalog with a location are left to the detail: near a place the row says how far.
  func rowDetails(of item: Item) -> [(FieldDefinition, FieldValue)] {
    let schema = controller.schema
    var short: [(FieldDefinition, FieldValue)] = []
    var lists: [(FieldDefinition, FieldValue)] = []
    let coordinates = [schema.location?.latitude, schema.location?.longitude]
    for field in schema.fields
    where field.name != schema.titleField && !coordinates.contains(field.name) {
      guard let value = item[field.name] else { continue }
      guard case .texts(let values) = value else {
        short.append((field, value))
        continue
      }
      // Only until a row's worth is found: a row shows four values.
      let ordered = controller.collection.valuesMatchedFirst(
        values, field: field.name, of: item, lookingFor: 4)
      lists.append((field, .texts(ordered ?? values)))
    }
    return short + lists
  }

  /// `text` cut into plain and matched segments.
  private func highlighted(
    _ text: String, field: String, item: Item, base: CellStyle
  ) -> [(String, CellStyle)] {
    var segments: [(String, CellStyle)] = []
    var index = text.startIndex
    var match = CellStyle.highlight
    match.dim = false
    for range in controller.collection.highlightRanges(in: text, field: field, of: item) {
      guard range.lowerBound >= index else { continue }
      if index < range.lowerBound {
        segments.append((String(text[index..<range.lowerBound]), base))
      }
      segments.append((String(text[range]), match))
      index = range.upperBound
    }
    if index < text.endIndex { segments.append((String(text[index...]), base)) }
    return segments
  }

  private func drawFooter(_ grid: inout Grid) {
    let y = height - 2
    let indicator = controller.indicator
    // A sort in force is said beside the count, which its order explains.
    let sorted = controller.sort.map { " · by " + controller.schema.describe($0) }
    // So is the place results are near.
    let near = controller.collection.resolved.near.map { near in
      " · near \(near.point)"
        + (near.withinKilometers.map { " within \(FieldValue.format($0)) km" } ?? "")
    }
    let left =
      controller.needsSearch
      ? "Searching…"
      : indicator.text + (sorted ?? "") + (near ?? "")
        + (controller.withinBox.map { " · in \($0)" } ?? "")
    grid.put(" " + left, x: 0, y: y, style: indicator.isNoResults ? .bold : .plain)
    // The summary on the right only where it fits beside the indicator, never over it.
    if indicator.isFiltering && !controller.needsSearch {
      let right = indicator.summary
      let used = 1 + TerminalText.displayWidth(left) + 2
      if used + TerminalText.displayWidth(right) + 1 <= width {
        grid.put(right, x: width - TerminalText.displayWidth(right) - 1, y: y, style: .dim)
      }
    }
  }

  private func drawSuggestions(_ grid: inout Grid) {
    let popup = suggestionPopup
    guard !popup.isEmpty else { return }
    let facets = controller.needsSearch ? nil : controller.facets
    let lines = popup.prefix(max(1, height - 6)).map { token in
      let count = facets?.count(of: token).map { "  " + FieldValue.grouped(Double($0)) } ?? ""
      return (token.icon.map { $0 + " " } ?? "") + token.text + count
    }
    let boxWidth = min(width - 2, (lines.map(TerminalText.displayWidth).max() ?? 0) + 4)
    let x = min(searchTextColumn, max(0, width - boxWidth))
    grid.put("┌" + String(repeating: "─", count: max(0, boxWidth - 2)) + "┐", x: x, y: 2)
    for (index, line) in lines.enumerated() {
      let y = 3 + index
      grid.put("│" + String(repeating: " ", count: max(0, boxWidth - 2)) + "│", x: x, y: y)
      grid.put(line, x: x + 2, y: y, maxWidth: boxWidth - 4)
      if index == min(suggestionIndex, lines.count - 1) {
        grid.fill(y: y, from: x + 1, to: x + boxWidth - 1, style: .reverse)
      }
    }
    grid.put(
      "└" + String(repeating: "─", count: max(0, boxWidth - 2)) + "┘", x: x, y: 3 + lines.count)
  }

  private func drawStatus(_ grid: inout Grid) {
    let y = height - 1
    guard y >= 0 else { return }
    if case .confirmDelete(let id, _) = screen {
      let name = controller.collection.item(id: id).map(title(of:)) ?? id.rawValue
      grid.put(
        " Delete \u{201C}\(name)\u{201D}? y: delete  any other key: keep ", x: 0, y: y,
        style: .reverse)
      return
    }
    if let message {
      grid.put(" " + message, x: 0, y: y, style: CellStyle(bold: true, color: 33))
    } else if screen == .list, let diagnostic = controller.diagnostics.first {
      grid.put(" " + diagnostic.message, x: 0, y: y, style: CellStyle(color: 33))
    } else {
      let hints: String
      switch screen {
      case .list:
        // Tab changes the scope only where there is a scope bar.
        let scope = controller.scopeTitles.count > 1 ? "  Tab scope" : ""
        hints = "↑↓ select  Enter open\(scope)  #token  ^S sort  Esc cancel  F1 help  ^Q quit"
      case .detail: hints = "Esc back  ^E edit  ^D delete  F1 help  ^Q quit"
      case .editor(let editor):
        // A list field's values are one line, separated by "|": said here, not over the value.
        let list =
          editor.fields.indices.contains(editor.focus)
          && editor.listFields.contains(editor.fields[editor.focus].name)
        hints =
          (list ? "values separated by |  " : "") + "Tab/↑↓ field  Enter save  Esc cancel"
          + "  ^U/^K clear"
      default: hints = "any key: back"
      }
      grid.put(" " + hints, x: 0, y: y, style: .dim)
    }
  }

  // MARK: - Detail, help, editor

  private func drawDetail(_ grid: inout Grid, id: ItemID) {
    guard let item = controller.collection.item(id: id) else { return }
    drawNavigationBar(
      &grid, left: "‹ Back (Esc)", title: title(of: item), right: "^E Edit  ^D Delete")
    rule(&grid, y: 1)
    let lines = detailLines(of: item)
    let top = max(0, min(detailTop, lines.count - detailHeight))
    for (offset, line) in lines.dropFirst(top).prefix(detailHeight).enumerated() {
      grid.put(line, x: 0, y: 2 + offset, maxWidth: width - 1)
    }
    rule(&grid, y: height - 2)
    // What is above and below, on the rules: the view scrolls with ↑↓ and PgUp PgDn.
    if top > 0 { grid.put(" ↑ \(top) more ", x: max(0, width - 14), y: 1, style: .dim) }
    let below = lines.count - top - detailHeight
    if below > 0 {
      grid.put(" ↓ \(below) more ", x: max(0, width - 14), y: height - 2, style: .dim)
    }
  }

  /// The lines the detail view has room for, between its rules.
  var detailHeight: Int { max(1, height - 4) }

  /// Every line of an item's detail: each field's label, then its value wrapped to the width.
  func detailLines(of item: Item) -> [[(String, CellStyle)]] {
    var lines: [[(String, CellStyle)]] = []
    for field in controller.schema.allFields {
      lines.append([(" " + field.label, .dim)])
      let value = field.summary(item[field.name], maximumValues: .max) ?? "—"
      for line in wrap(value, width: width - 4) {
        lines.append(
          [("   ", .plain)] + highlighted(line, field: field.name, item: item, base: .plain))
      }
    }
    return lines
  }

  /// Lines of at most `width` columns, broken at spaces where possible.
  private func wrap(_ text: String, width: Int) -> [String] {
    guard width > 0 else { return [text] }
    var lines: [String] = []
    var line = ""
    var lineWidth = 0
    for word in text.split(separator: " ", omittingEmptySubsequences: false) {
      let wordWidth = TerminalText.displayWidth(TerminalText.inert(String(word)))
      if lineWidth > 0 && lineWidth + 1 + wordWidth > width {
        lines.append(line)
        line = ""
        lineWidth = 0
      }
      if lineWidth > 0 {
        line += " "
        lineWidth += 1
      }
      line += word
      lineWidth += wordWidth
    }
    lines.append(line)
    return lines
  }

  private func drawHelp(_ grid: inout Grid) {
    drawNavigationBar(&grid, left: "", title: "Keys", right: "any key closes")
    rule(&grid, y: 1)
    let keys: [(String, String)] = [
      ("type", "search (the field has focus)"), ("← → Home End ^A", "move in the text"),
      ("Backspace", "delete; in an empty field, remove the last token"),
      ("Tab  Shift-Tab", "next / previous scope"), ("↑ ↓  PgUp PgDn", "move the selection"),
      ("Enter", "open the selected item; Esc goes back"),
      ("#text", "suggest tokens; Enter takes the highlighted one"),
      ("Esc", "cancel the search: clear text and tokens, show everything"),
      ("Ctrl-U  Ctrl-K", "delete the text before / after the cursor"),
      ("Ctrl-W", "delete the word before the cursor (the form: the same keys, ^E end)"),
      ("Ctrl-N", "add an item"), ("Ctrl-E", "edit the selected item"),
      ("Ctrl-D", "delete the selected item (asks first)"),
      ("Ctrl-S", "sort: relevance, then each field both ways"), ("F1", "this help"),
      ("Ctrl-Q  Ctrl-C", "quit, saving the search for next time"),
    ]
    for (index, (key, meaning)) in keys.enumerated() where 2 + index < height - 1 {
      grid.put("  " + key, x: 0, y: 2 + index, style: .bold, maxWidth: 20)
      grid.put(meaning, x: 20, y: 2 + index)
    }
  }

  func editorValueColumn(_ editor: ItemEditor) -> Int {
    min(width / 2, (editor.fields.map { TerminalText.displayWidth($0.label) }.max() ?? 0) + 4)
  }

  private func drawEditor(_ grid: inout Grid, _ editor: ItemEditor) {
    drawNavigationBar(
      &grid, left: "Cancel (Esc)", title: editor.isNew ? "New Item" : "Edit Item",
      right: "Save (Enter)")
    rule(&grid, y: 1)
    let column = editorValueColumn(editor)
    let top = editorTop(editor)
    for (index, field) in editor.fields.enumerated().dropFirst(top)
    where 2 + index - top < height - 2 {
      let y = 2 + index - top
      let focused = index == editor.focus
      grid.put(" " + field.label, x: 0, y: y, style: focused ? .bold : .dim, maxWidth: column - 1)
      // The focused value scrolls with its cursor; the others show their start.
      let shown =
        focused
        ? editor.line.visible(width: width - column - 1).text
        : LineEditor(editor.values[index], cursor: 0).visible(width: width - column - 1).text
      grid.put(shown, x: column, y: y, maxWidth: width - column - 1)
      grid.fill(y: y, from: column, to: width - 1, style: CellStyle(underline: true))
    }
    rule(&grid, y: height - 2)
    // The fields above and below the ones shown, on the rules.
    let rows = max(1, height - 4)
    if top > 0 { grid.put(" ↑ \(top) more ", x: max(0, width - 14), y: 1, style: .dim) }
    let below = editor.fields.count - top - rows
    if below > 0 {
      grid.put(" ↓ \(below) more ", x: max(0, width - 14), y: height - 2, style: .dim)
    }
  }

  /// The first field the form shows: the focused field is always on screen, the form scrolling
  /// as Tab moves past its last line.
  func editorTop(_ editor: ItemEditor) -> Int {
    let rows = max(1, height - 4)
    return max(0, min(editor.focus - rows + 1, editor.fields.count - rows))
  }
}
