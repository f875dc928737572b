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

/// `sift serve` on a PostgreSQL catalog (a node searching its local copy) answers with the same
/// bytes as on the .sqlite file of the same items: results, highlights, explanations, facets
/// with their number ranges, sorted pages, snippets, suggestions, "did you mean". One engine
/// answers both, so this holds by construction; the test keeps it so (the copy is loaded from
/// the database's rows, in its order, with its schema).
@Suite(
  "sift serve on PostgreSQL gives the embedded server's answers", .serialized, .tags(.postgres),
  .needs("psql"))
struct ServedEquivalenceTests {
  @Test(
    "random searches with facets and explanations, and pages past the first, answer alike",
    arguments: ["products", "candies", "media", "cities"])
  func randomSearches(catalog name: String) async throws {
    let document =
      name == "cities"
      ? try PostgresCatalogTests.cities() : try SeedCatalog(rawValue: name)!.load()
    let cluster = try PostgresCluster.shared()
    let address = try PostgresAddress(cluster.address(catalog: "served_\(name)"))
    try await PostgresCatalog.replace(address, with: document)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-served-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let postgres = try await PostgresNode.open(
      address, name: name, cacheFolder: folder.appendingPathComponent("cache"))
    let store = try CatalogStore.create(
      at: folder.appendingPathComponent("\(name).sqlite"), document: document)
    let embedded = Application(
      router: SiftServer(catalogs: [try StoredCatalog(name: name, store: store)]).router())
    let onPostgres = Application(
      router: SiftServer(catalogs: [postgres.served]).router())
    let seed = 15_100 + UInt64(name.count)
    print("served \(name): seed \(seed)")
    var random = SplitMix64(seed: seed)
    var uris = ["/catalogs", "/catalogs/\(name)/search?q=&facets=1"]
    for index in 0..<(name == "cities" ? 250 : 150) {
      let input = PostgresCatalogTests.randomInput(document, using: &random)
      var text = input.text
      // Either of two now and then: facets, highlights and explanations follow the union.
      if index % 6 == 2 {
        text += " | " + PostgresCatalogTests.randomInput(document, using: &random).text
      }
      var query = [("q", text), ("facets", "1"), ("explain", "1")]
      query += input.tokens.map { ("token", $0) }
      if let scope = input.scope { query.append(("scope", scope)) }
      if index % 3 == 0 { query.append(("limit", "5")) }
      if index % 7 == 0 { query.append(("offset", "3")) }
      // Snippets of three words now and then: cut the same on both.
      if index % 4 == 1 { query.append(("crop", "3")) }
      // Sorted now and then, each sortable field both ways in turn.
      if index % 5 == 0 {
        let sortable = document.schema.sortableFields
        let field = sortable[index / 5 % sortable.count].name
        query.append(("sort", field + (index % 2 == 0 ? ":desc" : "")))
      }
      uris.append("/catalogs/\(name)/search?" + Self.encoded(query))
    }
    // Every letter alone, as the first keystroke sends it.
    for letter in "abcdefghijklmnopqrstuvwxyz" {
      uris.append("/catalogs/\(name)/search?q=\(letter)&facets=1&explain=1&limit=5")
      uris.append("/catalogs/\(name)/search?q=\(letter.uppercased())&limit=3&offset=2")
    }
    // Ask for one item of each kind too.
    uris += document.items.prefix(3).map { "/catalogs/\(name)/items/\($0.id.rawValue)" }
    uris.append("/catalogs/\(name)/items/no-such-item")
    let expected = try await Self.answers(embedded, uris)
    let answered = try await Self.answers(onPostgres, uris)
    var differences = 0
    var found = 0
    var didYouMean = 0
    for (uri, (want, got)) in zip(uris, zip(expected, answered)) {
      if want.contains("\"results\":[{") { found += 1 }
      if want.contains("\"didYouMean\"") { didYouMean += 1 }
      if want != got {
        differences += 1
        if differences <= 3 {
          // From a little before the first difference: answers can be long.
          let same = zip(want, got).prefix { $0 == $1 }.count
          let from = max(0, same - 80)
          Issue.record(
            "\(uri)\nembedded:   …\(want.dropFirst(from).prefix(300))\npostgresql: …\(got.dropFirst(from).prefix(300))"
          )
        }
      }
    }
    print("served \(name): \(uris.count) requests, \(found) found, \(didYouMean) did-you-mean")
    #expect(differences == 0, "\(differences) of \(uris.count) answers differ")
    #expect(found > uris.count / 5)
    await postgres.close()
    try store.close()
  }

  @Test(
    "a tenant token sees the same rows, counts, suggestions and items on PostgreSQL",
    arguments: [("candies", "category:Chocolate"), ("products", "year:>=2010")])
  func tenantTokens(catalog name: String, filter: String) async throws {
    let document = try SeedCatalog(rawValue: name)!.load()
    let cluster = try PostgresCluster.shared()
    let address = try PostgresAddress(cluster.address(catalog: "tenant_\(name)"))
    try await PostgresCatalog.replace(address, with: document)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-tenant-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let postgres = try await PostgresNode.open(
      address, name: name, cacheFolder: folder.appendingPathComponent("cache"))
    let store = try CatalogStore.create(
      at: folder.appendingPathComponent("\(name).sqlite"), document: document)
    // One key file beside both: the keys live outside the catalog, wherever it is kept.
    let keys = KeyStore(url: folder.appendingPathComponent("keys.json"))
    let key = try keys.create(KeyRequest(catalogs: [name], actions: [.search]))
    let token = TenantToken(
      keyID: key.key.id, filters: [name: [filter]], expires: Date().addingTimeInterval(86_400)
    ).signed(withKey: key.secret)
    let embedded = Application(
      router: SiftServer(
        catalogs: [try StoredCatalog(name: name, store: store)], keys: keys, isPrivate: true
      ).router())
    let onPostgres = Application(
      router: SiftServer(
        catalogs: [postgres.served], keys: keys, isPrivate: true
      ).router())
    let seed = 15_200 + UInt64(name.count)
    print("tenant \(name): seed \(seed)")
    var random = SplitMix64(seed: seed)
    var uris = [
      "/catalogs", "/catalogs/\(name)/search?q=&facets=1", "/catalogs/\(name)/search?q=%23",
    ]
    for _ in 0..<60 {
      let input = PostgresCatalogTests.randomInput(document, using: &random)
      var query = [("q", input.text), ("facets", "1")]
      query += input.tokens.map { ("token", $0) }
      uris.append("/catalogs/\(name)/search?" + Self.encoded(query))
    }
    uris += document.items.map { "/catalogs/\(name)/items/\($0.id.rawValue)" }
    let expected = try await Self.answers(embedded, uris, bearer: token)
    let answered = try await Self.answers(onPostgres, uris, bearer: token)
    var hidden = 0
    for (uri, (want, got)) in zip(uris, zip(expected, answered)) {
      #expect(want == got, "\(uri)")
      if uri.contains("/items/"), want.hasPrefix("404 ") { hidden += 1 }
    }
    #expect(hidden > 0 && hidden < document.items.count, "some items are the token's, some not")
    #expect(expected.allSatisfy { !$0.hasPrefix("5") })
    await postgres.close()
    try store.close()
  }

  /// Each request's status and body, as text.
  static func answers(
    _ app: some ApplicationProtocol, _ uris: [String], bearer: String? = nil
  ) async throws -> [String] {
    try await app.test(.router) { client in
      var bodies: [String] = []
      for uri in uris {
        var headers: HTTPFields = [:]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        bodies.append(
          try await client.execute(uri: uri, method: .get, headers: headers) { response in
            // Each store counts its own versions (a file's generation, the database's log).
            "\(response.status.code) "
              + String(buffer: response.body).replacing(/"version":[0-9]+/, with: "\"version\":_")
          })
      }
      return bodies
    }
  }

  static func encoded(_ pairs: [(String, String)]) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return pairs.map {
      "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
    }.joined(separator: "&")
  }
}
#endif
