#if Server
import Foundation
import Testing
import SiftTestSupport

/// The search page of `sift serve` in a real browser: headless Chromium, driven through
/// chromedriver, types, moves with the keyboard, switches scope, takes a token and opens a
/// detail; at each step the page must show what the JSON API answers for the same input.
/// Screenshots go to `.build/test-artifacts/search-page/` (or `$SIFT_TEST_ARTIFACTS`).
@Suite(
  "sift serve: the search page in Chromium", .serialized, .tags(.endToEnd, .browser),
  .needs("chromium", "chromedriver", "curl"))
struct SearchPageTests {
  /// What the page shows, read from its DOM.
  struct Shown: Equatable, CustomStringConvertible {
    var indicator: String
    var titles: [String]
    var marks: [String]
    var selected: String?
    var scopes: [String]
    var suggestions: [String]
    var tokens: [String]
    var detail: String?
    var focus: String
    var query: String

    var description: String {
      "indicator \"\(indicator)\", titles \(titles), selected \(selected ?? "-"), scopes \(scopes), "
        + "suggestions \(suggestions), tokens \(tokens), detail \(detail ?? "-"), focus \(focus)"
    }
  }

  static let readPage = """
    const all = (selector) => [...document.querySelectorAll(selector)];
    const selected = document.querySelector('#results [aria-selected="true"] .title');
    const detail = document.getElementById('detail');
    return {
      indicator: document.getElementById('indicator').textContent,
      titles: all('#results .title').map((e) => e.textContent),
      marks: all('#results .title mark').map((e) => e.textContent),
      selected: selected ? selected.textContent : null,
      scopes: all('#scopes [role=tab]').map((e) =>
        (e.getAttribute('aria-selected') === 'true' ? '*' : '') +
        e.querySelector('.scope-title').textContent + ' ' + e.querySelector('.count').textContent),
      suggestions: all('#suggestions [role=option]').map((e) => e.textContent),
      tokens: all('#tokens .token > span').map((e) => e.textContent),
      detail: detail.hidden ? null : document.getElementById('detail-title').textContent,
      focus: document.activeElement ? document.activeElement.id : '',
      query: location.search,
    };
    """

  /// Everything a screen reader needs and the page might forget: a label for every control,
  /// a name for every button, roles on the lists the keyboard moves through.
  static let accessibilityProblems = """
    const problems = [];
    for (const control of document.querySelectorAll('input, select')) {
      if (control.labels.length === 0 && !control.getAttribute('aria-label')) problems.push('unlabelled ' + control.id);
    }
    for (const button of document.querySelectorAll('button')) {
      if (!button.textContent.trim() && !button.getAttribute('aria-label')) problems.push('nameless button');
    }
    const roles = { results: 'listbox', suggestions: 'listbox', scopes: 'tablist', indicator: 'status' };
    for (const [id, role] of Object.entries(roles)) {
      if (document.getElementById(id).getAttribute('role') !== role) problems.push(id + ' is not a ' + role);
    }
    for (const row of document.querySelectorAll('#results > li')) {
      if (row.getAttribute('role') !== 'option') problems.push('a result is not an option');
    }
    if (document.documentElement.lang !== 'en') problems.push('no lang');
    return problems;
    """

  static let writeToken = "page-test-token"

  let browser: WebDriver
  let server: ServeCommandTests.Server
  let sift: SiftProcess
  let artifacts: URL

  init() throws {
    sift = try SiftProcess()
    let tokenFile = try sift.write("token", Self.writeToken)
    server = try ServeCommandTests.Server(
      sift, ["--catalog", "products", "--catalog", "candies", "--token-file", tokenFile])
    browser = try WebDriver(width: 1200, height: 900)
    let environment = ProcessInfo.processInfo.environment["SIFT_TEST_ARTIFACTS"] ?? ""
    artifacts =
      environment.isEmpty
      ? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/test-artifacts/search-page")
      : URL(fileURLWithPath: environment).appendingPathComponent("search-page")
  }

  func shown() throws -> Shown {
    let page = try browser.run(Self.readPage) as? [String: Any] ?? [:]
    return Shown(
      indicator: page["indicator"] as? String ?? "", titles: page["titles"] as? [String] ?? [],
      marks: page["marks"] as? [String] ?? [], selected: page["selected"] as? String,
      scopes: page["scopes"] as? [String] ?? [],
      suggestions: page["suggestions"] as? [String] ?? [],
      tokens: page["tokens"] as? [String] ?? [], detail: page["detail"] as? String,
      focus: page["focus"] as? String ?? "", query: page["query"] as? String ?? "")
  }

  /// What the API answers for `query` (the first page of 50, as the page asks).
  func api(_ catalog: String, _ query: String) throws -> [String: Any] {
    let (status, json) = try server.request(
      "GET", "/catalogs/\(catalog)/search?\(query)&limit=50&facets=1")
    #expect(status == 200, "\(query)")
    return json
  }

  /// Waits until the page shows the API's indicator and titles for `query`, and returns it.
  @discardableResult
  func waitForAnswer(
    _ catalog: String, _ query: String, _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Shown {
    let answer = try api(catalog, query)
    let titles = (answer["results"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
    let indicator = answer["indicator"] as? String ?? "?"
    let deadline = Date().addingTimeInterval(10)
    var page = try shown()
    while Date() < deadline && (page.indicator != indicator || page.titles != titles) {
      Thread.sleep(forTimeInterval: 0.05)
      page = try shown()
    }
    #expect(page.indicator == indicator, "\(what)", sourceLocation: sourceLocation)
    #expect(page.titles == titles, "\(what)", sourceLocation: sourceLocation)
    return page
  }

  /// The ids of the options marked selected, suggestions and rows alike.
  func selectedOptions() throws -> [String] {
    try browser.run(
      "return [...document.querySelectorAll('[role=option][aria-selected=\"true\"]')].map((e) => e.id)"
    ) as? [String] ?? []
  }

  func screenshot(_ name: String) throws {
    let file = artifacts.appendingPathComponent("\(name).png")
    try browser.screenshot(to: file)
    print("screenshot: \(file.path)")
  }

  @Test("type, stale answers dropped, scope, token, keyboard, detail, phone width")
  func searchPage() throws {
    defer {
      _ = server.stop()
      sift.cleanup()
    }
    let home = "http://127.0.0.1:\(server.port)"
    try browser.open("\(home)/?catalog=products")
    var page = try waitForAnswer("products", "q=", "the whole catalog at first")
    #expect(page.focus == "q")
    #expect(page.scopes == ["*All 15", "Birthdays 5", "Weddings 6", "Funerals 4"])
    #expect(try browser.run(Self.accessibilityProblems) as? [String] == [])

    // An answer for an earlier keystroke that arrives last is never shown, and each keystroke
    // aborts the request before it: the first one's answer is held back 1.5 s, deaf to aborts.
    try browser.run(
      """
      window.lateAnswers = 0; window.aborted = 0;
      const fetchNow = window.fetch;
      window.fetch = (url, options) => {
        options.signal.addEventListener('abort', () => { window.aborted += 1; });
        const answer = fetchNow(url, {...options, signal: undefined});
        if (!url.includes('q=r&')) return answer;
        return new Promise((resolve) => setTimeout(() => { window.lateAnswers += 1; resolve(answer); }, 1500));
      };
      """)
    let field = try browser.find("#q")
    try browser.type("rose", into: field)
    page = try waitForAnswer("products", "q=rose", "rose typed")
    #expect(page.titles == ["Red Rose", "White Rose"])
    #expect(page.marks == ["Rose", "Rose"])
    #expect(page.selected == "Red Rose")
    Thread.sleep(forTimeInterval: 2)
    try waitForAnswer("products", "q=rose", "still rose after the late answer")
    #expect(try browser.run("return window.lateAnswers") as? Int == 1)
    #expect((try browser.run("return window.aborted") as? Int ?? 0) >= 1)
    #expect(try shown().query == "?catalog=products&q=rose")
    try screenshot("1-typed")

    // The scope bar: a click, then the arrow keys on the tabs.
    try browser.click(try browser.find("#scope-3"))
    page = try waitForAnswer("products", "q=rose&scope=Funerals", "Funerals scope")
    #expect(page.scopes == ["All 2", "Birthdays 0", "Weddings 0", "*Funerals 2"])
    try browser.type(WebDriver.Key.arrowLeft, into: try browser.find("#scope-3"))
    page = try waitForAnswer("products", "q=rose&scope=Weddings", "Weddings by arrow key")
    #expect(page.focus == "scope-2" && page.scopes.contains("*Weddings 0"))
    try browser.type(
      WebDriver.Key.arrowLeft + WebDriver.Key.arrowLeft, into: try browser.find("#scope-2"))
    try waitForAnswer("products", "q=rose", "back to All")

    // The sort menu: the catalog's sortable fields both ways; a choice reorders and is kept in
    // the address.
    let menu =
      try browser.run(
        "return [...document.querySelectorAll('#sort option')].map((o) => o.textContent)")
      as? [String] ?? []
    #expect(
      menu == [
        "Relevance", "Title A–Z", "Title Z–A", "Year introduced lowest first",
        "Year introduced highest first", "Intro price lowest first", "Intro price highest first",
      ])
    try browser.run(
      "const menu = document.getElementById('sort'); menu.value = 'year:desc'; menu.dispatchEvent(new Event('change'));"
    )
    page = try waitForAnswer("products", "q=rose&sort=year:desc", "sorted by year, newest first")
    #expect(page.titles == ["White Rose", "Red Rose"])
    // Beside the count, each number field's range among the matches: a slider's ends.
    #expect(
      try browser.run("return document.getElementById('ranges').textContent") as? String
        == "Year introduced 2010–2012 · Intro price 24.99")
    #expect(page.query == "?catalog=products&q=rose&sort=year%3Adesc")
    try screenshot("1b-sorted")
    try browser.run(
      "const menu = document.getElementById('sort'); menu.value = ''; menu.dispatchEvent(new Event('change'));"
    )
    page = try waitForAnswer("products", "q=rose", "by relevance again")
    #expect(page.titles == ["Red Rose", "White Rose"])

    // A token from the # suggestions, with the keyboard.
    try browser.type(WebDriver.Key.escape + "#", into: field)
    // The categories come from a search of their values, each with its count; the other
    // tokens offered follow.
    let offered = try api("products", "q=%23")["suggestions"] as? [[String: Any]] ?? []
    let counts = Dictionary(
      uniqueKeysWithValues: (try server.request("GET", "/catalogs/products/facets/type").json[
        "values"]
        as? [[String: Any]] ?? []).map { ($0["value"] as? String ?? "", $0["count"] as? Int ?? 0) })
    let expectedSuggestions = offered.map { token in
      let text = token["text"] as? String ?? ""
      let isCategory = (token["identifier"] as? String ?? "").hasPrefix("category:")
      return "#" + (token["icon"] as? String).map { "\($0) " }! + text
        + (isCategory ? counts[text].map(String.init) ?? "" : "")
    }
    try browser.wait(
      "the # suggestions with their counts",
      until: "return document.querySelectorAll('#suggestions .token-count').length === 3")
    #expect(try shown().suggestions == expectedSuggestions)
    // Most items first: Weddings (6), then Birthdays (5).
    #expect(expectedSuggestions.prefix(2) == ["#💍 Weddings6", "#🎂 Birthdays5"])
    // The first suggestion is highlighted at once, and it alone is selected: no row is.
    #expect(try selectedOptions() == ["suggestion-0"])
    try browser.type(WebDriver.Key.arrowDown, into: field)
    #expect(try selectedOptions() == ["suggestion-1"])
    try browser.type(WebDriver.Key.arrowUp, into: field)
    #expect(try selectedOptions() == ["suggestion-0"])
    try browser.type(WebDriver.Key.arrowDown + WebDriver.Key.enter, into: field)
    page = try waitForAnswer("products", "token=category:Birthdays", "the Birthdays token")
    #expect(page.tokens == ["🎂 Birthdays"])
    #expect(page.suggestions == [])
    #expect(page.query == "?catalog=products&token=category%3ABirthdays")

    // Down to the second row, Enter for its detail, Escape back to the field.
    try browser.type(WebDriver.Key.arrowDown, into: field)
    page = try shown()
    #expect(page.selected == page.titles.dropFirst().first)
    try browser.type(WebDriver.Key.enter, into: field)
    try browser.wait("the detail", until: "return !document.getElementById('detail').hidden")
    page = try shown()
    #expect(page.detail == page.selected && page.detail != nil)
    #expect(page.focus == "detail-title")
    let labels =
      try browser.run(
        "return [...document.querySelectorAll('#detail dt')].map((e) => e.textContent)")
      as? [String]
    #expect(labels == ["Year introduced", "Intro price", "Type", "Id"])
    try screenshot("2-token-and-detail")
    try browser.type(WebDriver.Key.escape, into: try browser.find("#detail-title"))
    page = try shown()
    #expect(page.detail == nil && page.focus == "q")
    // Backspace in the empty field takes the token back.
    try browser.type(WebDriver.Key.backspace, into: field)
    page = try waitForAnswer("products", "q=", "the token removed")
    #expect(page.tokens == [])

    // "#fun" and Enter takes the only suggestion; it used to open Ginger's detail.
    try browser.type("#fun", into: field)
    try browser.wait(
      "the #fun suggestion",
      until: "return document.querySelectorAll('#suggestions [role=option]').length === 1")
    #expect(try selectedOptions() == ["suggestion-0"])
    try browser.type(WebDriver.Key.enter, into: field)
    page = try waitForAnswer("products", "token=category:Funerals", "the Funerals token")
    #expect(page.tokens == ["🕊 Funerals"] && page.detail == nil)
    try browser.type(WebDriver.Key.backspace, into: field)
    try waitForAnswer("products", "q=", "the Funerals token removed")

    // A misspelt "#funrals" still offers Funerals, from the search of the category's values.
    try browser.type("#funrals", into: field)
    try browser.wait(
      "the #funrals suggestion",
      until: "return document.querySelector('#suggestions .token-count') !== null")
    #expect(try shown().suggestions == ["#🕊 Funerals4"])
    try screenshot("2b-category-values")
    try browser.type(WebDriver.Key.enter, into: field)
    page = try waitForAnswer("products", "token=category:Funerals", "the Funerals token again")
    #expect(page.tokens == ["🕊 Funerals"])
    try browser.type(WebDriver.Key.backspace, into: field)
    try waitForAnswer("products", "q=", "the Funerals token removed again")

    // A token from the address, named by the category's field and in lower case, is drawn as
    // the catalog shows it; a price shows its cents, as the app and the command line write it.
    let added = try server.request(
      "POST", "/catalogs/products/items",
      body: #"{"title": "Even Tulip", "year": 2024, "price": 25, "type": "Funerals"}"#,
      token: Self.writeToken)
    #expect(added.status == 201)
    try browser.open("\(home)/?catalog=products&q=even&token=type:funerals")
    page = try waitForAnswer("products", "q=even&token=type:funerals", "a token from the address")
    #expect(page.tokens == ["🕊 Funerals"])
    #expect(page.titles == ["Even Tulip"])
    let secondary =
      try browser.run("return document.querySelector('#result-0 .secondary').textContent")
      as? String
    #expect(secondary?.contains("Intro price 25.00") == true, "\(secondary ?? "")")

    // A phone's width: "did you mean" for a word the scope hides, then a detail that covers
    // the screen.
    try browser.resize(width: 390, height: 844)
    try browser.open("\(home)/?catalog=candies&q=carmel&scope=chocolate")
    page = try waitForAnswer("candies", "q=carmel&scope=Chocolate", "carmel in Chocolate")
    #expect(page.scopes.first { $0.hasPrefix("*") } == "*Chocolate 0")
    #expect(
      try browser.run("return document.getElementById('did-you-mean').textContent") as? String
        == "Did you mean caramel?")
    try screenshot("3-phone-did-you-mean")
    try browser.click(try browser.find("#did-you-mean button"))
    page = try waitForAnswer("candies", "q=caramel&scope=Chocolate", "caramel taken")
    #expect(page.query == "?catalog=candies&q=caramel&scope=Chocolate")
    try browser.click(try browser.find("#scope-0"))
    page = try waitForAnswer("candies", "q=caramel", "caramel in every scope")
    #expect(page.titles == ["Caramel"])
    try browser.click(try browser.find("#result-0"))
    try browser.wait("the detail", until: "return !document.getElementById('detail').hidden")
    let covered =
      try browser.run(
        """
        const box = document.getElementById('detail').getBoundingClientRect();
        return [box.left, box.top, box.width === window.innerWidth, document.documentElement.scrollWidth <= window.innerWidth];
        """) as? [Any]
    #expect(
      covered?.count == 4 && covered?[2] as? Bool == true && covered?[3] as? Bool == true,
      "\(covered ?? [])")
    try screenshot("4-phone-detail")
    try browser.click(try browser.find("#detail-close"))
    #expect(try shown().detail == nil)
  }

  @Test(
    "a tenant token given as /#key=…: the page sees only the token's rows, and the address forgets it"
  )
  func tenantToken() throws {
    defer {
      _ = server.stop()
      sift.cleanup()
    }
    let made = try sift.run(["keys", "create", "--catalog", "candies", "--action", "search"])
    #expect(made.status == 0, "\(made.stderr)")
    let key = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let signed = try sift.run([
      "keys", "token", "--key", key, "--catalog", "candies", "--filter", "category:Chocolate",
    ])
    let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let shop = try ServeCommandTests.Server(sift, ["--catalog", "candies", "--private"])
    defer { _ = shop.stop() }
    let (status, answer) = try shop.request(
      "GET", "/catalogs/candies/search?q=&limit=50&facets=1", token: token)
    #expect(status == 200)
    let titles = (answer["results"] as? [[String: Any]] ?? []).compactMap {
      $0["title"] as? String
    }
    #expect(!titles.isEmpty)
    try browser.open("http://127.0.0.1:\(shop.port)/#key=\(token)")
    let deadline = Date().addingTimeInterval(10)
    var page = try shown()
    while Date() < deadline && page.titles != titles {
      Thread.sleep(forTimeInterval: 0.05)
      page = try shown()
    }
    #expect(page.titles == titles, "the token's rows, as the API gives them to it")
    #expect(page.indicator == answer["indicator"] as? String)
    // Only the token's own categories have a button: no other seller's, not even with 0.
    #expect(page.scopes == ["*All 5", "Chocolate 5"], "\(page.scopes)")
    let address = try browser.run("return location.href") as? String ?? ""
    #expect(!address.contains(token) && !address.contains("key="), "\(address)")
    try screenshot("6-tenant-token")
  }

  @Test(
    "airports with empty fields and western places, at 390 px and 1200 px: nothing empty, ranges that read, no sideways scroll"
  )
  func airportsAtTwoWidths() throws {
    defer {
      _ = server.stop()
      sift.cleanup()
    }
    let airports = try sift.write(
      "airports.jsonl",
      [
        #"{"id": "KRBO", "name": "Robinson Field", "city": "Robinson", "region": "Texas", "iata": "", "lid": "TE17", "lat": 31.5, "lon": -97.146946}"#,
        #"{"id": "EGLL", "name": "London Heathrow Airport", "city": "London", "region": "England", "iata": "LHR", "lid": "", "lat": 51.4706, "lon": -0.46194}"#,
        #"{"id": "SCEL", "name": "Arturo Merino Benitez International Airport", "city": "Santiago", "region": "Santiago Metropolitan", "iata": "SCL", "lid": "", "lat": -33.393, "lon": -70.7858}"#,
      ].joined(separator: "\n") + "\n")
    let imported = try sift.run([
      "import", airports, "--catalog", "airports.sqlite", "--title", "name", "--text", "city",
      "--text", "region", "--text", "iata", "--text", "lid", "--id", "id", "--location", "lat,lon",
    ])
    #expect(imported.status == 0, "\(imported.stderr)")
    let served = try ServeCommandTests.Server(sift, ["--catalog", sift.path("airports.sqlite")])
    defer { _ = served.stop() }
    for (width, height) in [(390, 844), (1200, 900)] {
      try browser.resize(width: width, height: height)
      try browser.open("http://127.0.0.1:\(served.port)/?q=a")
      try browser.wait(
        "three airports", until: "return document.querySelectorAll('#results .title').length === 3")
      let page =
        try browser.run(
          """
          const parts = [...document.querySelectorAll('#results .part')].map((e) => e.textContent);
          return {
            parts: parts,
            lines: [...document.querySelectorAll('#results .secondary')].map((e) => e.textContent),
            ranges: document.getElementById('ranges').textContent,
            fits: document.documentElement.scrollWidth <= window.innerWidth,
            within: document.getElementById('within').getBoundingClientRect().right <= window.innerWidth,
          };
          """) as? [String: Any] ?? [:]
      let parts = page["parts"] as? [String] ?? []
      #expect(!parts.isEmpty && !parts.contains { $0.trimmingCharacters(in: .whitespaces).isEmpty })
      #expect(
        (page["lines"] as? [String])?.first { $0.contains("Robinson") } == "RobinsonTexasTE17",
        "\(page["lines"] ?? "")")
      let ranges = page["ranges"] as? String ?? ""
      #expect(ranges.contains("Lon \u{2212}97.146946 to \u{2212}0.46194"), "\(ranges)")
      #expect(!ranges.contains("–-"), "\(ranges)")
      #expect(page["fits"] as? Bool == true, "the page scrolls sideways at \(width) px")
      #expect(page["within"] as? Bool == true, "the within box is cut at \(width) px")
      try screenshot("7-airports-\(width)")
    }
  }

  @Test(
    "suggested searches: typing that stops is counted, the empty field offers it, taking it searches"
  )
  func suggestedSearches() throws {
    defer {
      _ = server.stop()
      sift.cleanup()
    }
    let shop = try ServeCommandTests.Server(sift, ["--catalog", "products", "--record-searches"])
    defer { _ = shop.stop() }
    try browser.open("http://127.0.0.1:\(shop.port)/")
    let field = try browser.find("#q")
    try browser.wait(
      "the page", until: "return document.getElementById('indicator').textContent !== ''")
    // "rose" typed and left: counted once the typing stops, not each keystroke on the way.
    try browser.type("rose", into: field)
    let deadline = Date().addingTimeInterval(10)
    var counted: [[String: Any]] = []
    while Date() < deadline, counted.isEmpty {
      Thread.sleep(forTimeInterval: 0.3)
      counted =
        try shop.request("GET", "/catalogs/products/suggestions").json["suggestions"]
        as? [[String: Any]] ?? []
    }
    #expect(counted.map { $0["text"] as? String } == ["rose"])
    #expect(counted.first?["count"] as? Int == 1)
    // The empty field offers it; taking it searches for it.
    try browser.run(
      "const q = document.getElementById('q'); q.value = ''; q.dispatchEvent(new Event('input'));")
    try browser.wait(
      "the past searches",
      until: "return document.querySelector('#suggestions [role=option]')?.textContent === '⌕rose'")
    try screenshot("7-suggested-searches")
    try browser.run(
      "document.getElementById('suggestion-0').dispatchEvent(new MouseEvent('mousedown'))")
    try browser.wait(
      "the search for rose",
      until: "return document.getElementById('indicator').textContent === 'Items found: 2'")
    #expect(try browser.run("return document.getElementById('q').value") as? String == "rose")
  }

  @Test("a private server's page says how to give it a key")
  func privateNeedsAKey() throws {
    defer {
      _ = server.stop()
      sift.cleanup()
    }
    let shop = try ServeCommandTests.Server(sift, ["--catalog", "candies", "--private"])
    defer { _ = shop.stop() }
    try browser.open("http://127.0.0.1:\(shop.port)/")
    try browser.wait("the error", until: "return !document.getElementById('error').hidden")
    let message = try browser.run("return document.getElementById('error').textContent") as? String
    #expect(
      message
        == "The catalogs could not be read: Authorization: this server is private: searching needs a key (Authorization: Bearer KEY). Open this page as http://127.0.0.1:\(shop.port)/#key=YOUR_KEY with a search key or a tenant token (sift keys create, sift keys token)."
    )
  }

  @Test("near a place: the place field, distances on the rows, nearest first, kept in the address")
  func nearAPlace() throws {
    defer {
      _ = server.stop()
      sift.cleanup()
    }
    let towns = try sift.write(
      "towns.jsonl",
      [
        #"{"id": 1, "name": "Springfield", "state": "Illinois", "lat": 39.8017, "lon": -89.6437, "population": 114394}"#,
        #"{"id": 2, "name": "Springfield", "state": "Massachusetts", "lat": 42.1015, "lon": -72.5898, "population": 155929}"#,
        #"{"id": 3, "name": "Springfield", "state": "Missouri", "lat": 37.2153, "lon": -93.2982, "population": 169176}"#,
        #"{"id": 4, "name": "Spring Valley", "state": "Illinois", "lat": 41.3275, "lon": -89.1998, "population": 5314}"#,
        #"{"id": 5, "name": "Shelbyville", "state": "Illinois", "lat": 39.4064, "lon": -88.7901, "population": 4694}"#,
      ].joined(separator: "\n") + "\n")
    let imported = try sift.run([
      "import", towns, "--catalog", "towns.sqlite", "--title", "name", "--text", "state",
      "--number", "population", "--id", "id", "--rank-by", "population", "--location", "lat,lon",
    ])
    #expect(imported.status == 0, "\(imported.stderr)")
    let located = try ServeCommandTests.Server(sift, ["--catalog", sift.path("towns.sqlite")])
    defer { _ = located.stop() }
    let home = "http://127.0.0.1:\(located.port)"
    func answer(_ query: String) throws -> (titles: [String], indicator: String) {
      let (status, json) = try located.request("GET", "/catalogs/towns/search?\(query)&limit=50")
      #expect(status == 200, "\(query)")
      return (
        (json["results"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String },
        json["indicator"] as? String ?? "?"
      )
    }
    func waitFor(_ query: String, _ what: String) throws -> Shown {
      let expected = try answer(query)
      let deadline = Date().addingTimeInterval(10)
      var page = try shown()
      while Date() < deadline
        && (page.indicator != expected.indicator || page.titles != expected.titles)
      {
        Thread.sleep(forTimeInterval: 0.05)
        page = try shown()
      }
      #expect(page.indicator == expected.indicator, "\(what)")
      #expect(page.titles == expected.titles, "\(what)")
      return page
    }
    func distances() throws -> [String] {
      try browser.run(
        "return [...document.querySelectorAll('#results .distance')].map((e) => e.textContent)")
        as? [String] ?? []
    }
    try browser.open("\(home)/?q=spring")
    _ = try waitFor("q=spring", "by popularity without a place")
    #expect(
      try browser.run("return document.getElementById('near-picker').hidden") as? Bool == false)
    #expect(try distances() == [])
    #expect(try browser.run(Self.accessibilityProblems) as? [String] == [])
    // A place typed: the nearest Springfield first, each row with its distance.
    try browser.type("40, -89", into: try browser.find("#near"))
    try browser.run("document.getElementById('near').dispatchEvent(new Event('change'))")
    var page = try waitFor("q=spring&near=40,-89", "near Illinois")
    #expect(page.titles.first == "Springfield")
    #expect(try distances().first == "59.2 km")
    #expect(page.query == "?q=spring&near=40%2C-89")
    let menu =
      try browser.run(
        "return [...document.querySelectorAll('#sort option')].map((o) => o.textContent)")
      as? [String] ?? []
    #expect(menu.last == "Nearest first")
    // Within a radius, nearest first.
    try browser.type("100", into: try browser.find("#within"))
    try browser.run(
      """
      document.getElementById('within').dispatchEvent(new Event('change'));
      const menu = document.getElementById('sort'); menu.value = 'distance:asc';
      menu.dispatchEvent(new Event('change'));
      """)
    page = try waitFor("q=spring&near=40,-89&within=100&sort=distance:asc", "within 100 km")
    #expect(page.titles == ["Springfield"])
    #expect(page.indicator == "1 item found")
    try screenshot("5-near")
    // The address brings it all back.
    try browser.open("\(home)/?q=&near=40%2C-89&within=100&sort=distance")
    page = try waitFor("near=40,-89&within=100&sort=distance:asc", "opened from the address")
    #expect(page.titles == ["Springfield", "Shelbyville"])
    #expect(try distances() == ["59.2 km", "68.4 km"])
    #expect(try browser.run("return document.getElementById('within').value") as? String == "100")
    // Search this area: the Illinois towns' extent, then every town inside it, whatever the text.
    try browser.open("\(home)/?q=illinois")
    _ = try waitFor("q=illinois", "the Illinois towns")
    try browser.click(try browser.find("#this-area"))
    let area = "39.4064,-89.6437,41.3275,-88.7901"
    page = try waitFor("q=illinois&within_box=\(area)", "in their area")
    #expect(page.query == "?q=illinois&within_box=39.4064%2C-89.6437%2C41.3275%2C-88.7901")
    #expect(
      try browser.run("return document.getElementById('area-text').textContent") as? String
        == "In the area 39.4064, -89.6437, 41.3275, -88.7901")
    try browser.run(
      "const q = document.getElementById('q'); q.value = 'spring'; q.dispatchEvent(new Event('input'))"
    )
    page = try waitFor("q=spring&within_box=\(area)", "spring in the area")
    #expect(Set(page.titles) == ["Springfield", "Spring Valley"])
    try screenshot("6-this-area")
    try browser.click(try browser.find("#area-clear"))
    page = try waitFor("q=spring", "anywhere again")
    #expect(page.titles.count == 4)
    #expect(try browser.run("return document.getElementById('area').hidden") as? Bool == true)
    // A place off the earth: the API's words, under the field's name.
    try browser.run(
      """
      const near = document.getElementById('near'); near.value = '91,0';
      near.dispatchEvent(new Event('change'));
      """)
    try browser.wait(
      "the error", until: "return !document.getElementById('error').hidden")
    #expect(
      try browser.run("return document.getElementById('error').textContent") as? String
        == "near: latitude 91 is outside -90…90")
  }
}
#endif
