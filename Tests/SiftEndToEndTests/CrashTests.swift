import Foundation
import SiftTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGKILL cannot be caught: these tests kill `sift` at random points of a write and check what
/// SQLite's journal promises — the catalog passes `pragma integrity_check` and holds either all
/// of the old data or all of the new, never a mix.
@Suite("SIGKILL during writes", .serialized, .tags(.endToEnd), .needs("sqlite3"))
struct CrashTests {
  typealias Tmux = TerminalAppTests.Tmux

  /// sqlite3 is a Debian package; install it when this machine lacks it.
  static func ensureSQLite() throws {
    try Host.require(package: "sqlite3", check: "command -v sqlite3")
  }

  static func sqlite(_ path: String, _ sql: String) -> String {
    Host.shell("sqlite3 '\(path)' \"\(sql)\"").output.trimmingCharacters(
      in: .whitespacesAndNewlines)
  }

  /// Starts the sift binary with `arguments`, output discarded; returns its pid.
  static func spawn(_ arguments: [String]) -> pid_t {
    var pid: pid_t = 0
    let words = [SiftProcess.binary.path] + arguments
    let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    guard posix_spawn(&pid, words[0], &actions, nil, argv, environ) == 0 else { return -1 }
    return pid
  }

  /// Waits for `pid`; true when SIGKILL ended it (rather than its own exit).
  @discardableResult
  static func reap(_ pid: pid_t) -> Bool {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status & 0x7F) == SIGKILL
  }

  /// A search answered from the catalog's index as it is equals the same search once the index
  /// is removed from the file (so the next open folds every item afresh).
  static func expectIndexAnswersItems(
    _ sift: SiftProcess, catalog: String, query: String, round: Int
  ) throws {
    let stored = try sift.run(["search", "--catalog", catalog, "--json", query])
    #expect(stored.status == 0, "\(stored.stderr)")
    _ = sqlite(catalog, "delete from index_file")
    let fresh = try sift.run(["search", "--catalog", catalog, "--json", query])
    #expect(fresh.stderr.contains("the search index was rebuilt (the file had none yet)"))
    #expect(stored.stdout == fresh.stdout, "round \(round)")
  }

  @Test("an import killed at random points leaves the old or the new catalog, intact")
  func killedImports() throws {
    try Self.ensureSQLite()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let arguments = ImportCommandTests.cityArguments
    let sample = SiftProcess.fixtures.appendingPathComponent("cities-sample.jsonl")
    let old = try sift.run(["import", sample.path, "--catalog", "old.sqlite"] + arguments)
    try #require(old.status == 0, "\(old.stderr)")
    let oldCount = 2955

    // The new data: every city renamed, plus three renamed copies under new ids.
    var lines: [String] = []
    for line in try String(contentsOf: sample, encoding: .utf8).split(separator: "\n") {
      guard var object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      else { continue }
      let name = object["name"] as? String ?? ""
      for copy in 0..<4 {
        object["name"] = "NEW \(name)"
        if copy > 0 { object["id"] = "copy\(copy)-\(object["id"] ?? "")" }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        lines.append(String(decoding: data, as: UTF8.self))
      }
    }
    let newFile = try sift.write("new.jsonl", lines.joined(separator: "\n") + "\n")
    let newCount = lines.count

    // How long an import runs when nothing stops it, to spread the kills over it.
    try FileManager.default.copyItem(atPath: sift.path("old.sqlite"), toPath: sift.path("t.sqlite"))
    let started = Date()
    let full = try sift.run(["import", newFile, "--catalog", "t.sqlite"] + arguments)
    try #require(full.status == 0, "\(full.stderr)")
    let duration = Date().timeIntervalSince(started)

    var outcomes: [String: Int] = [:]
    var random = SplitMix64(seed: 5_793)
    for round in 0..<30 {
      let catalog = sift.path("killed-\(round).sqlite")
      try FileManager.default.copyItem(atPath: sift.path("old.sqlite"), toPath: catalog)
      let pid = Self.spawn(["import", newFile, "--catalog", catalog] + arguments)
      try #require(pid > 0)
      // Mostly late: the file is read and checked before anything is written.
      usleep(
        UInt32(Double.random(in: duration * 0.3..<duration * 1.05, using: &random) * 1_000_000))
      kill(pid, SIGKILL)
      let killed = Self.reap(pid)

      #expect(Self.sqlite(catalog, "pragma integrity_check") == "ok", "round \(round)")
      let counts = Self.sqlite(
        catalog, "select count(*), sum(f_name glob 'NEW *') from items"
      ).split(separator: "|").map { Int($0) ?? -1 }
      let state: String
      switch (counts.first, counts.last) {
      case (oldCount, 0): state = "old"
      case (newCount, newCount): state = "new"
      default: state = "mixed \(counts)"
      }
      #expect(state == "old" || state == "new", "round \(round): \(state)")
      outcomes[killed ? "killed, \(state)" : "finished", default: 0] += 1
      // The index file was recorded in the import's transaction: the catalog names one of the
      // items' generation whether the import landed or not, and it searches like a fresh fold.
      #expect(
        Self.sqlite(
          catalog,
          "select (select generation from index_file) = (select value from items_generation)")
          == "1", "round \(round)")
      try Self.expectIndexAnswersItems(sift, catalog: catalog, query: "seoul", round: round)
    }
    #expect(outcomes.keys.contains { $0.hasPrefix("killed") }, "\(outcomes)")
    print("killed imports: \(outcomes)")
  }

  @Test(
    "the app killed right after an edit keeps the catalog intact, with or without it",
    .needs("tmux"))
  func killedAppEdits() throws {
    try Self.ensureSQLite()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let tmux = try Tmux(sift)
    var random = SplitMix64(seed: 13_031)
    var catalog = ""
    var count = -1
    for round in 0..<8 {
      tmux.launch("--catalog meals")
      tmux.wait(for: "Search meals")
      if catalog.isEmpty {
        let found = Host.shell("ls '\(sift.path("data"))'/*meals*.sqlite").output
        catalog = found.trimmingCharacters(in: .whitespacesAndNewlines)
        count = Int(Self.sqlite(catalog, "select count(*) from items")) ?? -1
        try #require(count > 0, "no meals catalog in \(sift.path("data")): \(found)")
      }
      let pid = tmux.appPID
      tmux.keys("C-n")
      tmux.wait(for: "New Item")
      tmux.keys("S o u p \(round) Tab 3 Enter")
      usleep(UInt32.random(in: 0..<150_000, using: &random))
      Host.shell("kill -KILL \(pid)")
      tmux.wait(for: "EXIT=137")

      #expect(Self.sqlite(catalog, "pragma integrity_check") == "ok", "round \(round)")
      let now = Int(Self.sqlite(catalog, "select count(*) from items")) ?? -1
      #expect(now == count || now == count + 1, "round \(round): \(count) → \(now)")
      let soups = Self.sqlite(catalog, "select count(*) from items where f_name = 'Soup\(round)'")
      #expect(soups == (now == count + 1 ? "1" : "0"), "round \(round)")
      // Killed before it could save its index: the next open must not search a stale one.
      try Self.expectIndexAnswersItems(sift, catalog: catalog, query: "soup", round: round)
      count = now
    }
  }
}
