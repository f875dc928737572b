#if Server
import Foundation
import SiftTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A served .sqlite catalog survives the server's death under load: four clients add, change
/// and delete as fast as they can, the server is killed (SIGKILL) or stopped (SIGTERM) at a
/// seeded moment, and every time it starts again on the same file — nothing repaired by hand in
/// between — and holds every acknowledged edit. SIGTERM leaves no write-ahead log behind, and
/// under a steady stream of edits the log stays bounded.
@Suite("sift serve: killed and stopped under edits", .serialized, .tags(.endToEnd))
struct ServeCrashTests {
  typealias Server = ServeCommandTests.Server

  /// What one client did: each id's title as the server acknowledged it (nil: deleted), and
  /// the one edit in flight when the server died, whose outcome is unknown.
  final class Editor: @unchecked Sendable {
    let number: Int
    private let lock = NSLock()
    private(set) var acknowledged: [String: String?] = [:]
    /// The id an unanswered change or delete was about, and its title before and after.
    private(set) var inFlight: (id: String, before: String?, after: String?)?
    private(set) var count = 0
    var random: SplitMix64

    init(number: Int, seed: UInt64) {
      self.number = number
      random = SplitMix64(seed: seed &+ UInt64(number))
    }

    func record(_ id: String, _ title: String?) {
      lock.withLock {
        acknowledged[id] = .some(title)
        count += 1
      }
    }

    func unanswered(_ id: String, before: String?, after: String?) {
      lock.withLock { inFlight = (id, before, after) }
    }

    func clearInFlight() { lock.withLock { inFlight = nil } }

    var edits: Int { lock.withLock { count } }

    /// Adds, changes and deletes its own items until a request fails (the server is gone).
    func run(_ server: Server, catalog: String, round: Int) {
      var live = acknowledged.compactMap { $0.value == nil ? nil : $0.key }.sorted()
      var serial = 0
      while true {
        serial += 1
        let title = "Client\(number) Round\(round) Edit\(serial)"
        let body = #"{"title": "\#(title)", "year": 2030, "price": 1, "type": "Gifts"}"#
        // Each client names its own items, so no two clients ever edit one id.
        let newID = "c\(number)-r\(round)-\(serial)"
        let added =
          #"{"id": "\#(newID)", "title": "\#(title)", "year": 2030, "price": 1, "type": "Gifts"}"#
        let choice = live.count < 5 ? 0 : Int.random(in: 0..<3, using: &random)
        do {
          switch choice {
          case 0:
            unanswered(newID, before: nil, after: title)
            let answer = try server.request(
              "POST", "/catalogs/\(catalog)/items", body: added, token: ServeCrashTests.token)
            guard answer.status == 201, idText(answer.json["id"]) == newID else { return }
            record(newID, title)
            live.append(newID)
          case 1:
            let id = live[Int.random(in: 0..<live.count, using: &random)]
            unanswered(id, before: acknowledged[id] ?? nil, after: title)
            let answer = try server.request(
              "PUT", "/catalogs/\(catalog)/items/\(id)", body: body, token: ServeCrashTests.token)
            guard answer.status == 200 else { return }
            record(id, title)
          default:
            let index = Int.random(in: 0..<live.count, using: &random)
            let id = live[index]
            unanswered(id, before: acknowledged[id] ?? nil, after: nil)
            let answer = try server.request(
              "DELETE", "/catalogs/\(catalog)/items/\(id)", token: ServeCrashTests.token)
            guard answer.status == 204 else { return }
            record(id, nil)
            live.remove(at: index)
          }
          clearInFlight()
        } catch {
          return
        }
      }
    }

    /// The ids whose item differs on the server from what was acknowledged.
    func lost(on server: Server, catalog: String) throws -> [String] {
      var lost: [String] = []
      var expected = acknowledged
      if let inFlight, expected[inFlight.id] == nil { expected[inFlight.id] = .some(nil) }
      for (id, title) in expected.sorted(by: { $0.key < $1.key }) {
        let answer = try server.request("GET", "/catalogs/\(catalog)/items/\(id)")
        let found = answer.status == 200 ? answer.json["title"] as? String : nil
        guard answer.status == 200 || answer.status == 404 else {
          lost.append("\(id): status \(answer.status)")
          continue
        }
        if found == title { continue }
        if let inFlight, inFlight.id == id, found == inFlight.after { continue }
        lost.append("\(id): \(found ?? "gone"), acknowledged \(title ?? "deleted")")
      }
      return lost
    }

    /// What the server now holds counts as acknowledged (the edit in flight landed or not).
    func settle(on server: Server, catalog: String) throws {
      guard let inFlight else { return }
      let answer = try server.request("GET", "/catalogs/\(catalog)/items/\(inFlight.id)")
      lock.withLock {
        acknowledged[inFlight.id] = .some(
          answer.status == 200 ? answer.json["title"] as? String : nil)
        self.inFlight = nil
      }
    }
  }

  static let token = "t0k3n"

  /// The catalog the editors edit, named `shop`: 40 flowers imported into `catalog` (by
  /// default a file of the test's own, served by path); returns `catalog`.
  static func catalog(_ sift: SiftProcess, at catalog: String? = nil) throws -> String {
    let catalog = catalog ?? sift.path("shop.sqlite")
    let lines = (1...40).map {
      #"{"id": "\#($0)", "title": "Flower \#($0)", "year": \#(1990 + $0), "price": 1, "type": "Gifts"}"#
    }
    let file = try sift.write("flowers.jsonl", lines.joined(separator: "\n") + "\n")
    let imported = try sift.run([
      "import", file, "--catalog", catalog, "--title", "title", "--number", "year", "--number",
      "price", "--category", "type", "--id", "id",
    ])
    try #require(imported.status == 0, "\(imported.stderr)")
    return catalog
  }

  @Test(
    "killed (-9) or stopped (TERM) under four editors, it restarts every time with every acknowledged edit"
  )
  func killedAndRestarted() throws {
    let seed = ProcessInfo.processInfo.environment["SIFT_SEED"].flatMap(UInt64.init) ?? 20_261_126
    print("ServeCrashTests seed \(seed) (SIFT_SEED to change it)")
    var random = SplitMix64(seed: seed)
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let file = try Self.catalog(sift)
    let tokenFile = try sift.write("token", Self.token)
    let editors = (0..<4).map { Editor(number: $0, seed: seed) }
    var total = 0
    for round in 1...8 {
      let server: Server
      do {
        server = try Server(sift, ["--catalog", file, "--token-file", tokenFile])
      } catch {
        Issue.record("round \(round): the server did not start again: \(error)")
        return
      }
      // The first look after the restart: what the last round acknowledged is all there.
      for editor in editors {
        let lost = try editor.lost(on: server, catalog: "shop")
        #expect(lost.isEmpty, "round \(round), client \(editor.number): \(lost.prefix(5))")
        try editor.settle(on: server, catalog: "shop")
      }
      let before = editors.map(\.edits).reduce(0, +)
      let threads = editors.map { editor in
        Thread { editor.run(server, catalog: "shop", round: round) }
      }
      threads.forEach { $0.start() }
      let seconds = Double.random(in: 1.0..<2.5, using: &random)
      Thread.sleep(forTimeInterval: seconds)
      let killed = round % 2 == 1
      if killed {
        server.kill()
      } else {
        let stopped = server.stop()
        #expect(stopped.status == 0, "round \(round): \(stopped.stderr)")
        // Stopped, it checkpointed: one whole file, no log to replay.
        let log = (try? FileManager.default.attributesOfItem(atPath: file + "-wal")[.size]) as? Int
        #expect((log ?? 0) == 0, "round \(round): the -wal holds \(log ?? 0) bytes after SIGTERM")
      }
      while threads.contains(where: \.isExecuting) { Thread.sleep(forTimeInterval: 0.01) }
      let made = editors.map(\.edits).reduce(0, +) - before
      total += made
      print(
        "round \(round): \(killed ? "SIGKILL" : "SIGTERM") after \(String(format: "%.2f", seconds)) s, \(made) edits acknowledged"
      )
      #expect(made > 0, "round \(round): no edit was answered")
    }
    // And once more: the last round's edits after its kill.
    let server = try Server(sift, ["--catalog", file, "--token-file", tokenFile])
    for editor in editors {
      let lost = try editor.lost(on: server, catalog: "shop")
      #expect(lost.isEmpty, "last start, client \(editor.number): \(lost.prefix(5))")
    }
    #expect(server.stop().status == 0)
    print("\(total) acknowledged edits over 8 deaths, none lost")
  }

  @Test("under ten seconds of edits from four clients the write-ahead log stays bounded")
  func boundedLog() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let file = try Self.catalog(sift)
    let tokenFile = try sift.write("token", Self.token)
    let server = try Server(sift, ["--catalog", file, "--token-file", tokenFile])
    let editors = (0..<4).map { Editor(number: $0, seed: 7) }
    let threads = editors.map { editor in
      Thread { editor.run(server, catalog: "shop", round: 1) }
    }
    threads.forEach { $0.start() }
    // Searches too, as a page would make them.
    var largest = 0
    let started = Date()
    while Date().timeIntervalSince(started) < 10 {
      _ = try? server.request("GET", "/catalogs/shop/search?q=client&limit=20")
      let size = (try? FileManager.default.attributesOfItem(atPath: file + "-wal")[.size]) as? Int
      largest = max(largest, size ?? 0)
    }
    #expect(server.stop().status == 0)
    while threads.contains(where: \.isExecuting) { Thread.sleep(forTimeInterval: 0.01) }
    let edits = editors.map(\.edits).reduce(0, +)
    print("\(edits) edits in 10 s; the -wal was at most \(largest / 1024) KB")
    #expect(edits > 100)
    #expect(largest <= 16 << 20, "the -wal grew to \(largest) bytes")
  }
}
#endif
