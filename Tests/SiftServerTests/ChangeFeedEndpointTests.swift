#if Server
import Foundation
import Hummingbird
import HummingbirdTesting
import Sift
import SiftServer
import SiftStore
import SiftTestSupport
import Testing

/// `GET /catalogs/NAME/snapshot` and `GET /catalogs/NAME/changes`: their JSON, their errors
/// (each naming the parameter), the 410 that tells a copy to start over, who may read them.
@Suite("sift serve: the change feed", .tags(.unit))
struct ChangeFeedEndpointTests {
  typealias Tenant = KeyAndTenantTests

  @Test(
    "a snapshot page by page, then the changes since its first page, as the engine's types read them"
  )
  func snapshotThenChanges() async throws {
    let served = try Tenant.served()
    defer { try? FileManager.default.removeItem(at: served.folder) }
    try await Tenant.withClient(served.server) { send in
      let first = try await send(.get, "/catalogs/shop/snapshot?limit=4")
      #expect(first.status == 200)
      let page = try JSONDecoder().decode(CatalogSnapshotPage.self, from: Data(first.text.utf8))
      #expect(page.catalog == "shop")
      #expect(page.items.map(\.item.id.rawValue) == ["1", "2", "3", "4"])
      #expect(page.items.map(\.position) == [0, 1, 2, 3])
      #expect(page.next == 3)
      #expect(page.schema.titleField == "title")
      let rest = try await send(.get, "/catalogs/shop/snapshot?after=3&limit=4")
      let last = try JSONDecoder().decode(CatalogSnapshotPage.self, from: Data(rest.text.utf8))
      #expect(last.items.map(\.item.id.rawValue) == ["5", "6"])
      #expect(last.next == nil)

      let added = try await send(
        .post, "/catalogs/shop/items",
        body: #"{"title": "Blue Iris", "seller": 42, "kind": "Flowers"}"#,
        bearer: Tenant.admin)
      #expect(added.status == 201)
      let deleted = try await send(.delete, "/catalogs/shop/items/2", bearer: Tenant.admin)
      #expect(deleted.status == 204)
      let changed = try await send(.get, "/catalogs/shop/changes?since=\(page.version)")
      #expect(changed.status == 200)
      let feed = try JSONDecoder().decode(ChangeFeedPage.self, from: Data(changed.text.utf8))
      #expect(feed.version == page.version + 2)
      #expect(feed.identity == page.identity)
      #expect(feed.next == nil)
      #expect(feed.changes.map(\.version) == [page.version + 1, page.version + 2])
      #expect(feed.changes.first?.put?["title"] == .text("Blue Iris"))
      #expect(feed.changes.first?.position == 6)
      #expect(feed.changes.last?.delete == ItemID("2"))
      // Paged: one change a page, each page's next the since of the following one.
      let one = try await send(.get, "/catalogs/shop/changes?since=\(page.version)&limit=1")
      let paged = try JSONDecoder().decode(ChangeFeedPage.self, from: Data(one.text.utf8))
      #expect(paged.changes.count == 1 && paged.next == page.version + 1)
    }
  }

  @Test(
    "GET /catalogs/NAME/export: the settings, then every item as sift export writes them; a tenant's rows only"
  )
  func export() async throws {
    let served = try Tenant.served(isPrivate: true)
    defer { try? FileManager.default.removeItem(at: served.folder) }
    let (key, token) = try Self.sellerToken(served.keys)
    try await Tenant.withClient(served.server) { send in
      #expect(try await send(.get, "/catalogs/shop/export").status == 401)
      #expect(try await send(.get, "/catalogs/products/export", bearer: key).status == 403)
      let whole = try await send(.get, "/catalogs/shop/export", bearer: key)
      #expect(whole.status == 200)
      let lines = whole.text.split(separator: "\n").map(String.init)
      let snapshot = try await send(.get, "/catalogs/shop/snapshot", bearer: key)
      let page = try JSONDecoder().decode(CatalogSnapshotPage.self, from: Data(snapshot.text.utf8))
      let settings = CatalogExport.Settings(schema: page.schema)
      #expect(lines.first == settings.line)
      #expect(
        Array(lines.dropFirst())
          == page.items.map { CatalogExport.record($0.item, settings: settings) })
      let mine = try await send(.get, "/catalogs/shop/export", bearer: token)
      let ids = mine.text.split(separator: "\n").dropFirst().map {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? String
      }
      #expect(ids == ["1", "2", "3"])
    }
  }

  /// A search key for the shop, and a tenant token of it that sees seller 42's rows.
  static func sellerToken(_ keys: KeyStore) throws -> (key: String, token: String) {
    let key = try keys.create(KeyRequest(catalogs: ["shop"], actions: [.search]))
    let token = TenantToken(
      keyID: key.key.id, filters: ["shop": ["seller:42"]],
      expires: Date().addingTimeInterval(86_400)
    ).signed(withKey: key.secret)
    return (key.secret, token)
  }

  @Test("a version the log cannot explain is a 410 that says why and to start over")
  func startOver() async throws {
    let served = try Tenant.served()
    defer { try? FileManager.default.removeItem(at: served.folder) }
    try await Tenant.withClient(served.server) { send in
      let ahead = try await send(.get, "/catalogs/shop/changes?since=999999")
      #expect(ahead.status == 410)
      #expect(ahead.json["start_over"] as? Bool == true)
      let version = try #require(ahead.json["version"] as? Int)
      #expect(
        ahead.json["error"] as? String
          == "since: version 999999 is past catalog shop's version \(version): it is another catalog, or was restored from an older copy; start over from …/snapshot"
      )
      #expect((ahead.json["identity"] as? String)?.split(separator: ".").first?.count == 32)
      #expect(
        ahead.json["reason"] as? String
          == "since: version 999999 is past catalog shop's version \(version): it is another catalog, or was restored from an older copy"
      )
    }
  }

  @Test(
    "bad parameters name themselves",
    arguments: [
      (
        "/catalogs/shop/changes",
        "since: name the version the copy is at (since=VERSION; a new copy reads …/snapshot first)"
      ),
      ("/catalogs/shop/changes?since=abc", #"since: "abc" is not a whole number of at least 0"#),
      ("/catalogs/shop/changes?since=-1", #"since: "-1" is not a whole number of at least 0"#),
      (
        "/catalogs/shop/changes?since=1&limit=0",
        #"limit: "0" is not a whole number from 1 to 10000"#
      ),
      (
        "/catalogs/shop/snapshot?limit=20000",
        #"limit: "20000" is not a whole number from 1 to 10000"#
      ),
      (
        "/catalogs/shop/snapshot?after=x",
        #"after: "x" is not a whole number of at least -9223372036854775808"#
      ),
    ])
  func badParameters(path: String, message: String) async throws {
    let served = try Tenant.served()
    defer { try? FileManager.default.removeItem(at: served.folder) }
    try await Tenant.withClient(served.server) { send in
      let answer = try await send(.get, path)
      #expect(answer.status == 400)
      #expect(answer.json["error"] as? String == message)
    }
  }

  @Test(
    "a private server wants a key; a tenant token reads its rows, and a row that leaves them as a delete"
  )
  func access() async throws {
    let served = try Tenant.served(isPrivate: true)
    defer { try? FileManager.default.removeItem(at: served.folder) }
    let (key, token) = try Self.sellerToken(served.keys)
    try await Tenant.withClient(served.server) { send in
      for path in ["/catalogs/shop/snapshot", "/catalogs/shop/changes?since=0"] {
        let anonymous = try await send(.get, path)
        #expect(anonymous.status == 401, "\(path)")
        #expect(
          anonymous.json["error"] as? String
            == "Authorization: this server is private: searching needs a key (Authorization: Bearer KEY)"
        )
        #expect(try await send(.get, path, bearer: key).status != 401)
        let other = try await send(
          .get, path.replacingOccurrences(of: "shop", with: "products"), bearer: key)
        #expect(other.status == 403)
      }
      let mine = try await send(.get, "/catalogs/shop/snapshot", bearer: token)
      let page = try JSONDecoder().decode(CatalogSnapshotPage.self, from: Data(mine.text.utf8))
      #expect(page.items.map(\.item.id.rawValue) == ["1", "2", "3"])
      // Rose (seller 42) goes to seller 7: for 42 it is a delete, with no fields.
      let moved = try await send(
        .put, "/catalogs/shop/items/1",
        body: #"{"title": "Red Rose", "seller": 7, "kind": "Flowers"}"#,
        bearer: Tenant.admin)
      #expect(moved.status == 200)
      let vase = try await send(
        .put, "/catalogs/shop/items/5",
        body: #"{"title": "Rose Vase", "seller": 42, "kind": "Flowers"}"#,
        bearer: Tenant.admin)
      #expect(vase.status == 200)
      // Other sellers' items come and go: seller 42 is never told their ids, not even as a
      // delete (it never saw them).
      let secret = try await send(
        .post, "/catalogs/shop/items",
        body: #"{"id": "seller3-unreleased", "title": "Unreleased", "seller": 3, "kind": "Trees"}"#,
        bearer: Tenant.admin)
      #expect(secret.status == 201)
      #expect(try await send(.delete, "/catalogs/shop/items/4", bearer: Tenant.admin).status == 204)
      let changes = try await send(
        .get, "/catalogs/shop/changes?since=\(page.version)", bearer: token)
      let feed = try JSONDecoder().decode(ChangeFeedPage.self, from: Data(changes.text.utf8))
      #expect(feed.changes.map(\.delete) == [ItemID("1"), nil])
      #expect(feed.changes.last?.put?.id == ItemID("5"))
      #expect(!changes.text.contains("Red Rose"))
      #expect(!changes.text.contains("seller3-unreleased") && !changes.text.contains(#""4""#))
      // The catalog's own feed (the admin's) names them all.
      let all = try await send(
        .get, "/catalogs/shop/changes?since=\(page.version)", bearer: Tenant.admin)
      #expect(all.text.contains("seller3-unreleased") && all.text.contains(#""delete":"4""#))
    }
  }
}
#endif
