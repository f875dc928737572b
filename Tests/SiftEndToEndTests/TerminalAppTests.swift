import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import SiftTestSupport
#endif

/// The terminal app in a real terminal: tmux runs the built binary, `send-keys` types,
/// `capture-pane` reads the screen.
@Suite("sift in tmux", .serialized, .tags(.endToEnd, .terminal), .needs("tmux"))
struct TerminalAppTests {
  /// A tmux server of the test's own, with one 80×24 window.
  final class Tmux {
    /// A server per launch, so a relaunch never meets the last one shutting down.
    private(set) var socket = Tmux.newSocket()

    static func newSocket() -> String { "sift-test-\(UUID().uuidString.prefix(8))" }
    let sift: SiftProcess

    init(_ sift: SiftProcess) throws {
      self.sift = sift
      try Self.ensureInstalled()
    }

    /// tmux is a Debian package that `Scripts/setup-tests` installs.
    static func ensureInstalled() throws {
      try Host.require(package: "tmux", check: "command -v tmux")
    }

    @discardableResult
    func tmux(_ arguments: String) -> String {
      Host.shell("tmux -L \(socket) \(arguments)").output
    }

    /// Starts `sift ARGUMENTS` in a fresh window of `width`×`height`; the shell reports its exit
    /// status after.
    func launch(_ arguments: String, width: Int = 80, height: Int = 24) {
      tmux("kill-server 2>/dev/null")
      socket = Self.newSocket()
      let command =
        "cd '\(sift.folder.path)' && SIFT_DATA_DIR='\(sift.path("data"))' TERM=xterm-256color '\(SiftProcess.binary.path)' \(arguments); echo EXIT=\\$?; sleep 120"
      tmux("new-session -d -s app -x \(width) -y \(height) \"\(command)\"")
    }

    func keys(_ keys: String) { tmux("send-keys -t app \(keys)") }

    /// Types `text` as it is (`send-keys -l`).
    func type(_ text: String) {
      tmux("send-keys -t app -l '\(text.replacingOccurrences(of: "'", with: "'\\''"))'")
    }

    var screen: String { tmux("capture-pane -p -t app") }

    /// Waits until the screen contains `text`; returns the screen then.
    @discardableResult
    func wait(for text: String, timeout: TimeInterval = 15) -> String {
      let deadline = Date().addingTimeInterval(timeout)
      var last = ""
      while Date() < deadline {
        last = screen
        if last.contains(text) { return last }
        Thread.sleep(forTimeInterval: 0.05)
      }
      Issue.record("timed out waiting for \"\(text)\"; the screen was:\n\(last)")
      return last
    }

    var appPID: String {
      let shellPID = tmux("display -p -t app '#{pane_pid}'").trimmingCharacters(
        in: .whitespacesAndNewlines)
      return Host.shell("pgrep -P \(shellPID)").output.split(separator: "\n").first.map(String.init)
        ?? ""
    }

    deinit { _ = Host.shell("tmux -L \(socket) kill-server 2>/dev/null") }
  }

  struct TmuxError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
  }

  @Test("type, scope, detail, cancel; quit restores the terminal; relaunch restores the search")
  func candySearchAndRestore() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let tmux = try Tmux(sift)
    tmux.launch("--catalog candies")
    tmux.wait(for: "Search candies")
    tmux.keys("c a r a m e l")
    var screen = tmux.wait(for: "1 item found")
    #expect(screen.contains(" Caramel"))
    tmux.keys("Tab")
    screen = tmux.wait(for: "No items match your query")
    #expect(screen.contains("No Results"))
    tmux.keys("BTab")
    tmux.wait(for: "Filtering 1 of 15")
    tmux.keys("Enter")
    screen = tmux.wait(for: "‹ Back (Esc)")
    #expect(screen.contains("Category") && screen.contains("Other"))
    tmux.keys("Escape")
    tmux.wait(for: "Filtering 1 of 15")
    tmux.keys("C-q")
    screen = tmux.wait(for: "EXIT=0")
    #expect(!screen.contains("Search candies"), "the alternate screen is gone")

    tmux.launch("--catalog candies")
    screen = tmux.wait(for: "Filtering 1 of 15")
    #expect(screen.contains("🔍 caramel"))
    tmux.keys("Escape")
    screen = tmux.wait(for: "15 items")
    #expect(screen.contains("Search candies"))
    tmux.keys("C-c")
    tmux.wait(for: "EXIT=0")
  }

  @Test("tokens, edits saved at once, and SIGTERM restores the terminal and saves the search")
  func editsAndSignals() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let tmux = try Tmux(sift)
    tmux.launch("--catalog meals")
    tmux.wait(for: "Search meals")
    tmux.keys("C-n")
    tmux.wait(for: "New Item")
    tmux.keys("S o u p Tab 3 Enter")
    tmux.wait(for: "Added “Soup”")
    // The file has it at once.
    let search = try sift.run(["search", "--catalog", "meals", "--json", "soup"])
    #expect(search.titles == ["Soup"])

    tmux.keys("p a s")
    tmux.wait(for: "1 item found")
    tmux.keys("C-d")
    tmux.wait(for: "Delete “Pasta with Meatballs”?")
    tmux.keys("y")
    tmux.wait(for: "Deleted “Pasta with Meatballs”")
    #expect(
      try sift.run(["search", "--catalog", "meals", "--json"]).titles.contains(
        "Pasta with Meatballs") == false)

    // One more edit that no other process has seen: only the app can save its index.
    tmux.keys("C-n")
    tmux.wait(for: "New Item")
    tmux.keys("T e a Tab 2 Enter")
    tmux.wait(for: "Added “Tea”")
    Host.shell("kill -TERM \(tmux.appPID)")
    let screen = tmux.wait(for: "EXIT=0")
    #expect(!screen.contains("Search meals"))
    // The app saved its index on the way out: the next open reads it, with no notice.
    let afterwards = try sift.run(["search", "--catalog", "meals", "--json", "tea"])
    #expect(afterwards.titles == ["Tea"])
    #expect(!afterwards.stderr.contains("rebuilt"), "\(afterwards.stderr)")
    tmux.launch("--catalog meals")
    tmux.wait(for: "🔍 pas")
    tmux.keys("C-q")
    tmux.wait(for: "EXIT=0")
  }

  @Test("a category added in the app keeps its case after a quit, and #fe offers it")
  func categoryAddedInTheApp() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    _ = try sift.write("pets.csv", "name,species\nRex,Dog\nTom,Cat\n")
    let imported = try sift.run([
      "import", "pets.csv", "--catalog", "pets.sqlite", "--title", "name", "--category", "species",
    ])
    try #require(imported.status == 0, "\(imported.stderr)")
    let tmux = try Tmux(sift)
    tmux.launch("--catalog pets.sqlite")
    tmux.wait(for: "Search pets")
    tmux.keys("C-n")
    tmux.wait(for: "New Item")
    tmux.type("Biscuit")
    tmux.keys("Tab")
    tmux.type("Ferret")
    tmux.keys("Enter")
    tmux.wait(for: "Added “Biscuit”")
    // The app saves its index on the way out; what reads it later must spell Ferret so.
    tmux.keys("C-q")
    tmux.wait(for: "EXIT=0")
    let facets = try sift.run(["facets", "--catalog", "pets.sqlite", "--field", "species"])
    #expect(facets.stdout.contains("Ferret  1"), "\(facets.stdout)")
    let searched = try sift.run(["search", "--catalog", "pets.sqlite", "--facets", "biscuit"])
    #expect(searched.stdout.contains("Categories: Ferret 1"), "\(searched.stdout)")

    tmux.launch("--catalog pets.sqlite")
    tmux.wait(for: "Search pets")
    tmux.type("#fe")
    let screen = tmux.wait(for: "Ferret")
    #expect(!screen.contains("ferret"), "\(screen)")
    tmux.keys("Enter")
    tmux.wait(for: "1 item found")
    tmux.keys("C-q")
    tmux.wait(for: "EXIT=0")
  }

  @Test("a misspelt name shows its near spelling and says so; Ctrl-U, Ctrl-W and no results")
  func nearSpellingsAndLineEditing() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let tmux = try Tmux(sift)
    tmux.launch("--catalog products")
    tmux.wait(for: "Search products")
    tmux.keys("g i n g r")
    var screen = tmux.wait(for: "No exact matches — showing 1 near spelling")
    #expect(screen.contains("No exact matches for “gingr” — showing near spellings"))
    #expect(screen.contains(" Ginger"))
    tmux.keys("C-u")
    tmux.wait(for: "15 items")
    tmux.keys("r e d Space z z q")
    screen = tmux.wait(for: "No results for “red zzq”")
    #expect(screen.contains("No Results") && screen.contains("Check the spelling"))
    tmux.keys("C-w")
    screen = tmux.wait(for: "Items found: 3")
    #expect(screen.contains("🔍 red"))
    // Under Funerals nothing is near "gingr"; the whole catalog's nearest word is offered.
    tmux.keys("C-u Tab Tab Tab g i n g r")
    screen = tmux.wait(for: "Did you mean “ginger”?")
    #expect(screen.contains("No results for “gingr”") && screen.contains("Tab to search All"))
    tmux.keys("BTab BTab BTab")
    tmux.wait(for: "No exact matches — showing 1 near spelling")
    tmux.keys("F1")
    screen = tmux.wait(for: "Keys")
    #expect(screen.contains("Ctrl-U") && screen.contains("Ctrl-W"))
    tmux.keys("Escape C-q")
    tmux.wait(for: "EXIT=0")
  }

  @Test(
    "one line editor: the cursor moves in the search field and the form; Ctrl-U clears; long values scroll"
  )
  func lineEditor() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let tmux = try Tmux(sift)
    tmux.launch("--catalog products")
    tmux.wait(for: "Search products")
    // "rse", ←←, "o" reads "rose": typing goes where the cursor is.
    tmux.keys("r s e Left Left o")
    tmux.wait(for: "🔍 rose")
    var screen = tmux.wait(for: "Items found: 2")
    tmux.keys("Home C-k w h i t e Space End")
    screen = tmux.wait(for: "🔍 white ")
    tmux.keys("r o s e Enter C-e")
    screen = tmux.wait(for: "Edit Item")
    // Ctrl-U clears the title, which used to append: "White RoseWhite Lily".
    tmux.keys("C-u W h i t e Space L i l y Enter")
    screen = tmux.wait(for: "White Lily")
    tmux.keys("Escape C-u")
    tmux.wait(for: "15 items")
    tmux.keys("l i l y")
    screen = tmux.wait(for: "1 item found")
    #expect(screen.contains(" White Lily"))
    // A value wider than the field scrolls with the cursor: what is typed at its end shows.
    tmux.keys("Enter C-e")
    tmux.wait(for: "Edit Item")
    let long = String(repeating: "petal ", count: 20)
    tmux.type(long + "END")
    screen = tmux.wait(for: "petal END")
    #expect(screen.contains("…"), "\(screen)")
    tmux.keys("Enter")
    tmux.wait(for: "White Lilypetal")
    tmux.keys("C-q")
    tmux.wait(for: "EXIT=0")
    let saved = try sift.run(["search", "--catalog", "products", "--json", "lily"])
    #expect(saved.titles == ["White Lily" + long + "END"])
  }

  @Test("hostile data is drawn inert, and long rows are cut, not wrapped")
  func hostileData() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let lines = [
      #"{"id":1,"name":"Evil \u001b[2J\u001b]0;pwned\u0007 title"}"#,
      #"{"id":2,"name":"서울 \u0301 très long \#(String(repeating: "名", count: 60))"}"#,
    ]
    let file = try sift.write("evil.jsonl", lines.joined(separator: "\n") + "\n")
    #expect(
      try sift.run(["import", file, "--catalog", "evil.sqlite", "--title", "name", "--id", "id"])
        .status == 0)
    let tmux = try Tmux(sift)
    tmux.launch("--catalog evil.sqlite")
    let screen = tmux.wait(for: "2 items")
    #expect(screen.contains("Evil ␛[2J␛]0;pwned␇ title"))
    let rows = screen.split(separator: "\n", omittingEmptySubsequences: false)
    let long = try #require(rows.first { $0.contains("très long") })
    #expect(long.hasSuffix("…") || long.hasSuffix("… ") || long.contains("…"))
    #expect(rows.count <= 25)
    tmux.keys("C-q")
    tmux.wait(for: "EXIT=0")
  }

  @Test("sift --near: each row says how far, the footer names the place; a bad place is refused")
  func nearAPlace() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    try sift.importCitySample()
    let tmux = try Tmux(sift)
    tmux.launch("--catalog cities.sqlite --near 48.8566,2.3522 --within 40")
    var screen = tmux.wait(for: "near 48.8566,2.3522 within 40 km")
    // Nearest first with nothing typed: the same cities `sift search` lists.
    let listed = try sift.run([
      "search", "--catalog", "cities.sqlite", "--near", "48.8566,2.3522", "--within", "40",
      "--json", "--limit", "3",
    ])
    for title in listed.titles { #expect(screen.contains(" \(title)"), "\(title)\n\(screen)") }
    let first = try #require(listed.objects.first?["distance_km"] as? Double)
    #expect(screen.contains("   \(MatchKilometers.shown(first))  ·  "), "\(screen)")
    tmux.type("e")
    screen = tmux.wait(for: "Items found:")
    #expect(screen.contains(" · near 48.8566,2.3522 within 40 km"))
    tmux.keys("C-q")
    tmux.wait(for: "EXIT=0")
    // A place off the earth, or in a catalog without a location: refused before the screen.
    tmux.launch("--catalog cities.sqlite --near 91,0")
    screen = tmux.wait(for: "EXIT=64")
    #expect(screen.contains("--near: latitude 91 is outside -90…90"))
    tmux.launch("--catalog products --near 1,1")
    screen = tmux.wait(for: "EXIT=2")
    #expect(screen.contains("catalog products has no location to be near"))
  }
  @Test(
    "at 30×10 the form scrolls to the field typed into, its header whole; at 80×24 the details scroll to the last field"
  )
  func smallScreens() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    // An airport with more fields than either screen has lines (kept fields show by name:
    // field1, field10, field11, field2 … field9 last).
    var record = #"{"id": "KRBO", "name": "Robinson Field""#
    for number in 1...11 { record += #", "field\#(number)": "value \#(number)""# }
    let file = try sift.write("airports.jsonl", record + "}\n")
    #expect(
      try sift.run(["import", file, "--catalog", "ap.sqlite", "--title", "name", "--id", "id"])
        .status == 0)
    let tmux = try Tmux(sift)
    tmux.launch("--catalog ap.sqlite", width: 30, height: 10)
    tmux.wait(for: "Robinson")
    tmux.keys("Enter")
    tmux.wait(for: "Back")
    tmux.keys("C-e")
    var screen = tmux.wait(for: "Edit Item")
    let header = screen.split(separator: "\n").first.map(String.init) ?? ""
    #expect(header.contains("Cancel (Esc)") && header.contains("Edit Item"), "\(header)")
    for _ in 0..<10 { tmux.keys("Tab") }
    tmux.type("ZZZ")
    // The field typed into is on the screen, with what was typed.
    screen = tmux.wait(for: "ZZZ")
    #expect(screen.contains("ZZZ"), "\(screen)")
    tmux.keys("Enter")
    tmux.wait(for: "Saved")
    tmux.keys("C-q")
    tmux.wait(for: "EXIT=0")
    let saved = try #require(
      try sift.run(["search", "--catalog", "ap.sqlite", "--json", "robinson"]).objects.first)
    let typed = saved.filter { ($0.value as? String)?.hasSuffix("ZZZ") == true }.map(\.key)
    #expect(typed.count == 1, "\(saved)")

    tmux.launch("--catalog ap.sqlite")
    tmux.wait(for: "Robinson")
    tmux.keys("Enter")
    screen = tmux.wait(for: "more")
    #expect(!screen.contains("value 9"), "\(screen)")
    tmux.keys("End")
    screen = tmux.wait(for: "value 9")
    tmux.keys("Home")
    screen = tmux.wait(for: "Name")
    for _ in 0..<30 { tmux.keys("Down") }
    tmux.wait(for: "value 9")
    tmux.keys("C-q")
    tmux.wait(for: "EXIT=0")
  }
}
