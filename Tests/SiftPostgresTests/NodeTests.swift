#if Server
import Foundation
import Sift
import SiftPostgres
import SiftStore
import SiftTestSupport
import Testing

/// Nodes that search a PostgreSQL catalog in memory and follow its change log: writers on every
/// node at once, restarts from the local copy, an import under them, the database gone and back.
@Suite(
  "Nodes follow a PostgreSQL catalog's change log", .serialized, .tags(.postgres), .needs("psql"))
struct NodeTests {
  /// A folder of the test's own, removed at the end.
  final class Folder {
    let url: URL
    init() throws {
      url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "sift-nodes-\(UUID().uuidString)", isDirectory: true)
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func cache(_ index: Int) -> URL { url.appendingPathComponent("node\(index)") }
    deinit { try? FileManager.default.removeItem(at: url) }
  }

  /// The catalog `name` on `cluster`, written afresh with `document` (the products by default).
  static func catalog(
    _ name: String, on cluster: PostgresCluster, document: CatalogDocument? = nil
  ) async throws -> PostgresAddress {
    let address = try PostgresAddress(cluster.address(catalog: name))
    try await PostgresCatalog.replace(address, with: try document ?? SeedCatalog.products.load())
    return address
  }

  /// Each node's first rows for a few searches, with their indicator: what a reader sees.
  static func pages(_ node: any SearchCatalog, _ queries: [String]) async throws -> [String] {
    var pages: [String] = []
    for query in queries {
      let request = try SearchRequest(SearchRequestInput(text: query), schema: node.schema)
      let page = try await node.search(request, page: PageRequest(limit: 8, facets: true))
      pages.append(
        page.indicator.text + ": " + page.results.map(\.item.id.rawValue).joined(separator: ",")
          + " "
          + (page.facets?.categories.sorted { $0.key < $1.key }.map { "\($0)=\($1)" } ?? [])
          .joined(separator: ","))
    }
    return pages
  }

  /// The products' title field.
  static let title = (try? SeedCatalog.products.load().schema.titleField) ?? "title"

  static let queries = ["", "rose", "gift", "wedding", "flower blue", "ros", "cake", "zzz"]

  @Test(
    "four writers on three nodes: every node applies every change once, in order, and shows the database's pages"
  )
  func writersOnNodes() async throws {
    let folder = try Folder()
    let document = try SeedCatalog.products.load()
    let cluster = try PostgresCluster.shared()
    let address = try await Self.catalog("nodes_writers", on: cluster, document: document)
    var nodes: [PostgresNode] = []
    for index in 0..<3 {
      nodes.append(try await PostgresNode.open(address, cacheFolder: folder.cache(index)))
    }
    let start = nodes[0].version
    let seed: UInt64 = 50_001
    print("writers on nodes: seed \(seed)")
    let titles = document.items.compactMap { $0[document.schema.titleField]?.displayText }
    // Each writer edits items of its own through every node in turn; what it was told is kept.
    let outcomes = try await withThrowingTaskGroup(of: [Int64].self) { group in
      for writer in 0..<4 {
        group.addTask { [nodes] in
          var random = SplitMix64(seed: seed + UInt64(writer))
          var versions: [Int64] = []
          var mine: [ItemID] = []
          for step in 0..<30 {
            let node = nodes[(writer + step) % nodes.count]
            let title = titles.randomElement(using: &random)! + " \(writer)-\(step)"
            let edit: CatalogEdit
            if mine.isEmpty || Int.random(in: 0..<3, using: &random) == 0 {
              edit = .add(ItemID("w\(writer)-\(step)"), fields: [Self.title: .text(title)])
            } else if Bool.random(using: &random) {
              edit = .update(
                Item(id: mine.randomElement(using: &random)!, fields: [Self.title: .text(title)]))
            } else {
              edit = .delete(mine.remove(at: Int.random(in: 0..<mine.count, using: &random)))
            }
            let saved = try await node.served.commit(edit)
            if case .add = edit { mine.append(saved.id) }
            // The node it was made on shows it at once.
            #expect(node.version >= saved.version)
            versions.append(saved.version)
          }
          return versions
        }
      }
      var all: [Int64] = []
      for try await versions in group { all += versions }
      return all
    }
    // Every edit got a version of its own, with no gap: nothing a follower could skip.
    #expect(outcomes.sorted() == Array(start + 1...start + 120))
    let last = outcomes.max()!
    for node in nodes { try await node.served.reach(last, within: .seconds(10)) }
    let truth = try await PostgresCatalog.open(address)
    let written = try await truth.document()
    let reference = try StoredCatalog(
      name: "products",
      store: CatalogStore.create(
        at: folder.url.appendingPathComponent("reference.sqlite"), document: written))
    let expected = try await Self.pages(reference, Self.queries)
    for (index, node) in nodes.enumerated() {
      #expect(node.served.count() == reference.count())
      #expect(try await Self.pages(node.served, Self.queries) == expected, "node \(index)")
      let counted = node.counters.withLock { $0 }
      // Each change once: 120 entries applied, no reload.
      #expect(counted.applied == 120 && counted.loads == 0, "node \(index): \(counted)")
    }
    await truth.close()
    for node in nodes { await node.close() }
  }

  @Test(
    "a node restarted reads only the changes since its copy; an import under it is loaded whole")
  func restartAndImport() async throws {
    let folder = try Folder()
    var document = try SeedCatalog.products.load()
    let cluster = try PostgresCluster.shared()
    let address = try await Self.catalog("nodes_restart", on: cluster, document: document)
    let said = Locked<[String]>([])
    let first = try await PostgresNode.open(
      address, cacheFolder: folder.cache(0), progress: { step in said.withLock { $0.append(step) } }
    )
    #expect(first.openNotice?.contains("loaded \(document.items.count) items") == true)
    // What took a while was said as it started.
    #expect(
      said.withLock { $0 } == [
        "reading catalog nodes_restart from PostgreSQL",
        "writing and indexing \(document.items.count) items",
        "reading the changes since version \(first.version)",
      ])
    // The load indexed the items as it wrote them; a node serves that index and saves it
    // meanwhile, by the time it closes: a command then reads it from the file.
    #expect(first.served.openNotice == nil, "\(first.served.openNotice ?? "")")
    await first.close()
    let saved = try CatalogStore.open(at: first.localCopyURL).openCollection()
    #expect(saved.report.indexSource == .archive, "\(saved.report.notice ?? "")")
    let writer = try await PostgresNode.open(address, cacheFolder: folder.cache(1))
    for index in 0..<5 {
      _ = try await writer.served.commit(
        .add(ItemID("late-\(index)"), fields: [Self.title: .text("Late Rose \(index)")]))
    }
    _ = try await writer.served.replaceSynonyms(Synonyms([.init(group: ["late", "tardy"])]))
    let told = Locked<[String]>([])
    let again = try await PostgresNode.open(
      address, cacheFolder: folder.cache(0), progress: { step in told.withLock { $0.append(step) } }
    )
    #expect(
      again.openNotice?.contains("applied 6 changes since") == true, "\(again.openNotice ?? "")")
    #expect(again.counters.withLock { $0.loads } == 0)
    // The copy records the version it reached itself: no note beside it.
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.cache(1).path)
    #expect(!files.contains { $0.hasSuffix(".json") }, "\(files)")
    #expect(
      try CatalogStore.open(at: writer.localCopyURL).syncedVersion() == writer.version,
      "\(files)")
    #expect(
      try await Self.pages(again.served, ["tardy rose"])
        == Self.pages(writer.served, ["tardy rose"]))
    let tardy = try await Self.pages(again.served, ["tardy rose"]).first ?? ""
    #expect(tardy.hasPrefix("Items found: 5:"), "\(tardy)")
    // Another copy's folder is not taken from under a running node.
    await #expect(throws: PostgresError.self) {
      _ = try await PostgresNode.open(address, cacheFolder: folder.cache(0))
    }
    // An import replaces the catalog: both nodes load it whole, at the next version.
    document.items.removeLast(10)
    let before = again.version
    try await PostgresCatalog.replace(address, with: document)
    try await again.served.reach(before + 1, within: .seconds(10))
    try await writer.served.reach(before + 1, within: .seconds(10))
    #expect(again.served.count() == document.items.count)
    #expect(again.counters.withLock { $0.loads } == 1)
    #expect(
      told.withLock { $0 }.contains(
        "loading catalog nodes_restart whole again: the catalog was imported again"),
      "\(told.withLock { $0 })")
    // The copy made whole again has the load's index saved beside it, current.
    let reloaded = try CatalogStore.open(at: again.localCopyURL).openCollection()
    #expect(reloaded.report.indexSource == .archive, "\(reloaded.report.notice ?? "")")
    #expect(
      try await Self.pages(again.served, Self.queries) == Self.pages(writer.served, Self.queries))
    await again.close()
    await writer.close()
  }

  @Test(
    "the database stopped: searches answer from memory, edits fail naming it; back, edits resume and every node catches up"
  )
  func databaseDownAndBack() async throws {
    let folder = try Folder()
    let cluster = try PostgresCluster.own()
    defer { cluster.remove() }
    let address = try await Self.catalog("nodes_down", on: cluster)
    let one = try await PostgresNode.open(address, cacheFolder: folder.cache(0))
    let two = try await PostgresNode.open(address, cacheFolder: folder.cache(1))
    let shown = try await Self.pages(one.served, Self.queries)
    cluster.stop()
    #expect(try await Self.pages(one.served, Self.queries) == shown)
    #expect(try await Self.pages(two.served, Self.queries) == shown)
    do {
      _ = try await one.served.commit(
        .add(ItemID("down"), fields: [Self.title: .text("Down Rose")]))
      Issue.record("an edit with the database stopped was answered as saved")
    } catch {
      guard case .unavailable(let message) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(message.hasPrefix("the edit was not saved: cannot reach PostgreSQL at"), "\(message)")
    }
    try cluster.start()
    // The first edit after may find its connection gone; the next one is saved.
    var saved: CatalogCommit?
    for _ in 0..<20 where saved == nil {
      saved = try? await one.served.commit(
        .add(ItemID("back"), fields: [Self.title: .text("Back Rose")]))
      if saved == nil { try await Task.sleep(for: .milliseconds(250)) }
    }
    let version = try #require(saved).version
    try await two.served.reach(version, within: .seconds(20))
    #expect(
      try await Self.pages(two.served, ["back rose"]).first?.hasPrefix("1 item found") == true)
    await one.close()
    await two.close()
  }

  @Test(
    "the log is cut to what is kept; a node behind its start loads the catalog whole, one within it reads the log"
  )
  func boundedLog() async throws {
    let folder = try Folder()
    let cluster = try PostgresCluster.shared()
    let address = try await Self.catalog("nodes_bounded", on: cluster)
    let behind = try await PostgresNode.open(address, cacheFolder: folder.cache(0))
    await behind.close()
    // Keeps the last 100 changes, however young.
    let writer = try await PostgresCatalog.open(
      address, retention: PostgresCatalog.Retention(changes: 100, days: 0))
    for index in 0..<300 {
      _ = try await writer.commit(
        .add(ItemID("kept-\(index)"), fields: [Self.title: .text("Kept \(index)")]))
    }
    let (state, kept) = try await writer.changes(after: 0)
    // Cut every 256 versions: at version 256, to the 100 before it.
    #expect(state.version == 301 && state.logStart == 156, "\(state)")
    #expect(kept.first?.version == 157 && kept.count == 145)
    let reopened = try await PostgresNode.open(address, cacheFolder: folder.cache(0))
    #expect(reopened.counters.withLock { $0.loads } == 1)
    #expect(reopened.openNotice?.contains("another state") == true, "\(reopened.openNotice ?? "")")
    let within = try await PostgresNode.open(address, cacheFolder: folder.cache(1))
    await within.close()
    for index in 0..<5 { _ = try await writer.commit(.delete(ItemID("kept-\(index)"))) }
    let caught = try await PostgresNode.open(address, cacheFolder: folder.cache(1))
    #expect(caught.counters.withLock { $0 } == (applied: 5, loads: 0))
    #expect(
      try await Self.pages(caught.served, Self.queries + ["kept"])
        == Self.pages(reopened.served, Self.queries + ["kept"]))
    await reopened.close()
    await caught.close()
    await writer.close()
  }
}
#endif
