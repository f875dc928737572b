#if Server
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Sift
import SiftServer
import SiftStore
import SiftTestSupport
import Testing

/// Keys with actions, catalogs and an expiry; tenant tokens whose filters hold for every
/// search, count, facet, suggestion and item read; `--private`; rate limits.
@Suite("sift serve: keys and tenant tokens", .tags(.unit))
struct KeyAndTenantTests {
  static let admin = "admin-token-for-tests"

  /// A shop of two sellers: 42 sells flowers, 7 pottery (and one rose vase).
  static let shopItems: [Item] = [
    Item(
      id: "1",
      fields: ["title": .text("Red Rose"), "seller": .number(42), "kind": .text("Flowers")]),
    Item(
      id: "2",
      fields: ["title": .text("White Tulip"), "seller": .number(42), "kind": .text("Flowers")]),
    Item(
      id: "3",
      fields: ["title": .text("Rose Garden Seeds"), "seller": .number(42), "kind": .text("Seeds")]),
    Item(
      id: "4",
      fields: [
        "title": .text("Zanzibar Vase"), "seller": .number(7), "kind": .text("Secret Pottery"),
      ]),
    Item(
      id: "5",
      fields: ["title": .text("Rose Vase"), "seller": .number(7), "kind": .text("Secret Pottery")]),
    Item(
      id: "6",
      fields: ["title": .text("Tulip Bowl"), "seller": .number(7), "kind": .text("Secret Pottery")]),
  ]

  struct Served {
    var server: SiftServer
    var keys: KeyStore
    var folder: URL
  }

  /// Tokens made here last a day unless their expiry is what is tested: a full run on two cores
  /// once starved these tests past ten minutes, and tokens of 600 s expired under them.
  ///
  /// The shop and products, served with the admin token and a key file of their own.
  static func served(
    isPrivate: Bool = false, rateLimit: Int? = nil, recordsSearches: Bool = false,
    clock: @escaping @Sendable () -> Date = { Date() }
  ) throws -> Served {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-keys-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let schema = CatalogSchema(
      name: "shop", fields: [.text("title"), .number("seller"), .category("kind")],
      titleField: "title", categoryField: "kind",
      categories: ["Flowers", "Seeds", "Secret Pottery"])
    let shop = try CatalogStore.create(
      at: folder.appendingPathComponent("shop.sqlite"),
      document: CatalogDocument(schema: schema, items: shopItems))
    let products = try CatalogStore.create(
      at: folder.appendingPathComponent("products.sqlite"),
      document: BuiltInCatalog.products.load())
    let keys = KeyStore(url: folder.appendingPathComponent("keys.json"))
    let server = SiftServer(
      catalogs: [
        try StoredCatalog(name: "shop", store: shop),
        try StoredCatalog(name: "products", store: products),
      ], writeToken: admin, keys: keys, isPrivate: isPrivate, rateLimit: rateLimit,
      recordsSearches: recordsSearches, clock: clock)
    return Served(server: server, keys: keys, folder: folder)
  }

  struct Answer {
    var status: Int
    var json: [String: Any]
    var text: String
    var retryAfter: String?
  }

  /// Runs `body` with a client that sends one request at a time.
  static func withClient(
    _ server: SiftServer,
    _ body: @Sendable (_ send: Sender) async throws -> Void
  ) async throws {
    let app = Application(router: server.router())
    try await app.test(.router) { client in
      try await body(Sender(client: client))
    }
  }

  struct Sender: Sendable {
    let client: any TestClientProtocol

    func callAsFunction(
      _ method: HTTPRequest.Method, _ uri: String, body: String? = nil, bearer: String? = nil
    ) async throws -> Answer {
      var headers: HTTPFields = [:]
      if let bearer { headers[.authorization] = "Bearer \(bearer)" }
      if body != nil { headers[.contentType] = "application/json" }
      return try await client.execute(
        uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }
      ) { response in
        let bytes = Data(response.body.readableBytesView)
        let json = (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any] ?? [:]
        return Answer(
          status: Int(response.status.code), json: json,
          text: String(decoding: bytes, as: UTF8.self),
          retryAfter: response.headers[.retryAfter])
      }
    }
  }

  static func titles(_ answer: Answer) -> [String] {
    (answer.json["results"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
  }

  static func ids(_ answer: Answer) -> [String] {
    (answer.json["results"] as? [[String: Any]] ?? []).compactMap { idText($0["id"]) }
  }

  @Test(
    "POST, GET and DELETE /keys: admin only, every field checked, the key shown once and kept hashed"
  )
  func keyLifecycle() async throws {
    let served = try Self.served()
    defer { try? FileManager.default.removeItem(at: served.folder) }
    try await Self.withClient(served.server) { send in
      let made = try await send(
        .post, "/keys",
        body:
          #"{"catalogs": ["shop"], "actions": ["search"], "expires": "2099-01-01T00:00:00Z", "description": "the shop's browser"}"#,
        bearer: Self.admin)
      #expect(made.status == 201)
      let secret = try #require(made.json["key"] as? String)
      let id = try #require(idText(made.json["id"]))
      #expect(secret.hasPrefix("sift_") && secret.count > 40)
      #expect(made.json["catalogs"] as? [String] == ["shop"])
      #expect(made.json["actions"] as? [String] == ["search"])
      #expect(made.json["expires"] as? String == "2099-01-01T00:00:00Z")

      // Listed without the key, its hash or its signing secret; the file holds only the hash.
      let listed = try await send(.get, "/keys", bearer: Self.admin)
      #expect(listed.status == 200)
      let entries = listed.json["keys"] as? [[String: Any]] ?? []
      #expect(entries.map { idText($0["id"]) } == [id])
      #expect(
        Set(entries[0].keys) == [
          "id", "prefix", "catalogs", "actions", "created", "description", "expires",
        ])
      #expect(!listed.text.contains(secret))
      let file = try String(contentsOf: served.keys.url, encoding: .utf8)
      #expect(!file.contains(secret))
      #expect(file.contains(APIKeyHash.hex(secret)))
      let mode =
        try FileManager.default.attributesOfItem(atPath: served.keys.url.path)[.posixPermissions]
        as? Int
      #expect(mode == 0o600)

      // What the key opens, and what not.
      #expect(try await send(.get, "/catalogs/shop/search?q=rose", bearer: secret).status == 200)
      let other = try await send(.get, "/catalogs/products/search?q=rose", bearer: secret)
      #expect(other.status == 403)
      #expect(other.json["error"] as? String == "key \(id) may not search catalog products")
      let edit = try await send(
        .post, "/catalogs/shop/items", body: #"{"title": "Blue Iris"}"#, bearer: secret)
      #expect(edit.status == 403)
      #expect(edit.json["error"] as? String == "key \(id) may not edit catalog shop")
      #expect(try await send(.get, "/keys", bearer: secret).status == 403)
      #expect(try await send(.get, "/keys").status == 401)
      #expect(
        try await send(.get, "/catalogs/shop/search?q=rose", bearer: "sift_nope").status == 401)

      // Revoked: the key opens nothing from the next request on.
      #expect(try await send(.delete, "/keys/\(id)", bearer: Self.admin).status == 204)
      #expect(try await send(.delete, "/keys/\(id)", bearer: Self.admin).status == 404)
      let revoked = try await send(.get, "/catalogs/shop/search?q=rose", bearer: secret)
      #expect(revoked.status == 401)
    }
  }

  @Test(
    "a bad key request is a 400 naming the field",
    arguments: [
      (
        #"{"catalogs": ["shop"], "actions": ["bogus"]}"#,
        #"actions: "bogus" is not search, edit or admin"#
      ),
      (
        #"{"catalogs": ["nope"], "actions": ["search"]}"#,
        #"catalogs: no catalog named "nope"; this server has products, shop (or "*" for all)"#
      ),
      (
        #"{"catalogs": [], "actions": ["search"]}"#,
        #"catalogs: name at least one catalog, or "*" for all"#
      ),
      (
        #"{"catalogs": ["shop"], "actions": []}"#,
        "actions: name at least one of search, edit, admin"
      ),
      (
        #"{"catalogs": ["shop"], "actions": ["search"], "expires": "2001-01-01"}"#,
        "expires: 2001-01-01T00:00:00Z has passed"
      ),
      (
        #"{"catalogs": ["shop"], "actions": ["search"], "expires": "soon"}"#,
        "expires: a date and time such as 2027-01-01T00:00:00Z, not soon"
      ),
      (
        #"{"catalogs": ["shop"], "actions": ["search"], "requestsPerMinute": 0}"#,
        "requestsPerMinute: 0 is not from 1 to 10000000"
      ),
      (
        #"{"catalogs": ["shop"], "actions": ["search"], "scopes": []}"#,
        "scopes: not a field of a key (catalogs, actions, expires, description, requestsPerMinute)"
      ),
      (
        "[1]",
        #"body: expected {"catalogs": ["products"], "actions": ["search"], "expires": "2027-01-01T00:00:00Z"}"#
      ),
    ])
  func badKeyRequests(body: String, message: String) async throws {
    let served = try Self.served()
    defer { try? FileManager.default.removeItem(at: served.folder) }
    try await Self.withClient(served.server) { send in
      let answer = try await send(.post, "/keys", body: body, bearer: Self.admin)
      #expect(answer.status == 400)
      #expect(answer.json["error"] as? String == message)
      #expect(try served.keys.list().isEmpty)
    }
  }

  @Test("an expired key is refused with its expiry; an edit key edits; an admin key manages keys")
  func expiryAndActions() async throws {
    let served = try Self.served()
    defer { try? FileManager.default.removeItem(at: served.folder) }
    let past = Date().addingTimeInterval(-7200)
    let expired = try served.keys.create(
      KeyRequest(catalogs: ["shop"], actions: [.search], expires: past.addingTimeInterval(3600)),
      now: past)
    let editor = try served.keys.create(KeyRequest(catalogs: ["shop"], actions: [.edit]))
    let admin = try served.keys.create(KeyRequest(catalogs: ["*"], actions: [.admin]))
    try await Self.withClient(served.server) { send in
      let refused = try await send(.get, "/catalogs/shop/search?q=rose", bearer: expired.secret)
      #expect(refused.status == 401)
      #expect(
        (refused.json["error"] as? String)?.hasPrefix(
          "Authorization: key \(expired.key.id) expired at ") == true)
      let added = try await send(
        .post, "/catalogs/shop/items", body: #"{"id": "7", "title": "Blue Iris", "seller": 42}"#,
        bearer: editor.secret)
      #expect(added.status == 201)
      #expect(try await send(.get, "/keys", bearer: admin.secret).status == 200)
      // An edit key does not search a private server's catalog... but this one is public.
      #expect(
        try await send(.get, "/catalogs/shop/search?q=iris", bearer: editor.secret).status == 403)
    }
  }

  @Test("--private: searching, reading and listing need a key; /health stays open")
  func privateServer() async throws {
    let served = try Self.served(isPrivate: true)
    defer { try? FileManager.default.removeItem(at: served.folder) }
    let key = try served.keys.create(KeyRequest(catalogs: ["shop"], actions: [.search]))
    try await Self.withClient(served.server) { send in
      let anonymous = try await send(.get, "/catalogs/shop/search?q=rose")
      #expect(anonymous.status == 401)
      #expect(
        anonymous.json["error"] as? String
          == "Authorization: this server is private: searching needs a key (Authorization: Bearer KEY)"
      )
      #expect(try await send(.get, "/catalogs/shop/items/1").status == 401)
      #expect(try await send(.get, "/search?catalog=shop&q=rose").status == 401)
      #expect(try await send(.get, "/catalogs").status == 401)
      #expect(try await send(.get, "/metrics").status == 401)
      #expect(try await send(.get, "/metrics", bearer: Self.admin).status == 200)
      #expect(try await send(.get, "/health").status == 200)
      #expect(
        Self.titles(try await send(.get, "/catalogs/shop/search?q=rose", bearer: key.secret)).count
          == 3)
      // The key's catalogs only, in the list.
      let listed = try await send(.get, "/catalogs", bearer: key.secret)
      #expect(
        (listed.json["catalogs"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == [
          "shop"
        ])
    }
  }

  /// A search key for the shop, and a tenant token of it that sees seller 42's rows.
  static func sellerToken(
    _ served: Served
  ) throws -> (key: (secret: String, key: APIKey), token: String) {
    let key = try served.keys.create(KeyRequest(catalogs: ["shop"], actions: [.search]))
    let token = TenantToken(
      keyID: key.key.id, filters: ["shop": ["seller:42"]],
      expires: Date().addingTimeInterval(86_400)
    ).signed(withKey: key.secret)
    return (key, token)
  }

  @Test(
    "recorded searches: a tenant's suggestions come from its own searches, failures for editors")
  func tenantSuggestions() async throws {
    let served = try Self.served(recordsSearches: true)
    defer { try? FileManager.default.removeItem(at: served.folder) }
    let token = try Self.sellerToken(served).token
    try await Self.withClient(served.server) { send in
      func texts(_ answer: Answer, _ member: String = "suggestions") -> [String] {
        (answer.json[member] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
      }
      for (query, bearer) in [
        ("rose", token), ("rose", token), ("tulip", token), ("seeds", nil), ("nothing here", nil),
      ] {
        #expect(
          try await send(
            .get,
            "/catalogs/shop/search?q=\(query.replacingOccurrences(of: " ", with: "+"))&record=1",
            bearer: bearer
          ).status == 200)
      }
      // Not finished: not counted.
      _ = try await send(.get, "/catalogs/shop/search?q=red", bearer: token)
      let tenants = try await send(.get, "/catalogs/shop/suggestions", bearer: token)
      #expect(texts(tenants) == ["rose", "tulip"])
      #expect(tenants.json["found_nothing"] == nil)
      let everyone = try await send(.get, "/catalogs/shop/suggestions")
      #expect(texts(everyone) == ["seeds"])
      let admin = try await send(.get, "/catalogs/shop/suggestions?q=", bearer: Self.admin)
      #expect(texts(admin, "found_nothing") == ["nothing here"])
      #expect(try await send(.get, "/catalogs/shop/suggestions?limit=0").status == 400)
      // Written to the file when the server saves them.
      await served.server.saveRecordedSearches()
    }
    let store = try CatalogStore.open(at: served.folder.appendingPathComponent("shop.sqlite"))
    #expect(
      try store.loadSearchHistory().all.map { "\($0.tenant)|\($0.text)|\($0.count)" }.sorted()
        == ["seller:42|rose|2", "seller:42|tulip|1", "|nothing here|1", "|seeds|1"].sorted())
  }

  @Test(
    "a tenant token sees only its rows: results, totals, facets, suggestions, did you mean, item reads"
  )
  func tenantSeesItsRows() async throws {
    let served = try Self.served()
    defer { try? FileManager.default.removeItem(at: served.folder) }
    let (key, token) = try Self.sellerToken(served)
    try await Self.withClient(served.server) { send in
      let all = try await send(.get, "/catalogs/shop/search?q=&facets=1", bearer: token)
      #expect(all.status == 200)
      #expect(Set(Self.titles(all)) == ["Red Rose", "White Tulip", "Rose Garden Seeds"])
      #expect(all.json["total"] as? Int == 3)
      #expect(all.json["indicator"] as? String == "3 items")
      #expect(all.json["tokens"] == nil)
      let facets = all.json["facets"] as? [String: Any]
      let categories = (facets?["categories"] as? [[String: Any]] ?? []).compactMap {
        $0["value"] as? String
      }
      #expect(Set(categories) == ["Flowers", "Seeds"])

      // Its frame is not what it searched for: a category filter is not marked in the rows.
      let framed = TenantToken(
        keyID: key.key.id, filters: ["shop": ["kind:Flowers"]],
        expires: Date().addingTimeInterval(86_400)
      ).signed(withKey: key.secret)
      let flowers = try await send(.get, "/catalogs/shop/search?q=tulip", bearer: framed)
      #expect(Self.titles(flowers) == ["White Tulip"])
      let marked = (flowers.json["results"] as? [[String: Any]] ?? []).flatMap {
        ($0["highlights"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
      }
      #expect(marked == ["title"])
      let asked = try await send(
        .get, "/catalogs/shop/search?q=tulip&token=kind:Flowers", bearer: Self.admin)
      let markedAsked = (asked.json["results"] as? [[String: Any]] ?? []).flatMap {
        ($0["highlights"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
      }
      #expect(Set(markedAsked) == ["title", "kind"], "asked for by the searcher, it is marked")
      // The tenant picking its own category, in the field's spelling: marked again.
      let picked = try await send(
        .get, "/catalogs/shop/search?q=tulip&token=kind:flowers", bearer: framed)
      let markedPicked = (picked.json["results"] as? [[String: Any]] ?? []).flatMap {
        ($0["highlights"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
      }
      #expect(Set(markedPicked) == ["title", "kind"])

      let rose = try await send(.get, "/catalogs/shop/search?q=rose", bearer: token)
      #expect(Set(Self.titles(rose)) == ["Red Rose", "Rose Garden Seeds"])
      #expect(rose.json["indicator"] as? String == "Items found: 2")

      // "#" offers the categories of its rows only.
      let offered = try await send(.get, "/catalogs/shop/search?q=%23", bearer: token)
      let suggestions = (offered.json["suggestions"] as? [[String: Any]] ?? []).compactMap {
        $0["text"] as? String
      }
      #expect(Set(suggestions) == ["Flowers", "Seeds"])
      let everyone = try await send(.get, "/catalogs/shop/search?q=%23")
      #expect((everyone.json["suggestions"] as? [Any])?.count == 3)
      // A category's values, searched: its rows' only, counted among them.
      let values = try await send(.get, "/catalogs/shop/facets/kind", bearer: token)
      #expect(values.status == 200)
      let counted = (values.json["values"] as? [[String: Any]] ?? []).map {
        "\($0["value"] as? String ?? "") \($0["count"] as? Int ?? 0)"
      }
      #expect(counted == ["Flowers 2", "Seeds 1"])
      let allValues = try await send(.get, "/catalogs/shop/facets/kind", bearer: Self.admin)
      #expect((allValues.json["values"] as? [Any])?.count == 3)

      // "Did you mean" never names a word only other rows hold.
      let misspelt = try await send(.get, "/catalogs/shop/search?q=zanzibr", bearer: token)
      #expect(Self.titles(misspelt).isEmpty)
      #expect(misspelt.json["didYouMean"] == nil)
      // The same filter as a plain token: the engine offers the catalog's word.
      let plain = try await send(.get, "/catalogs/shop/search?q=zanzibr&token=seller:42")
      #expect(plain.json["didYouMean"] as? String == "zanzibar")
      let ownWord = try await send(.get, "/catalogs/shop/search?q=tulipz%20whitt", bearer: token)
      #expect(
        ownWord.json["didYouMean"] as? String == "white" || Self.titles(ownWord) == ["White Tulip"])

      // Item reads: its rows, and no others, as if they were not there.
      #expect(try await send(.get, "/catalogs/shop/items/1", bearer: token).status == 200)
      let hidden = try await send(.get, "/catalogs/shop/items/4", bearer: token)
      #expect(hidden.status == 404)
      #expect(hidden.json["error"] as? String == #"no item "4" in catalog shop"#)

      // Other catalogs, edits, keys: not for a tenant token.
      #expect(try await send(.get, "/catalogs/products/search?q=rose", bearer: token).status == 403)
      #expect(
        try await send(.get, "/search?catalog=shop&catalog=products&q=rose", bearer: token).status
          == 403)
      let both = try await send(.get, "/search?catalog=shop&q=tulip", bearer: token)
      #expect(
        ((both.json["catalogs"] as? [String: Any])?["shop"] as? [String: Any])?["matched"] as? Int
          == 1)
      #expect(try await send(.delete, "/catalogs/shop/items/1", bearer: token).status == 403)
      #expect(try await send(.get, "/keys", bearer: token).status == 403)
      let listed = try await send(.get, "/catalogs", bearer: token)
      let shop = (listed.json["catalogs"] as? [[String: Any]])?.first
      #expect(shop?["name"] as? String == "shop")
      #expect(shop?["items"] as? Int == 3)
    }
  }

  @Test(
    "a tenant token's search is the same as the admin's with its filter as a token (seeded queries)"
  )
  func tenantMatchesReference() async throws {
    let served = try Self.served()
    defer { try? FileManager.default.removeItem(at: served.folder) }
    let key = try served.keys.create(KeyRequest(catalogs: ["shop"], actions: [.search]))
    let token = TenantToken(
      keyID: key.key.id, filters: ["shop": ["-seller:7", "kind:Flowers"]],
      expires: Date().addingTimeInterval(86_400)
    ).signed(withKey: key.secret)
    let seed: UInt64 = 20_261_126
    print("tenant reference queries: seed \(seed)")
    var generator = SplitMix64(seed: seed)
    let words = Self.shopItems.flatMap {
      ($0["title"]?.displayText ?? "").lowercased().split(separator: " ").map(String.init)
    }
    var queries: [String] = [""]
    for _ in 0..<40 {
      let word = words.randomElement(using: &generator)!
      let cut = Int.random(in: 1...word.count, using: &generator)
      var query = String(word.prefix(cut))
      if Bool.random(using: &generator) { query += " " + words.randomElement(using: &generator)! }
      if Int.random(in: 0..<4, using: &generator) == 0 { query = "-" + query }
      queries.append(query)
    }
    let asked = queries
    try await Self.withClient(served.server) { send in
      for query in asked {
        let q = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let tenant = try await send(.get, "/catalogs/shop/search?q=\(q)&limit=100", bearer: token)
        let reference = try await send(
          .get, "/catalogs/shop/search?q=\(q)&limit=100&token=-seller:7&token=kind:Flowers",
          bearer: Self.admin)
        #expect(tenant.status == 200, "\(query)")
        #expect(Self.ids(tenant) == Self.ids(reference), "\(query)")
        #expect(tenant.json["matched"] as? Int == reference.json["matched"] as? Int, "\(query)")
        #expect(Set(Self.ids(tenant)).isSubset(of: ["1", "2"]), "\(query)")
      }
    }
  }

  @Test("a tenant token refused: tampered, unsigned, expired, from a revoked key, a text filter")
  func tenantRefusals() async throws {
    let served = try Self.served()
    defer { try? FileManager.default.removeItem(at: served.folder) }
    let key = try served.keys.create(KeyRequest(catalogs: ["shop"], actions: [.search]))
    let editor = try served.keys.create(KeyRequest(catalogs: ["shop"], actions: [.edit]))
    @Sendable func token(
      _ filters: [String: [String]], expires: TimeInterval = 86_400,
      key: (secret: String, key: APIKey)
    ) -> String {
      TenantToken(keyID: key.key.id, filters: filters, expires: Date().addingTimeInterval(expires))
        .signed(withKey: key.secret)
    }
    let good = token(["shop": ["seller:42"]], key: key)
    let later = Int(Date().timeIntervalSince1970) + 86_400
    // A token whose signature has a - or _ (which base64 would write + or /).
    var withDash = good
    for seconds in 86_401... {
      withDash = token(["shop": ["seller:42"]], expires: TimeInterval(seconds), key: key)
      if withDash.split(separator: ".")[2].contains(where: { $0 == "-" || $0 == "_" }) { break }
    }
    let parts = good.split(separator: ".").map(String.init)
    // The payload changed to another seller, the signature kept.
    let forged = TenantToken.base64URL(
      Data(
        String(decoding: TenantToken.decodeBase64URL(parts[1])!, as: UTF8.self)
          .replacingOccurrences(of: "seller:42", with: "seller:7").utf8))
    let unsigned = TenantToken.base64URL(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
    let cases: [(String, Int, String?)] = [
      (
        parts[0] + "." + forged + "." + parts[2], 401,
        "Authorization: tenant token: the signature is not that of key \(key.key.id)"
      ),
      (
        unsigned + "." + parts[1] + ".", 401,
        "Authorization: tenant token: alg: only HS256 is accepted"
      ),
      (token(["shop": ["seller:42"]], expires: -5, key: key), 401, nil),
      (
        token(["shop": []], key: editor), 401,
        "Authorization: tenant token: key \(editor.key.id) may not search catalog shop"
      ),
      (
        token(["shop": ["rose"]], key: key), 403,
        #"Authorization: tenant token: filter "rose": a tenant filter names a category or a number (category:VALUE, FIELD:NUMBER), not text"#
      ),
      ("a.b.c", 401, "Authorization: tenant token: not a JSON Web Token"),
      // A misspelt member is refused, not ignored (it once searched the whole catalog).
      (
        Self.signed(
          #"{"catalogs":{"shop":{"filters":["seller:42"]}},"exp":\#(later),"key":"\#(key.key.id)"}"#,
          key: key.secret), 401,
        #"Authorization: tenant token: catalogs.shop.filters: not a member (a catalog's rule has only "filter")"#
      ),
      (
        Self.signed(
          #"{"catalogs":{"shop":{"filter":["seller:42"]}},"exp":\#(later),"key":"\#(key.key.id)","role":"admin"}"#,
          key: key.secret), 401,
        "Authorization: tenant token: role: not a member of a tenant token (key, exp, catalogs; iat, nbf, iss, sub, aud, jti)"
      ),
      (
        Self.signed(
          #"{"catalogs":{"shop":{"filter":["seller:42"]}},"exp":\#(later),"key":"\#(key.key.id)","nbf":\#(later - 60)}"#,
          key: key.secret), 401, nil,
      ),
      // Base64url without padding only: one token, one spelling.
      (
        good + "=", 401,
        "Authorization: tenant token: the signature is not that of key \(key.key.id)"
      ),
      (
        withDash.split(separator: ".").prefix(2).joined(separator: ".") + "."
          + withDash.split(separator: ".")[2].replacingOccurrences(of: "-", with: "+")
          .replacingOccurrences(of: "_", with: "/"),
        401, "Authorization: tenant token: the signature is not that of key \(key.key.id)"
      ),
    ]
    try await Self.withClient(served.server) { send in
      for (bearer, status, message) in cases {
        let answer = try await send(.get, "/catalogs/shop/search?q=rose", bearer: bearer)
        #expect(answer.status == status, "\(bearer)")
        let error = answer.json["error"] as? String
        #expect(error == (message ?? error))
        if message == nil {
          #expect(
            error?.hasPrefix("Authorization: tenant token: it expired at ") == true
              || error?.hasPrefix("Authorization: tenant token: it is not valid before ") == true
              || (answer.status == 200 && !bearer.contains("=")))
        }
      }
      #expect(try served.keys.revoke(id: key.key.id))
      let revoked = try await send(.get, "/catalogs/shop/search?q=rose", bearer: good)
      #expect(revoked.status == 401)
      #expect(
        revoked.json["error"] as? String
          == "Authorization: tenant token: key \(key.key.id) is revoked or unknown")
    }
  }

  @Test(
    "a tenant sees the scope buttons of its own categories only, in /catalogs and facets; explain=1 hides catalog order"
  )
  func tenantScopesAndExplain() async throws {
    let served = try Self.served()
    defer { try? FileManager.default.removeItem(at: served.folder) }
    let key = try served.keys.create(KeyRequest(catalogs: ["products"], actions: [.search]))
    // From 2010 on, every product is a Funerals one.
    let token = TenantToken(
      keyID: key.key.id, filters: ["products": ["year:>=2010"]],
      expires: Date().addingTimeInterval(86_400)
    ).signed(withKey: key.secret)
    try await Self.withClient(served.server) { send in
      func scopes(_ answer: Answer) -> [String] {
        let catalogs = answer.json["catalogs"] as? [[String: Any]] ?? []
        return catalogs.first { $0["name"] as? String == "products" }?["scopes"] as? [String] ?? []
      }
      func facetScopes(_ answer: Answer) -> [String] {
        ((answer.json["facets"] as? [String: Any])?["scopes"] as? [[String: Any]] ?? [])
          .compactMap { $0["title"] as? String }
      }
      #expect(scopes(try await send(.get, "/catalogs", bearer: token)) == ["All", "Funerals"])
      #expect(
        scopes(try await send(.get, "/catalogs", bearer: Self.admin))
          == ["All", "Birthdays", "Weddings", "Funerals"])
      let searched = try await send(
        .get, "/catalogs/products/search?q=rose&facets=1&explain=1", bearer: token)
      #expect(facetScopes(searched) == ["All", "Funerals"])
      let explained = (searched.json["results"] as? [[String: Any]] ?? []).compactMap {
        $0["explain"] as? [String: Any]
      }
      #expect(!explained.isEmpty && explained.allSatisfy { $0["catalog_order"] == nil })
      let admin = try await send(
        .get, "/catalogs/products/search?q=rose&facets=1&explain=1", bearer: Self.admin)
      #expect(facetScopes(admin) == ["All", "Birthdays", "Weddings", "Funerals"])
      #expect(
        (admin.json["results"] as? [[String: Any]] ?? []).allSatisfy {
          ($0["explain"] as? [String: Any])?["catalog_order"] != nil
        })
    }
  }

  @Test("a key past its requests a minute is answered 429 with Retry-After; others are not held")
  func rateLimit() async throws {
    // The server's clock stands still (a busy machine could otherwise refill the bucket
    // between two requests), then moves on by hand.
    let now = TestClock(Date())
    let served = try Self.served(rateLimit: 1_000, clock: { now.date })
    defer { try? FileManager.default.removeItem(at: served.folder) }
    let slow = try served.keys.create(
      KeyRequest(catalogs: ["shop"], actions: [.search], requestsPerMinute: 3))
    let fast = try served.keys.create(KeyRequest(catalogs: ["shop"], actions: [.search]))
    try await Self.withClient(served.server) { send in
      var statuses: [Int] = []
      for _ in 0..<5 {
        statuses.append(
          try await send(.get, "/catalogs/shop/search?q=rose", bearer: slow.secret).status)
      }
      #expect(statuses == [200, 200, 200, 429, 429])
      let refused = try await send(.get, "/catalogs/shop/search?q=rose", bearer: slow.secret)
      #expect(refused.retryAfter == "20", "a request every 20 s, and none has come back")
      #expect(
        (refused.json["error"] as? String)?.hasPrefix(
          "key \(slow.key.id) made more than its 3 requests a minute: retry after ") == true)
      for _ in 0..<10 {
        #expect(
          try await send(.get, "/catalogs/shop/search?q=rose", bearer: fast.secret).status == 200)
      }
      // 20 s later a request a minute's worth of 3 has come back: one, not two.
      now.advance(by: 20)
      #expect(
        try await send(.get, "/catalogs/shop/search?q=rose", bearer: slow.secret).status == 200)
      #expect(
        try await send(.get, "/catalogs/shop/search?q=rose", bearer: slow.secret).status == 429)
      #expect(try await send(.get, "/catalogs/shop/search?q=rose").status == 200)
      // Two tenants of the slow key: each has its own 3 a minute, whatever the key and the
      // other tenant spent.
      let tenants = [42, 7].map { seller in
        TenantToken(
          keyID: slow.key.id, filters: ["shop": ["seller:\(seller)"]],
          expires: now.date.addingTimeInterval(86_400)
        ).signed(withKey: slow.secret)
      }
      for tenant in tenants {
        var statuses: [Int] = []
        for _ in 0..<4 {
          statuses.append(
            try await send(.get, "/catalogs/shop/search?q=rose", bearer: tenant).status)
        }
        #expect(statuses == [200, 200, 200, 429])
      }
    }
  }
}

extension KeyAndTenantTests {
  /// A token of `payload` exactly as written, signed as a backend would sign it with `key`.
  static func signed(_ payload: String, key: String) -> String {
    let signed =
      TenantToken.base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "."
      + TenantToken.base64URL(Data(payload.utf8))
    let code = HMAC<SHA256>.authenticationCode(
      for: Data(signed.utf8),
      using: SymmetricKey(data: Data(TenantToken.signingSecret(of: key).utf8)))
    return signed + "." + TenantToken.base64URL(Data(code))
  }
}

/// A clock a test moves by hand.
final class TestClock: @unchecked Sendable {
  private let lock = NSLock()
  private var now: Date
  init(_ start: Date) { now = start }
  var date: Date { lock.withLock { now } }
  func advance(by seconds: TimeInterval) { lock.withLock { now += seconds } }
}

/// The hash the key file keeps: SHA-256 of the key, in hex.
enum APIKeyHash {
  static func hex(_ secret: String) -> String {
    SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
  }
}
#endif
