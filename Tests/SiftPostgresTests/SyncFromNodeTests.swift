#if Server
import Foundation
import Hummingbird
import HummingbirdTesting
import Sift
import SiftPostgres
import SiftServer
import SiftStore
import SiftTestSupport
import Testing

/// `CatalogSync`, the Swift API, following a PostgreSQL catalog served by a node over a real
/// socket: after each round of random edits (through the node, and synonyms) a sync brings the
/// copy to the node's version, and the copy, opened as an app opens it, gives the node's pages;
/// a copy further behind than the kept log starts over and ends the same.
@Suite(
  "A copy follows a PostgreSQL catalog through a node", .serialized, .tags(.postgres),
  .needs("psql"))
struct SyncFromNodeTests {
  @Test("CatalogSync follows a node through random edits, and starts over from behind the kept log")
  func followsANode() async throws {
    let folder = try NodeTests.Folder()
    let cluster = try PostgresCluster.shared()
    let address = try await NodeTests.catalog("sync_copy", on: cluster)
    // The log keeps 5 versions (cut every 256): a copy 300 edits behind starts over.
    let node = try await PostgresNode.open(
      address, cacheFolder: folder.cache(0), retention: .init(changes: 5, days: 0))
    let server = SiftServer(catalogs: [node.served])
    let app = Application(
      router: server.router(),
      configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    let copy = folder.url.appendingPathComponent("copy.sqlite")
    let titles = try SeedCatalog.products.load().items.compactMap {
      $0[NodeTests.title]?.displayText
    }
    try await app.test(.live) { client in
      var random = SplitMix64(seed: 51_051)
      let port = try #require(client.port)
      let sync = try CatalogSync(
        from: URL(string: "http://127.0.0.1:\(port)/catalogs/sync_copy")!, to: copy)
      let first = try await sync.run()
      #expect(first.isFirstCopy)
      #expect(first.itemCount == 15)
      #expect(first.version == node.version)
      try await Self.expectSamePages(copy, node, "first copy")
      var serial = 0
      for round in 1...4 {
        let edits = round == 4 ? 300 : Int.random(in: 3...20, using: &random)
        for _ in 0..<edits {
          serial += 1
          let ids = try await node.served.search(
            try SearchRequest(SearchRequestInput(text: ""), schema: node.served.schema),
            page: PageRequest(limit: 200)
          ).results.map(\.item.id)
          let title = titles.randomElement(using: &random)! + " \(serial)"
          let fields: [String: FieldValue] = [
            NodeTests.title: .text(title), "type": .text("Weddings"), "year": .number(2000),
          ]
          switch Int.random(in: 0..<10, using: &random) {
          case 0..<4: _ = try await node.served.commit(.add(nil, fields: fields))
          case 4..<7 where !ids.isEmpty:
            _ = try await node.served.commit(
              .update(Item(id: ids.randomElement(using: &random)!, fields: fields)))
          case 7..<9 where ids.count > 5:
            _ = try await node.served.commit(.delete(ids.randomElement(using: &random)!))
          default:
            try await node.served.replaceSynonyms(
              Synonyms([Synonyms.Entry(group: ["rose", "flower \(serial)"])]))
          }
        }
        let report = try await sync.run()
        #expect(report.version == node.version, "round \(round)")
        #expect(report.previousVersion != nil)
        if round == 4 {
          #expect(
            report.startedOver?.hasPrefix("since: version ") == true,
            "300 edits behind a log of 5: \(report)")
        } else {
          #expect(report.startedOver == nil, "round \(round): \(report)")
          #expect(!report.changes.isEmpty)
        }
        try await Self.expectSamePages(copy, node, "round \(round)")
      }
    }
    await node.close()
  }

  @Test("a node's feed gives an item changed many times once, as it is now, at its last version")
  func compacted() async throws {
    let folder = try NodeTests.Folder()
    let cluster = try PostgresCluster.shared()
    let address = try await NodeTests.catalog("sync_compacted", on: cluster)
    let node = try await PostgresNode.open(address, cacheFolder: folder.cache(0))
    let start = node.version
    let fields = { (title: String) -> [String: FieldValue] in
      [NodeTests.title: .text(title), "type": .text("Weddings"), "year": .number(2000)]
    }
    for round in 1...3 {
      _ = try await node.served.commit(.update(Item(id: "1", fields: fields("Rose \(round)"))))
      _ = try await node.served.commit(.update(Item(id: "2", fields: fields("Tulip \(round)"))))
    }
    _ = try await node.served.commit(.delete("2"))
    guard
      case .page(let page) = try await node.served.changes(since: start, limit: 100, visible: nil)
    else {
      Issue.record("no page")
      return
    }
    #expect(page.changes.map(\.version) == [start + 5, start + 7])
    #expect(page.changes.first?.put?[NodeTests.title] == .text("Rose 3"))
    #expect(page.changes.last?.delete == ItemID("2"))
    await node.close()
  }

  @Test(
    "under steady churn on a node (items deleted and added again), an export holds each item once and a first sync in small pages finishes whole"
  )
  func churn() async throws {
    let folder = try NodeTests.Folder()
    let cluster = try PostgresCluster.shared()
    let items = (1...2_500).map { index in
      Item(
        id: ItemID("\(index)"),
        fields: [
          NodeTests.title: .text("Plant \(index)"), "type": .text("Weddings"),
          "year": .number(Double(2000 + index % 20)),
        ])
    }
    let address = try await NodeTests.catalog(
      "sync_churn", on: cluster,
      document: CatalogDocument(schema: try SeedCatalog.products.load().schema, items: items))
    let node = try await PostgresNode.open(address, cacheFolder: folder.cache(0))
    let server = SiftServer(catalogs: [node.served])
    let app = Application(
      router: server.router(),
      configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    let copy = folder.url.appendingPathComponent("copy.sqlite")
    try await app.test(.live) { client in
      let port = try #require(client.port)
      // Items deleted and added again, each time at the end of catalog order, until told to stop.
      let churn = Task {
        var random = SplitMix64(seed: 2_500)
        var count = 0
        while !Task.isCancelled, count < 5_000 {
          let id = ItemID("\(Int.random(in: 1...2_500, using: &random))")
          _ = try? await node.served.commit(.delete(id))
          _ = try? await node.served.commit(
            .add(
              id,
              fields: [
                NodeTests.title: .text("Churned \(id)"), "type": .text("Weddings"),
                "year": .number(2020),
              ]))
          count += 1
        }
        return count
      }
      while node.version < 40 { try await Task.sleep(for: .milliseconds(20)) }
      var lines: [String] = []
      try await CatalogExport.write(node.served) { lines.append($0) }
      let ids = lines.dropFirst().compactMap { line -> String? in
        guard case .object(let members)? = try? JSONValue.parse(Data(line.utf8)) else { return nil }
        switch members.first?.1 {
        case .string(let text)?: return text
        case .number(let number)?: return String(Int64(number))
        default: return nil
        }
      }
      #expect(ids.count == Set(ids).count, "each item once: \(ids.count - Set(ids).count) twice")
      var sync = try CatalogSync(
        from: URL(string: "http://127.0.0.1:\(port)/catalogs/sync_churn")!, to: copy)
      sync.pageSize = 100
      let first = try await sync.run()
      #expect(first.isFirstCopy)
      churn.cancel()
      _ = await churn.value
      _ = try await sync.run()
      try await Self.expectSamePages(copy, node, "after the churn")
      // The churn may stop between a delete and its add: the node's own count is the truth.
      let held = try CatalogStore.open(at: copy).loadDocument().items.map(\.id)
      let count = node.served.count()
      #expect(held.count == count && Set(held).count == count, "\(held.count) of \(count)")
      #expect(count >= 2_499)
    }
    await node.close()
  }

  /// The copy, opened as an app opens a catalog file, answers `NodeTests.queries` (and a few
  /// words of the edits) with the node's pages.
  static func expectSamePages(_ copy: URL, _ node: PostgresNode, _ context: String) async throws {
    let store = try CatalogStore.open(at: copy)
    let local = try StoredCatalog(name: "copy", store: store, editable: false, warmsUp: false)
    defer { local.close() }
    let queries = NodeTests.queries + ["flower", "2000", "wed"]
    let expected = try await NodeTests.pages(node.served, queries)
    let held = try await NodeTests.pages(local, queries)
    for (query, (mine, theirs)) in zip(queries, zip(held, expected)) {
      #expect(mine == theirs, "\(context), query \"\(query)\"")
    }
    #expect(local.schema.synonyms == node.served.schema.synonyms, "\(context): synonyms")
  }
}
#endif
