#if Server
import Foundation
import SiftTestSupport
import Testing

/// A search by meaning over HTTP and on a synced copy: items with vectors edited through the
/// server (added, replaced, deleted, given a vector of the wrong length), a copy that follows
/// it with a key and one with a tenant token, and the same ids in the same order for like=ID,
/// a vector, and a vector with text — on both sides, after every round of edits.
@Suite("Search by meaning: the server and a synced copy answer alike", .tags(.endToEnd))
struct VectorSyncTests {
  typealias Server = ServeCommandTests.Server
  static let admin = "vector-admin-token"
  static let dimensions = 8

  static func vector(_ random: inout SplitMix64) -> [Float] {
    (0..<dimensions).map { _ in (Float.random(in: -1...1, using: &random) * 1000).rounded() / 1000 }
  }

  static func json(_ vector: [Float]) -> String {
    "[" + vector.map { String($0) }.joined(separator: ",") + "]"
  }

  /// A random item's JSON: a plant's name, a kind, a seller, and (most often) a vector.
  static func item(_ random: inout SplitMix64, id: String? = nil) -> String {
    var words = [SyncCommandTests.adjectives.randomElement(using: &random)!]
    words.append(SyncCommandTests.plants.randomElement(using: &random)!)
    let idPart = id.map { #""id": "\#($0)", "# } ?? ""
    let vector =
      Int.random(in: 0..<8, using: &random) == 0 ? "" : #", "emb": \#(json(vector(&random)))"#
    return
      #"{\#(idPart)"title": "\#(words.joined(separator: " ").capitalized)", "kind": "\#(SyncCommandTests.kinds.randomElement(using: &random)!)", "seller": \#(Int.random(in: 1...3, using: &random))\#(vector)}"#
  }

  @Test("like, a vector and hybrid queries answer alike on the server and on the copies")
  func answersAgree() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    try Self.compare(sift, catalog: sift.path("shop.sqlite"), name: "shop")
  }

  @Test(
    "the same with the catalog in PostgreSQL: vectors written through the node, kept as bytes",
    .tags(.postgres), .needs("psql"))
  func answersAgreeFromPostgreSQL() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    try Self.compare(sift, catalog: cluster.address(catalog: "meaning_sync"), name: "meaning_sync")
    // Every vector the server wrote is 32 bytes (8 floats) beside the JSON, none in it.
    let kept = try cluster.psql(
      "SELECT count(*) FILTER (WHERE fields ? 'emb'), count(*) FILTER (WHERE octet_length(vector) <> 32), count(vector) > 250 FROM sift_meaning_sync.items"
    )
    #expect(kept.trimmingCharacters(in: .whitespacesAndNewlines) == "0|0|t")
  }

  /// Edits through a server of `catalog` (served as `name`), synced copies, and the same
  /// searches on both sides after every round.
  static func compare(_ sift: SiftProcess, catalog: String, name: String) throws {
    let seed = ProcessInfo.processInfo.environment["SIFT_SEED"].flatMap(UInt64.init) ?? 72
    var random = SplitMix64(seed: seed)
    let lines = (1...300).map { Self.item(&random, id: "\($0)") }
    let file = try sift.write("plants.jsonl", lines.joined(separator: "\n") + "\n")
    let imported = try sift.run([
      "import", file, "--catalog", catalog, "--title", "title", "--category", "kind", "--number",
      "seller", "--id", "id", "--vector", "emb",
    ])
    try #require(imported.status == 0, "\(imported.stderr)")
    let (key, tenant) = try SyncCommandTests.keyAndTenant(sift, catalog: name)
    let server = try Server(
      sift, ["--catalog", catalog, "--token-file", sift.write("admin", Self.admin)])
    defer { _ = server.stop() }
    let copies = [
      (name: "key", file: sift.path("copy.sqlite"), token: try sift.write("key", key), bearer: key),
      (
        name: "tenant", file: sift.path("tenant.sqlite"), token: try sift.write("tenant", tenant),
        bearer: tenant
      ),
    ]
    // The catalog says what a search by meaning compares with.
    let listed = try server.request("GET", "/catalogs", token: key)
    let shop = (listed.json["catalogs"] as? [[String: Any]])?.first
    let vector = shop?["vector"] as? [String: Any]
    #expect(
      vector?["field"] as? String == "emb" && vector?["dimensions"] as? Int == 8, "\(listed.json)")
    var compared = 0
    for round in 0..<3 {
      for _ in 0..<(round == 0 ? 0 : 20) {
        let id = "\(Int.random(in: 1...320, using: &random))"
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
          _ = try server.request(
            "POST", "/catalogs/\(name)/items", body: Self.item(&random), token: Self.admin)
        case 1:
          _ = try server.request(
            "PUT", "/catalogs/\(name)/items/\(id)", body: Self.item(&random), token: Self.admin)
        case 2: _ = try server.request("DELETE", "/catalogs/\(name)/items/\(id)", token: Self.admin)
        default:
          // A vector of another length is refused, naming the field; nothing changes.
          let answer = try server.request(
            "PUT", "/catalogs/\(name)/items/\(id)",
            body: #"{"title": "Short", "emb": [1, 2, 3]}"#, token: Self.admin)
          #expect(answer.status == 400 || answer.status == 404, "\(answer.json)")
          if answer.status == 400 {
            #expect("\(answer.json["error"] ?? "")".contains("emb"), "\(answer.json)")
          }
        }
      }
      for copy in copies {
        let synced = try sift.run([
          "sync", "http://127.0.0.1:\(server.port)/catalogs/\(name)", "--catalog", copy.file,
          "--token-file", copy.token,
        ])
        #expect(synced.status == 0, "round \(round), \(copy.name): \(synced.stderr)")
        for _ in 0..<12 {
          let query = Self.vector(&random)
          let like = "\(Int.random(in: 1...300, using: &random))"
          let text =
            Bool.random(using: &random)
            ? SyncCommandTests.plants.randomElement(using: &random)! : ""
          let ratio = [0.0, 0.5, 0.8, 1.0].randomElement(using: &random)!
          let vectorFile = try sift.write("query.json", Self.json(query))
          // A vector (with text or not), in a POST body and on the copy.
          let served = try server.request(
            "POST", "/catalogs/\(name)/search",
            body:
              #"{"q": "\#(text)", "vector": \#(Self.json(query)), "semantic_ratio": \#(ratio), "neighbors": 30, "limit": 1000}"#,
            token: copy.bearer)
          #expect(served.status == 200, "\(served.json)")
          let local = try sift.run(
            [
              "search", "--catalog", copy.file, "--json", "--vector", vectorFile,
              "--semantic-ratio", "\(ratio)", "--neighbors", "30",
            ] + (text.isEmpty ? [] : [text]))
          #expect(local.status == 0, "\(local.stderr)")
          #expect(
            local.objects.compactMap { idText($0["id"]) } == ServeCommandTests.ids(served.json),
            "round \(round), \(copy.name), vector with \"\(text)\" at \(ratio)")
          // Like an item: the same rows, or on both sides no such item to start from.
          let servedLike = try server.request(
            "GET", "/catalogs/\(name)/search?like=\(like)&neighbors=20&limit=1000",
            token: copy.bearer)
          let localLike = try sift.run([
            "search", "--catalog", copy.file, "--json", "--like", like, "--neighbors", "20",
          ])
          if servedLike.status == 200, localLike.status == 0 {
            #expect(
              localLike.objects.compactMap { idText($0["id"]) }
                == ServeCommandTests.ids(servedLike.json),
              "round \(round), \(copy.name), like \(like)")
          } else if copy.name == "key" {
            // Whoever sees every item hears why on both sides.
            #expect(
              servedLike.status == 400 && localLike.status == 2,
              "like \(like): \(servedLike.json) / \(localLike.stderr)")
          }
          compared += 2
        }
      }
    }
    print(
      "VectorSyncTests: \(compared) searches by meaning answered alike on \(name) (seed \(seed))")
  }
}
#endif
