import Foundation
import Sift
import SiftTestSupport
import Testing

@testable import SiftTerminal

enum Fixtures {
  static func candiesCollection() throws -> FilteredCollection {
    try SeedCatalog.candies.load().makeCollection()
  }
}

/// The seed scenarios, asserted on the screen the app draws at 80×24.
@Suite("Terminal screens", .tags(.unit))
struct ScreenScenarioTests {
  @Test("the first screen: products, search field focused, everything shown")
  func firstScreen() throws {
    let app = try AppDriver(.products)
    let screen = app.screen
    #expect(screen.count == 24)
    #expect(
      screen[0].hasPrefix(" Sift") && screen[0].contains("Products")
        && screen[0].hasSuffix("F1 Help"))
    #expect(screen[1] == " 🔍 Search products" + String(repeating: " ", count: 54) + "Cancel")
    #expect(screen[2] == "  All 15 │ Birthdays 5 │ Weddings 6 │ Funerals 4")
    #expect(screen[4] == " Ginger" + String(repeating: " ", count: 72) + "▐")
    #expect(screen[5] == "   Year introduced: 2007  ·  Intro price: 49.98  ·  Type: Birthdays")
    #expect(app.footer == "15 items")
    #expect(app.status.hasPrefix("↑↓ select  Enter open"))
    #expect(app.model.cursorPosition! == (4, 1))
  }

  @Test("CandySearch: type, change scope, no results, detail, back, cancel")
  func candySearch() throws {
    var app = try AppDriver(.candies)
    app.type("caramel")
    #expect(app.titles == ["Caramel"])
    #expect(app.footer.hasPrefix("1 item found") && app.footer.hasSuffix("Filtering 1 of 15"))
    #expect(app.screen[1].hasPrefix(" 🔍 caramel"))
    // Each scope button says what it would show for the text typed (facets).
    #expect(app.screen[2] == "  All 1 │ Chocolate 0 │ Hard 0 │ Other 1")
    app.press(.tab)
    #expect(app.model.controller.selectedScopeIndex == 1)
    #expect(app.titles == [])
    #expect(app.text.contains("No Results"))
    #expect(app.footer.hasPrefix("No items match your query"))
    app.press(.shiftTab)
    #expect(app.titles == ["Caramel"])
    app.press(.enter)
    #expect(app.screen[0].contains("‹ Back (Esc)") && app.screen[0].contains("Caramel"))
    #expect(app.screen[2...].contains(" Category") && app.screen.contains("   Other"))
    app.press(.escape)
    #expect(app.model.screen == .list)
    #expect(app.titles == ["Caramel"], "the search is untouched")
    app.press(.escape)
    #expect(app.titles.count == 8, "Esc on the list cancels: everything shows (8 fit)")
    #expect(app.footer == "15 items")
    #expect(app.screen[1].hasPrefix(" 🔍 Search candies"))
    #expect(!app.screen[1].contains("Cancel"))
  }

  @Test(
    "no results under a scope: the hint names the scope Tab goes to when it has results, and Tab goes there"
  )
  func noResultsHintNamesNextScope() throws {
    var app = try AppDriver(.candies)
    app.press(.tab, .tab)
    #expect(app.model.controller.scopeTitles[app.model.controller.selectedScopeIndex] == "Hard")
    app.type("caramel")
    #expect(app.titles == [])
    #expect(app.text.contains("Tab to search Other (1)"), "\(app.text)")
    app.press(.tab)
    #expect(app.model.controller.scopeTitles[app.model.controller.selectedScopeIndex] == "Other")
    #expect(app.titles == ["Caramel"])
    // Under Chocolate the next scope, Hard, has nothing either: no Tab is offered.
    app.press(.tab, .tab)
    #expect(
      app.model.controller.scopeTitles[app.model.controller.selectedScopeIndex] == "Chocolate")
    #expect(app.text.contains("No results for “caramel”"), "\(app.text)")
    #expect(!app.text.contains("Tab to search"), "\(app.text)")
    // The word matches as typed: the scope hides it, and no other spelling is offered.
    #expect(app.text.contains("1 in All: the Chocolate scope hides them"), "\(app.text)")
    #expect(!app.text.contains("Did you mean"), "\(app.text)")
    app.press(.control("u"))
    app.type("caram")
    #expect(app.text.contains("1 in All: the Chocolate scope hides them"), "\(app.text)")
    #expect(!app.text.contains("Did you mean"), "\(app.text)")
    // Nothing anywhere: nothing to Tab to.
    app.press(.control("u"))
    app.type("zzzq")
    #expect(!app.text.contains("Tab to search"), "\(app.text)")
  }

  @Test("narrow terminals: the selected scope always shows; the footer never overlaps")
  func narrow() throws {
    var app = try AppDriver(.candies, width: 30, height: 24)
    app.type("caramel")
    #expect(app.footer == "1 item found", "\(app.footer)")
    app.press(.tab, .tab, .tab)
    #expect(app.model.controller.scopeTitles[app.model.controller.selectedScopeIndex] == "Other")
    #expect(app.screen[2].hasSuffix(" Other 1"), "\(app.screen[2])")
    #expect(app.screen[2].hasPrefix("‹"), "\(app.screen[2])")
    var wide = try AppDriver(.candies, width: 80, height: 24)
    wide.type("caramel")
    #expect(wide.footer.hasPrefix("1 item found") && wide.footer.hasSuffix("Filtering 1 of 15"))
    #expect(wide.screen[2] == "  All 1 │ Chocolate 0 │ Hard 0 │ Other 1")
  }

  @Test(
    "every size from 20×8: the result, its count and the selected scope show; nothing overlaps",
    arguments: [(20, 8), (20, 9), (24, 10), (30, 12), (40, 8)])
  func smallTerminals(width: Int, height: Int) throws {
    var app = try AppDriver(.candies, width: width, height: height)
    app.type("caramel")
    let screen = app.screen
    #expect(screen.count == height)
    #expect(screen.allSatisfy { TerminalText.displayWidth($0) <= width }, "\(screen)")
    #expect(screen.contains { $0.hasPrefix(" Caramel") }, "the one result: \(screen)")
    #expect(app.footer.hasPrefix("1 item found"), "\(app.footer)")
    #expect(screen[2].contains("All 1"), "\(screen[2])")
    app.press(.tab, .tab, .tab)
    #expect(app.screen[2].contains("Other 1"), "\(app.screen[2])")
    // A token chip is cut before the text and "Cancel", never drawn over them.
    app.press(.escape)
    app.type("#hard")
    app.press(.enter)
    app.type("c")
    #expect(app.screen[1].hasSuffix(" Cancel"), "\(app.screen[1])")
    #expect(app.screen[1].contains(" c "), "\(app.screen[1])")
  }

  @Test("a row shows its short fields first, then a list with the values that matched first")
  func rowOrder() throws {
    let schema = CatalogSchema(
      name: "cities",
      fields: [.text("name"), .text("alternates"), .number("population"), .category("country")],
      titleField: "name", categoryField: "country")
    let alternates = ["SAO", "Sampa"] + (1...50).map { "Name \($0)" } + ["San Paolo"]
    let collection = try FilteredCollection(
      schema: schema,
      items: [
        Item(
          id: "1",
          fields: [
            "name": .text("São Paulo"), "alternates": .texts(alternates),
            "population": .number(12_400_232), "country": .text("BR"),
          ])
      ])
    var app = try AppDriver(collection: collection, width: 100)
    #expect(
      app.screen[5]
        == "   Population: 12,400,232  ·  Country: BR  ·  Alternates: SAO, Sampa, Name 1, Name 2 (+49 more)"
    )
    app.type("paolo")
    #expect(
      app.screen[5]
        == "   Population: 12,400,232  ·  Country: BR  ·  Alternates: San Paolo, SAO, Sampa, Name 1 (+49 more)"
    )
  }

  @Test("Ctrl-E from a detail: saving or cancelling returns to that detail, not the list")
  func editFromDetail() throws {
    var app = try AppDriver(.products)
    app.type("ginger")
    app.press(.enter)
    guard case .detail(let id) = app.model.screen else {
      Issue.record("Enter did not open the detail: \(app.model.screen)")
      return
    }
    app.press(.control("e"))
    app.press(.escape)
    #expect(app.model.screen == .detail(id), "Esc in the form")
    app.press(.control("e"))
    app.type("!")
    app.press(.enter)
    #expect(app.model.screen == .detail(id), "after saving")
    #expect(app.writes.count == 1)
    #expect(app.screen[0].contains("Ginger!"), "\(app.screen[0])")
    // From the list, the form still returns to the list.
    app.press(.escape)
    app.press(.control("e"), .escape)
    #expect(app.model.screen == .list)
  }

  @Test("fields kept but not searched: shown in the detail, not in rows, kept by an edit")
  func storedFields() throws {
    let schema = CatalogSchema(
      name: "cities", fields: [.text("name"), .number("population")], titleField: "name",
      storedFields: [.text("timezone", searchable: false), .number("latitude", searchable: false)])
    let collection = try FilteredCollection(
      schema: schema,
      items: [
        Item(
          id: "1",
          fields: [
            "name": .text("Seoul"), "population": .number(10_349_312),
            "timezone": .text("Asia/Seoul"), "latitude": .number(37.566),
          ])
      ])
    var app = try AppDriver(collection: collection)
    #expect(app.screen[4].hasPrefix(" Seoul"))
    #expect(app.screen[5] == "   Population: 10,349,312")
    app.type("seoul")
    app.press(.enter)
    let detail = app.screen.joined(separator: "\n")
    #expect(detail.contains(" Timezone\n   Asia/Seoul"), "\(detail)")
    #expect(detail.contains(" Latitude\n   37.566"), "\(detail)")
    // Searching for a kept value finds nothing: it is not searched.
    app.press(.escape)
    app.press(.control("u"))
    app.type("asia")
    #expect(app.titles.isEmpty)
    app.press(.control("u"))
    app.type("seoul")
    app.press(.enter, .control("e"))
    app.type("!")
    app.press(.enter)
    guard case .update(let saved)? = app.writes.last else {
      Issue.record("no update written: \(app.writes)")
      return
    }
    #expect(saved["timezone"] == .text("Asia/Seoul"))
    #expect(saved["latitude"] == .number(37.566))
  }

  @Test("a catalog without a scope bar offers no Tab in the footer")
  func footerWithoutScopes() throws {
    let schema = CatalogSchema(
      name: "plain", fields: [.text("name")], titleField: "name")
    let collection = try FilteredCollection(
      schema: schema, items: [Item(id: "1", fields: ["name": .text("Rose")])])
    let app = try AppDriver(collection: collection)
    #expect(app.status.hasPrefix("↑↓ select  Enter open  #token"), "\(app.status)")
    let candies = try AppDriver(.candies)
    #expect(candies.status.hasPrefix("↑↓ select  Enter open  Tab scope  #token"))
  }

  @Test(
    "Ctrl-S cycles the sorts: said in the status and the footer, kept across Esc and a relaunch")
  func sortCycle() throws {
    var app = try AppDriver(.products)
    #expect(
      app.status
        == "↑↓ select  Enter open  Tab scope  #token  ^S sort  Esc cancel  F1 help  ^Q quit")
    app.type("rose")
    #expect(app.titles == ["Red Rose", "White Rose"])
    app.press(.control("s"))
    #expect(app.status == "Sorted by Title, A–Z")
    #expect(app.footer.hasPrefix("Items found: 2 · by Title, A–Z"))
    app.press(.control("s"))
    #expect(app.titles == ["White Rose", "Red Rose"])
    #expect(app.status == "Sorted by Title, Z–A")
    app.press(.control("s"), .control("s"))
    #expect(app.status == "Sorted by Year introduced, highest first")
    #expect(app.titles == ["White Rose", "Red Rose"])
    #expect(app.model.selectedRow == 0, "the best row is selected after a new order")
    app.press(.escape)
    #expect(app.titles.first == "White Rose", "a sort outlasts Esc: every item, newest first")
    #expect(app.footer.hasPrefix("15 items · by Year introduced, highest first"))
    app.press(.control("q"))
    let relaunched = try AppDriver(.products, restoring: app.savedState)
    #expect(relaunched.model.controller.sort == SearchSort("year", descending: true))
    #expect(relaunched.titles == app.titles)
    // Past the last field's two ways, back to relevance.
    var cycled = try AppDriver(.products)
    for _ in 0..<7 { cycled.press(.control("s")) }
    #expect(cycled.status == "Sorted by relevance")
    #expect(cycled.model.controller.sort == nil)
    #expect(cycled.footer == "15 items")
  }

  @Test("a long text shows in a row as a few words around where the search matched it")
  func rowSnippets() throws {
    var app = try AppDriver(.media)
    app.type("spirits")
    #expect(app.titles == ["Spirited Away"])
    #expect(
      app.screen[5]
        == "   Creator: Hayao Miyazaki  ·  Description: …world of spirits when her parents…")
    app.press(.enter)
    #expect(app.text.contains("A sullen ten-year-old girl wanders into a world of spirits"))
  }

  @Test("near a place (sift --near): how far on each row, the place beside the count, ^S nearest")
  func nearAPlace() throws {
    var schema = CatalogSchema(
      name: "towns",
      fields: [
        .text("name"), .text("state"), .number("lat", searchable: false),
        .number("lon", searchable: false),
      ],
      titleField: "name")
    schema.location = LocationFields(latitude: "lat", longitude: "lon")
    let town = { (id: String, name: String, state: String, lat: Double, lon: Double) in
      Item(
        id: ItemID(id),
        fields: [
          "name": .text(name), "state": .text(state), "lat": .number(lat), "lon": .number(lon),
        ])
    }
    let collection = try FilteredCollection(
      schema: schema,
      items: [
        town("1", "Springfield", "Massachusetts", 42.1015, -72.5898),
        town("2", "Springfield", "Illinois", 39.8017, -89.6437),
        town("3", "Spring Valley", "Illinois", 41.3275, -89.1998),
      ])
    var app = try AppDriver(collection: collection)
    app.model.search(near: SearchNear(try GeoPoint(latitude: 40, longitude: -89)))
    app.settle()
    app.type("spring")
    #expect(app.titles == ["Springfield", "Spring Valley", "Springfield"])
    #expect(app.screen[5] == "   59.2 km  ·  State: Illinois", "\(app.screen[5])")
    #expect(app.footer.hasPrefix("Items found: 3 · near 40,-89"), "\(app.footer)")
    // Ctrl-S: relevance, then each field both ways, then nearest first.
    for _ in 0..<(schema.sortChoices.count) { app.press(.control("s")) }
    #expect(app.model.controller.sort == .distance)
    #expect(app.footer.hasPrefix("Items found: 3 · by Distance, nearest first · near 40,-89"))
    #expect(app.titles == ["Springfield", "Spring Valley", "Springfield"])
    app.model.search(
      near: SearchNear(try GeoPoint(latitude: 40, longitude: -89), withinKilometers: 100))
    app.settle()
    #expect(app.titles == ["Springfield"])
    #expect(
      app.footer.hasPrefix("1 item found · by Distance, nearest first · near 40,-89 within 100 km"))
    // In an area instead (`sift --within-box`): what is inside, and the footer says where.
    app.model.search(near: nil)
    app.model.search(withinBox: try GeoBox(south: 39, west: -90, north: 42, east: -88))
    app.settle()
    #expect(Set(app.titles) == ["Springfield", "Spring Valley"])
    #expect(
      app.footer.hasPrefix("Items found: 2 · by Distance, nearest first · in 39,-90,42,-88"),
      "\(app.footer)")
    app.model.search(withinBox: nil)
    app.settle()
    #expect(app.titles.count == 3)
    // The form checks coordinates as an import does.
    var editor = ItemEditor(schema: schema, item: collection.item(id: "2"))
    editor.values[2] = "91"
    #expect(
      editor.edit(titleField: "name")
        == .failure(EditorProblem("Lat must be a latitude, from -90 to 90, not 91")))
  }

  @Test(
    "a catalog named by an id field: the new-item form asks for it first and names the item by it",
    arguments: [false, true])
  func idFieldInTheForm(_ idIsSearched: Bool) throws {
    let fields: [FieldDefinition] =
      idIsSearched
      ? [.text("name"), .text("icao"), .text("city")] : [.text("name"), .text("city")]
    let schema = CatalogSchema(
      name: "airports", fields: fields, titleField: "name", idField: "icao")
    var editor = ItemEditor(schema: schema)
    #expect(
      editor.fields.map(\.name)
        == (idIsSearched ? ["name", "icao", "city"] : ["icao", "name", "city"]))
    #expect(editor.fields[editor.focus].name == "name", "the form still starts in the title")
    let icao = editor.fields.firstIndex { $0.name == "icao" }!
    let name = editor.fields.firstIndex { $0.name == "name" }!
    editor.values[icao] = "QQQQ"
    editor.values[name] = "Test Field"
    let expected: [String: FieldValue] =
      idIsSearched
      ? ["name": .text("Test Field"), "icao": .text("QQQQ")] : ["name": .text("Test Field")]
    #expect(editor.edit(titleField: "name") == .success(.add(ItemID("QQQQ"), fields: expected)))
    // Left empty, the catalog numbers it; an item being edited keeps its id and fields.
    editor.values[icao] = ""
    #expect(
      editor.edit(titleField: "name")
        == .success(.add(nil, fields: ["name": .text("Test Field")])))
    let existing = ItemEditor(
      schema: schema, item: Item(id: "EGLL", fields: ["name": .text("Heathrow")]))
    #expect(existing.fields.map(\.name) == fields.map(\.name))
  }

  /// A catalog with more fields than a small screen has lines: twelve text fields.
  static func wideCatalog() throws -> FilteredCollection {
    let names = ["name"] + (1...11).map { "field\($0)" }
    let schema = CatalogSchema(
      name: "wide", fields: names.map { .text($0) }, titleField: "name")
    var fields: [String: FieldValue] = ["name": .text("Lone Airport")]
    for (index, name) in names.enumerated().dropFirst() { fields[name] = .text("value \(index)") }
    return try FilteredCollection(schema: schema, items: [Item(id: "1", fields: fields)])
  }

  @Test("at 30×10 the form scrolls to the field being typed into; its header does not overlap")
  func formScrolls() throws {
    var app = try AppDriver(collection: Self.wideCatalog(), width: 30, height: 10)
    app.press(.enter)
    app.press(.control("e"))
    #expect(app.screen[0].contains("Cancel (Esc)") && app.screen[0].contains("Edit Item"))
    #expect(!app.screen[0].contains("(EEdit"), "\(app.screen[0])")
    for _ in 0..<10 { app.press(.tab) }
    app.type("ZZZ")
    // The focused field, the tenth after the title, is on screen with what was typed.
    let focused = try #require(
      app.screen.first { $0.lowercased().contains(" field10") }, "\(app.screen)")
    #expect(focused.contains("value 10ZZZ"), "\(app.screen)")
    let cursor = try #require(app.model.cursorPosition)
    #expect(app.screen[cursor.y].lowercased().contains("field10"))
    #expect(app.screen[1].contains("↑") && app.screen[1].contains("more"))
    app.press(.enter)
    #expect(
      app.writes.last.map { edit -> Bool in
        if case .update(let item) = edit { return item["field10"] == .text("value 10ZZZ") }
        return false
      } == true)
  }

  @Test(
    "the detail view scrolls with ↓, PgDn and End to fields a screen cannot hold",
    arguments: [(30, 10), (80, 24)])
  func detailScrolls(_ width: Int, _ height: Int) throws {
    var app = try AppDriver(collection: Self.wideCatalog(), width: width, height: height)
    app.press(.enter)
    #expect(!app.text.contains("value 11"))
    #expect(app.screen[height - 2].contains("↓"))
    app.press(.end)
    #expect(app.text.contains("value 11"), "\(app.screen)")
    #expect(!app.screen[height - 2].contains("↓"))
    app.press(.home)
    #expect(app.text.contains("Name") && !app.text.contains("value 11"))
    for _ in 0..<30 { app.press(.down) }
    #expect(app.text.contains("value 11"))
    for _ in 0..<10 { app.press(.pageUp) }
    #expect(app.screen[2].contains("Name"))
    app.press(.pageDown)
    #expect(app.screen[1].contains("↑"))
  }

  @Test("either of two and synonyms as the app shows them: rows, count and highlights")
  func alternativesAndSynonyms() throws {
    var app = try AppDriver(.products)
    app.type("rose | tulip")
    #expect(app.titles == ["Tulip", "Red Rose", "White Rose"])
    #expect(app.footer.hasPrefix("Items found: 3"))
    app.type(" |")
    #expect(app.titles == ["Tulip", "Red Rose", "White Rose"], "a dangling `|` is ignored")
    var collection = try SeedCatalog.products.load().makeCollection()
    collection.synonyms = Synonyms([.init(group: ["flower", "rose"])])
    var synonyms = try AppDriver(collection: collection)
    synonyms.type("flower")
    // The query is the synonym: the roses rank with its own matches, before "flower" inside
    // Sunflower.
    #expect(synonyms.titles == ["Red Rose", "White Rose", "Sunflower"])
    #expect(synonyms.footer.hasPrefix("Items found: 3"))
  }

  @Test("selection moves, scrolls, and opens the right item")
  func selection() throws {
    var app = try AppDriver(.candies)
    for _ in 0..<9 { app.press(.down) }
    #expect(app.model.selectedRow == 9)
    #expect(app.titles.first == "Dark Chocolate", "scrolled so the selection shows")
    #expect(app.titles.last == "Candy Floss")
    app.press(.enter)
    #expect(app.screen[0].contains("Candy Floss"))
    app.press(.escape, .pageUp)
    #expect(app.model.selectedRow == 1)
    app.press(.up, .up, .up)
    #expect(app.model.selectedRow == 0)
  }

  @Test("the Apple sample's multi-word queries highlight what matched")
  func appleSample() throws {
    var app = try AppDriver(.products)
    app.type("rose 2010")
    #expect(app.titles == ["Red Rose"])
    let grid = app.model.render()
    let title = grid.rows[4]
    #expect(
      title[5].text == "R" && title[5].style.bold && title[5].style.color == 33, "Rose is matched")
    #expect(title[1].text == "R" && title[1].style.color == nil, "Red is not")
    let detail = grid.rows[5]
    let yearColumn = app.screen[5].distance(
      from: app.screen[5].startIndex, to: app.screen[5].range(of: "2010")!.lowerBound)
    #expect(detail[yearColumn].style.color == 33)
  }

  @Test("tokens: # offers them, Enter takes one, Backspace in an empty field removes it")
  func tokens() throws {
    var app = try AppDriver(.media)
    app.type("#")
    // Each suggestion says how many items its token would show.
    #expect(app.screen[3].contains("🎬 Movies  14"))
    #expect(app.screen[4].contains("🎵 Music  14"))
    app.type("mu")
    #expect(app.model.suggestionPopup.map(\.text) == ["Music"])
    app.press(.enter)
    #expect(app.model.controller.tokens.map(\.text) == ["Music"])
    #expect(app.screen[1].hasPrefix(" 🔍  🎵 Music "))
    #expect(app.titles.count == 8)
    #expect(app.footer.hasSuffix("Filtering 14 of 40"))
    app.type("#s")
    app.press(.down)
    #expect(app.model.suggestionPopup.map(\.text) == ["Since 2010"])
    app.press(.enter)
    #expect(app.titles == ["Lemonade", "Map of the Soul: 7", "El Mal Querer"])
    app.press(.backspace)
    #expect(app.model.controller.tokens.map(\.text) == ["Music"])
    app.press(.backspace)
    #expect(app.model.controller.tokens.isEmpty)
    #expect(app.footer == "40 items")
    // The empty field offers the searches people made before.
    app.model.pastSearches = ["rose", "tulip"]
    #expect(app.screen[1].contains("⌕ rose · tulip"), "\(app.screen[1])")
    // A misspelt #word: the category within its typo budget, as the values are searched.
    app.type("#moveis")
    #expect(app.model.suggestionPopup.map(\.text) == ["Movies"])
    #expect(app.screen[3].contains("🎬 Movies  14"))
  }

  @Test("FoodTracker: add, edit and delete while a search is active")
  func foodTracker() throws {
    var app = try AppDriver(.meals)
    app.type("chicken")
    #expect(app.titles == ["Chicken and Potatoes"])
    // Edit: the meal no longer matches and leaves the results.
    app.press(.control("e"))
    guard case .editor(let editor) = app.model.screen else {
      Issue.record("no editor")
      return
    }
    #expect(editor.values[0] == "Chicken and Potatoes")
    for _ in 0..<"Chicken and Potatoes".count { app.press(.backspace) }
    app.type("Roast Beef")
    app.press(.enter)
    #expect(app.writes.count == 1)
    #expect(app.titles == [])
    #expect(app.status == "Saved “Roast Beef” (it no longer matches the search)")
    // Add: a matching meal appears in its ranked place.
    app.press(.control("n"))
    app.type("Chicken Soup")
    app.press(.tab)
    app.type("3")
    app.press(.enter)
    #expect(app.titles == ["Chicken Soup"])
    guard case .add(let id, let fields) = app.writes.last else {
      Issue.record("no add")
      return
    }
    #expect(id == "4" && fields["rating"] == .number(3))
    // Delete asks first; "n" keeps it, "y" deletes it.
    app.press(.control("d"))
    #expect(app.status == "Delete “Chicken Soup”? y: delete  any other key: keep")
    app.press(.character("n"))
    #expect(app.titles == ["Chicken Soup"])
    app.press(.control("d"), .character("y"))
    #expect(app.titles == [])
    #expect(app.writes.last == .delete("4"))
    app.press(.escape)
    #expect(app.titles == ["Caprese Salad", "Roast Beef", "Pasta with Meatballs"])
  }

  @Test("a bad form value or a failed write changes nothing and says why")
  func failures() throws {
    var app = try AppDriver(.meals)
    app.press(.control("n"))
    app.type("Soup")
    app.press(.tab)
    app.type("lots")
    app.press(.enter)
    #expect(app.status == "Rating must be a number, not \"lots\"")
    #expect(app.writes.isEmpty)
    app.press(.escape)
    #expect(app.status == "Not added")
    app.failWrites = true
    app.press(.control("d"), .character("y"))
    #expect(app.status == "Not saved: disk full")
    #expect(app.titles.count == 3)
    // A form whose write fails stays open with what was typed; saving again once the disk is
    // back adds it.
    app.press(.control("n"))
    app.type("Soup")
    app.press(.tab)
    app.type("4")
    app.press(.enter)
    #expect(app.status == "Not saved: disk full")
    guard case .editor(let editor) = app.model.screen else {
      Issue.record("the form closed on a failed write")
      return
    }
    #expect(editor.values == ["Soup", "4", ""])
    #expect(app.writes.isEmpty)
    app.failWrites = false
    app.press(.enter)
    #expect(app.model.screen == .list)
    #expect(app.status == "Added “Soup”")
    #expect(app.writes == [.add("4", fields: ["name": .text("Soup"), "rating": .number(4)])])
  }

  @Test("quitting saves the search; the next launch restores it exactly")
  func restoration() throws {
    var app = try AppDriver(.products)
    app.type("rose")
    app.press(.tab, .tab, .tab, .down)
    #expect(app.titles == ["Red Rose", "White Rose"])
    app.press(.control("q"))
    #expect(app.quit)
    let saved = try #require(app.savedState)
    let relaunched = try AppDriver(.products, restoring: saved)
    #expect(relaunched.screen == app.screen)
    #expect(relaunched.model.selectedRow == 1)
    #expect(relaunched.model.controller.selectedScopeIndex == 3)
    #expect(relaunched.model.cursorPosition! == (8, 1))
  }

  @Test("a key that acts on rows waits for the search the screen does not show yet")
  func keysFasterThanSearch() throws {
    var app = try AppDriver(.candies)
    app.settlesBetweenKeys = false
    app.type("floss")
    #expect(app.model.pendingSearch != nil, "the worker has not answered yet")
    #expect(app.footer == "Searching…")
    app.press(.control("d"))
    #expect(app.status == "Delete “Candy Floss”? y: delete  any other key: keep")
    // The worker's answer for the same state arrives late: already shown, so it changes nothing.
    let late = try Fixtures.candiesCollection().searchJob(for: app.model.controller.criteria).run()
    let accepted = app.model.deliver(late)
    #expect(!accepted)
    app.press(.character("y"))
    #expect(app.writes == [.delete("10")])
  }

  @Test("help shows the keys; any key returns")
  func help() throws {
    var app = try AppDriver(.products)
    app.press(.f1)
    #expect(app.text.contains("Ctrl-Q  Ctrl-C    quit, saving the search for next time"))
    app.press(.character("x"))
    #expect(app.model.screen == .list)
    #expect(app.model.controller.text.isEmpty, "the key only closed help")
  }

  @Test(
    "the screen is drawn right at many sizes",
    arguments: [(80, 24), (100, 40), (120, 30), (40, 10), (20, 5)])
  func sizes(_ width: Int, _ height: Int) throws {
    var app = try AppDriver(.media, width: width, height: height)
    app.type("o")
    let grid = app.model.render()
    #expect(grid.rows.count == height)
    #expect(grid.rows.allSatisfy { $0.count == width })
    for line in grid.lines { #expect(TerminalText.displayWidth(line) <= width) }
    app.model.resize(width: width + 10, height: height + 5)
    #expect(app.model.render().rows.count == height + 5)
  }
}

@Suite("Hostile data on screen", .tags(.unit))
struct HostileScreenTests {
  @Test("100,000-character fields of wide, combining and control characters stay in their cells")
  func hugeFields() throws {
    let schema = try SeedCatalog.products.load().schema
    let title = String(repeating: "名e\u{301}\u{1B}[2J👍🏽\u{9B}\u{202E}", count: 12_500) + "end"
    let items = [
      Item(id: "huge", fields: [schema.titleField: .text(title)]),
      Item(id: "small", fields: [schema.titleField: .text("Ginger")]),
    ]
    var app = try AppDriver(
      collection: try FilteredCollection(schema: schema, items: items))
    func checkScreen(_ when: String) {
      let screen = app.screen
      #expect(screen.count == 24, "\(when)")
      for line in screen {
        #expect(TerminalText.displayWidth(line) <= 80, "\(when): \(line.prefix(40))")
        #expect(
          !line.unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) },
          "\(when): a raw control character")
      }
    }
    checkScreen("list")
    app.type("名 end")
    #expect(app.model.controller.rows == ["huge"])
    checkScreen("search")
    app.press(.down, .enter)
    #expect(app.model.screen == .detail("huge"))
    checkScreen("detail")
    app.press(.escape)
    checkScreen("back")
  }
}
