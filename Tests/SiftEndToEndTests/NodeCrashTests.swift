#if Server
import Foundation
import SiftTestSupport
import Testing

/// Two nodes on one PostgreSQL catalog under four editors: a node killed with SIGKILL, and the
/// database stopped with `-m immediate`, at seeded moments of the edits. Each time, once
/// everything is back, every acknowledged edit is on both nodes; the one edit in flight per
/// editor landed whole or not at all.
@Suite(
  "Nodes on PostgreSQL: killed, and the database stopped at once, under edits", .serialized,
  .tags(.endToEnd, .postgres), .needs("psql"))
struct NodeCrashTests {
  typealias Server = ServeCommandTests.Server
  typealias Editor = ServeCrashTests.Editor

  @Test(
    "kill -9 of a node and an immediate stop of PostgreSQL during edits lose no acknowledged edit on any node"
  )
  func killedAndStopped() throws {
    let seed = ProcessInfo.processInfo.environment["SIFT_SEED"].flatMap(UInt64.init) ?? 50_050
    print("NodeCrashTests seed \(seed) (SIFT_SEED to change it)")
    var random = SplitMix64(seed: seed)
    let cluster = try PostgresCluster.own()
    defer { cluster.remove() }
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let address = try ServeCrashTests.catalog(sift, at: cluster.address(catalog: "shop"))
    let tokenFile = try sift.write("token", ServeCrashTests.token)
    func node(_ index: Int) throws -> Server {
      try Server(
        sift,
        ["--catalog", address, "--token-file", tokenFile, "--cache", sift.path("cache\(index)")])
    }
    var nodes = [try node(0), try node(1)]
    let editors = (0..<4).map { Editor(number: $0, seed: seed) }
    var total = 0
    for round in 1...4 {
      let before = editors.map(\.edits).reduce(0, +)
      // Two editors on each node.
      let threads = editors.map { editor in
        let server = nodes[editor.number % 2]
        return Thread { editor.run(server, catalog: "shop", round: round) }
      }
      threads.forEach { $0.start() }
      let seconds = Double.random(in: 1.0..<2.0, using: &random)
      Thread.sleep(forTimeInterval: seconds)
      // Odd rounds: a node killed mid-edit, then the database; even: the database first.
      let victim = round % 2
      if round % 2 == 1 { nodes[victim].kill() }
      cluster.stop(immediately: true)
      if round % 2 == 0 { nodes[victim].kill() }
      while threads.contains(where: \.isExecuting) { Thread.sleep(forTimeInterval: 0.01) }
      try cluster.start()
      nodes[victim] = try node(victim)
      let made = editors.map(\.edits).reduce(0, +) - before
      total += made
      print(
        "round \(round): node \(victim) killed after \(String(format: "%.2f", seconds)) s, \(made) edits acknowledged"
      )
      #expect(made > 0, "round \(round): no edit was answered")
      // Both nodes caught up: the same version, for a moment.
      try Self.caughtUp(nodes)
      for editor in editors {
        for (index, server) in nodes.enumerated() {
          let lost = try editor.lost(on: server, catalog: "shop")
          #expect(
            lost.isEmpty,
            "round \(round), node \(index), editor \(editor.number): \(lost.prefix(5))")
        }
        try editor.settle(on: nodes[0], catalog: "shop")
      }
    }
    print("\(total) acknowledged edits over 4 rounds")
    for server in nodes { _ = server.stop() }
  }

  /// Waits until every node shows the same version twice, 300 ms apart (at most 20 s).
  static func caughtUp(_ nodes: [Server]) throws {
    var last: [Int] = []
    for _ in 0..<66 {
      let versions = try nodes.map { node in
        let listed = try node.request("GET", "/catalogs").json["catalogs"] as? [[String: Any]]
        return listed?.first?["version"] as? Int ?? -1
      }
      if Set(versions).count == 1, versions == last { return }
      last = versions
      Thread.sleep(forTimeInterval: 0.3)
    }
    Issue.record("the nodes did not catch up: versions \(last)")
  }
}
#endif
