#if Server
import Foundation
import Hummingbird
import HummingbirdTesting
import Sift
import SiftServer
import SiftStore
import Testing
import SiftTestSupport

/// `POST`, `PUT` and `DELETE` on `/catalogs/NAME/items`: saved before the reply, seen by the
/// next search, refused without the token, and every bad body named.
@Suite("sift serve: edits", .tags(.unit))
struct EditEndpointTests {
  static let token = "s3cret-token"

  struct Answer {
    var status: Int
    var json: [String: Any]
  }

  /// A products catalog in a temporary folder, served with (or without) the token.
  static func served(token: String? = token) throws -> (SiftServer, CatalogStore, URL) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-edits-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent("products.sqlite")
    let store = try CatalogStore.create(at: url, document: BuiltInCatalog.products.load())
    let server = SiftServer(
      catalogs: [try StoredCatalog(name: "products", store: store)], writeToken: token)
    return (server, store, folder)
  }

  /// Runs `requests` in order against one application; each as (method, uri, body, token).
  static func run(
    _ server: SiftServer,
    _ requests: [(HTTPRequest.Method, String, String?, String?)]
  ) async throws -> [Answer] {
    let app = Application(router: server.router())
    return try await app.test(.router) { client in
      var answers: [Answer] = []
      for (method, uri, body, token) in requests {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        if body != nil { headers[.contentType] = "application/json" }
        let answer = try await client.execute(
          uri: uri, method: method, headers: headers,
          body: body.map { ByteBuffer(string: $0) }
        ) { response in
          let bytes = Data(response.body.readableBytesView)
          let json = (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any] ?? [:]
          return Answer(status: Int(response.status.code), json: json)
        }
        answers.append(answer)
      }
      return answers
    }
  }

  static func titles(_ answer: Answer) -> [String] {
    (answer.json["results"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
  }

  @Test(
    "HTTP details: the Bearer scheme in any case, 405 with Allow for a known path, NUL refused as the client's, /health"
  )
  func httpDetails() async throws {
    let (server, _, folder) = try Self.served()
    defer { try? FileManager.default.removeItem(at: folder) }
    let app = Application(router: server.router())
    try await app.test(.router) { client in
      func send(
        _ method: HTTPRequest.Method, _ uri: String, body: String? = nil,
        authorization: String? = nil
      ) async throws -> (status: Int, json: [String: Any], allow: String?) {
        var headers: HTTPFields = [:]
        if let authorization { headers[.authorization] = authorization }
        if body != nil { headers[.contentType] = "application/json" }
        return try await client.execute(
          uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }
        ) { response in
          let json =
            (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)))
            as? [String: Any] ?? [:]
          return (Int(response.status.code), json, response.headers[.allow])
        }
      }
      let item = #"{"title": "Lily", "year": 2020}"#
      for scheme in ["bearer", "BEARER", "Bearer"] {
        let added = try await send(
          .post, "/catalogs/products/items", body: item, authorization: "\(scheme) \(Self.token)")
        #expect(added.status == 201, "\(scheme)")
      }
      let basic = try await send(
        .post, "/catalogs/products/items", body: item, authorization: "Basic \(Self.token)")
      #expect(basic.status == 401)
      let patch = try await send(.patch, "/catalogs/products/items/1", body: item)
      #expect(patch.status == 405)
      #expect(patch.allow == "GET, HEAD, PUT, DELETE")
      #expect(
        patch.json["error"] as? String
          == "method PATCH is not allowed on /catalogs/products/items/1: it takes GET, HEAD, PUT, DELETE"
      )
      let options = try await send(.options, "/catalogs")
      #expect(options.status == 405)
      #expect(options.allow == "GET, HEAD")
      let nowhere = try await send(.get, "/catalogs/products/nowhere")
      #expect(nowhere.status == 404)
      #expect(nowhere.json["error"] as? String == "no such path: /catalogs/products/nowhere")
      let nul = try await send(
        .post, "/catalogs/products/items", body: #"{"title": "Li\u0000ly"}"#,
        authorization: "Bearer \(Self.token)")
      #expect(nul.status == 400)
      #expect(
        nul.json["error"] as? String
          == "title: a NUL character (U+0000), which a catalog cannot store")
      let health = try await send(.get, "/health")
      #expect(health.status == 200)
      #expect(health.json["status"] as? String == "ok")
      #expect(health.json["catalogs"] as? Int == 1)
    }
  }

  @Test("a catalog named by an id field: a new item takes its id from it; a duplicate is a 409")
  func idFieldNamesNewItems() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-ids-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let schema = CatalogSchema(
      name: "airports", fields: [.text("name"), .text("city")], titleField: "name",
      idField: "icao")
    let store = try CatalogStore.create(
      at: folder.appendingPathComponent("airports.sqlite"),
      document: CatalogDocument(
        schema: schema,
        items: [Item(id: "EGLL", fields: ["name": .text("Heathrow"), "city": .text("London")])]))
    let server = SiftServer(
      catalogs: [try StoredCatalog(name: "airports", store: store)], writeToken: Self.token)
    let answers = try await Self.run(
      server,
      [
        (.post, "/catalogs/airports/items", #"{"icao": "QQQQ", "name": "Test Field"}"#, Self.token),
        (.get, "/catalogs/airports/items/QQQQ", nil, nil),
        (.post, "/catalogs/airports/items", #"{"icao": "EGLL", "name": "Twice"}"#, Self.token),
        (
          .post, "/catalogs/airports/items", #"{"id": "A", "icao": "B", "name": "Two"}"#, Self.token
        ),
        (.post, "/catalogs/airports/items", #"{"icao": 1234, "name": "Numbered"}"#, Self.token),
        (.post, "/catalogs/airports/items", #"{"name": "Unnamed"}"#, Self.token),
      ])
    #expect(answers.map(\.status) == [201, 200, 409, 400, 201, 201])
    #expect(idText(answers[0].json["id"]) == "QQQQ")
    #expect(answers[1].json["title"] as? String == "Test Field")
    #expect(
      answers[2].json["error"] as? String == #"id: catalog airports has an item "EGLL" already"#)
    #expect(
      answers[3].json["error"] as? String
        == #"id: "A" names another item than "B" (give one id)"#)
    #expect(idText(answers[4].json["id"]) == "1234")
    #expect(try store.item(id: "QQQQ")?["name"] == .text("Test Field"))
  }

  @Test("HEAD answers as GET would, without the body; 405 only where GET is not taken either")
  func headAsGet() async throws {
    let (server, _, folder) = try Self.served()
    defer { try? FileManager.default.removeItem(at: folder) }
    let app = Application(router: server.router())
    try await app.test(.router) { client in
      for path in [
        "/health", "/catalogs", "/catalogs/products/search?q=rose", "/catalogs/products/items/1",
        "/search?catalog=products&q=rose", "/", "/catalogs/products/items/nope",
      ] {
        let (getStatus, getLength, getBody) = try await client.execute(uri: path, method: .get) {
          (Int($0.status.code), $0.headers[.contentLength], $0.body.readableBytes)
        }
        let (status, length, body) = try await client.execute(uri: path, method: .head) {
          (Int($0.status.code), $0.headers[.contentLength], $0.body.readableBytes)
        }
        #expect(status == getStatus, "\(path)")
        #expect(length == getLength && length == String(getBody), "\(path)")
        #expect(body == 0, "\(path)")
      }
      let post = try await client.execute(uri: "/catalogs/products/items", method: .head) {
        (Int($0.status.code), $0.headers[.allow])
      }
      #expect(post.0 == 405 && post.1 == "POST")
    }
  }

  @Test(
    "an id that needs percent-encoding is read, changed and deleted at its encoded path",
    arguments: ["a b", "é", "x/y", "a#b", "%41", "a?b", "100%", "😀"])
  func encodedIDs(_ id: String) async throws {
    let (server, _, folder) = try Self.served()
    defer { try? FileManager.default.removeItem(at: folder) }
    let json = String(
      decoding: try JSONSerialization.data(withJSONObject: ["id": id]), as: UTF8.self)
    let body = json.dropLast() + #", "title": "Odd Lily", "year": 2020}"#
    let path =
      "/catalogs/products/items/"
      + id.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    let answers = try await Self.run(
      server,
      [
        (.post, "/catalogs/products/items", String(body), Self.token),
        (.get, path, nil, nil),
        (.put, path, #"{"title": "Odd Tulip", "year": 2021}"#, Self.token),
        (.get, "/catalogs/products/search?q=odd", nil, nil),
        (.delete, path, nil, Self.token),
        (.get, path, nil, nil),
      ])
    #expect(answers.map(\.status) == [201, 200, 200, 200, 204, 404])
    #expect(idText(answers[0].json["id"]) == id)
    #expect(idText(answers[1].json["id"]) == id)
    #expect(answers[1].json["title"] as? String == "Odd Lily")
    #expect(Self.titles(answers[3]) == ["Odd Tulip"])
    #expect(answers[5].json["error"] as? String == "no item \"\(id)\" in catalog products")
  }

  @Test(
    "GET /metrics counts requests by route and status, latency, searches and edits; the access log never holds the key"
  )
  func metricsAndAccessLog() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-metrics-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try CatalogStore.create(
      at: folder.appendingPathComponent("products.sqlite"), document: BuiltInCatalog.products.load()
    )
    final class Lines: @unchecked Sendable {
      let lock = NSLock()
      var all: [String] = []
      func add(_ line: String) {
        lock.lock()
        all.append(line)
        lock.unlock()
      }
    }
    let lines = Lines()
    let server = SiftServer(
      catalogs: [try StoredCatalog(name: "products", store: store)], writeToken: Self.token,
      accessLog: .json, logLine: { lines.add($0) })
    let app = Application(router: server.router())
    let metrics = try await app.test(.router) { client in
      for query in ["rose", "tulip", "nope"] {
        try await client.execute(uri: "/catalogs/products/search?q=\(query)", method: .get) { _ in }
      }
      try await client.execute(uri: "/catalogs/products/search?sort=nope", method: .get) { _ in }
      try await client.execute(
        uri: "/catalogs/products/items", method: .post,
        headers: [.authorization: "Bearer \(Self.token)", .contentType: "application/json"],
        body: ByteBuffer(string: #"{"title": "Lily"}"#)
      ) { _ in }
      try await client.execute(uri: "/no/such/place", method: .get) { _ in }
      return try await client.execute(uri: "/metrics", method: .get) { response in
        #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
        return String(decoding: response.body.readableBytesView, as: UTF8.self)
      }
    }
    let exposition = metrics.split(separator: "\n").map(String.init)
    for expected in [
      #"sift_http_requests_total{route="catalogs/:name/search",method="GET",status="200"} 3"#,
      #"sift_http_requests_total{route="catalogs/:name/search",method="GET",status="400"} 1"#,
      #"sift_http_requests_total{route="catalogs/:name/items",method="POST",status="201"} 1"#,
      #"sift_http_requests_total{route="other",method="GET",status="404"} 1"#,
      #"sift_http_request_duration_seconds_count{route="catalogs/:name/search"} 4"#,
      #"sift_http_request_duration_seconds_bucket{route="catalogs/:name/search",le="+Inf"} 4"#,
      #"sift_searches_total{catalog="products"} 3"#, #"sift_edits_total{catalog="products"} 1"#,
      "# TYPE sift_http_request_duration_seconds histogram",
    ] {
      #expect(exposition.contains(expected), "\(expected)\n\(metrics)")
    }
    // A line per request, the key nowhere in it.
    #expect(lines.all.count == 7, "\(lines.all)")  // /metrics itself too
    #expect(!lines.all.contains { $0.contains(Self.token) })
    let first = try #require(
      try JSONSerialization.jsonObject(with: Data(lines.all[0].utf8)) as? [String: Any])
    #expect(first["method"] as? String == "GET")
    #expect(first["path"] as? String == "/catalogs/products/search")
    #expect(first["query"] as? String == "q=rose")
    #expect(first["status"] as? Int == 200)
    #expect(first["ms"] is Double)
  }

  @Test("a place off the earth is a 400 naming the field, as an import refuses it")
  func coordinatesChecked() async throws {
    let (server, _, folder) = try SearchEndpointTests.towns(
      [("1", "Springfield", 39.8, -89.6)], writeToken: Self.token)
    defer { try? FileManager.default.removeItem(at: folder) }
    let answers = try await Self.run(
      server,
      [
        (.post, "/catalogs/towns/items", #"{"name": "Nowhere", "lat": 91, "lon": 0}"#, Self.token),
        (
          .put, "/catalogs/towns/items/1", #"{"name": "Springfield", "lat": 39.8, "lon": -181}"#,
          Self.token
        ),
        (
          .put, "/catalogs/towns/items/1", #"{"name": "Springfield", "lat": 39.81, "lon": -89.6}"#,
          Self.token
        ),
        (.get, "/catalogs/towns/search?near=39.8,-89.6", nil, nil),
      ])
    #expect(answers[0].status == 400)
    #expect(answers[0].json["error"] as? String == "lat: a latitude, from -90 to 90, not 91")
    #expect(answers[1].status == 400)
    #expect(answers[1].json["error"] as? String == "lon: a longitude, from -180 to 180, not -181")
    #expect(answers[2].status == 200)
    let results = answers[3].json["results"] as? [[String: Any]] ?? []
    #expect(results.count == 1)
    // 0.01° of latitude is 1,111.95 m: 1.112 km to the nearest metre.
    #expect(results.first?["distance_km"] as? Double == 1.112)
  }

  @Test("add, change and delete, each seen by the next search and saved in the file")
  func editsAreSeenAndSaved() async throws {
    let (server, store, folder) = try Self.served()
    defer { try? FileManager.default.removeItem(at: folder) }
    let answers = try await Self.run(
      server,
      [
        (
          .post, "/catalogs/products/items",
          #"{"title": "Blue Tulip", "year": 2024, "price": 9.5, "type": "Gifts"}"#, Self.token
        ),
        (.get, "/catalogs/products/search?q=blue+tulip", nil, nil),
        (
          .put, "/catalogs/products/items/14",
          #"{"title": "Crimson Rose", "year": 2010, "price": 24.99, "type": "Funerals"}"#,
          Self.token
        ),
        (.get, "/catalogs/products/search?q=rose", nil, nil),
        (.delete, "/catalogs/products/items/15", nil, Self.token),
        (.get, "/catalogs/products/search?q=rose", nil, nil),
        (
          .post, "/catalogs/products/items", #"{"id": "tulip-2", "title": "Tulip Two"}"#, Self.token
        ),
        (.post, "/catalogs/products/items", #"{"id": "tulip-2", "title": "Again"}"#, Self.token),
        (.put, "/catalogs/products/items/nope", #"{"title": "X"}"#, Self.token),
        (.delete, "/catalogs/products/items/nope", nil, Self.token),
      ])
    #expect(answers.map(\.status) == [201, 200, 200, 200, 204, 200, 201, 409, 404, 404])
    #expect(answers[0].json["title"] as? String == "Blue Tulip")
    #expect(answers[0].json["year"] as? Double == 2024)
    #expect(Self.titles(answers[1]) == ["Blue Tulip"])
    #expect(Self.titles(answers[3]) == ["Crimson Rose", "White Rose"])
    #expect(Self.titles(answers[5]) == ["Crimson Rose"])
    #expect(idText(answers[6].json["id"]) == "tulip-2")
    #expect((answers[7].json["error"] as? String)?.contains("tulip-2") == true)
    #expect((answers[8].json["error"] as? String)?.contains("no item \"nope\"") == true)
    // The file holds every acknowledged edit.
    let saved = try store.loadDocument().items
    #expect(saved.contains { $0["title"]?.displayText == "Blue Tulip" })
    #expect(saved.first { $0.id == "14" }?["title"]?.displayText == "Crimson Rose")
    #expect(!saved.contains { $0.id == "15" })
    #expect(saved.contains { $0.id == "tulip-2" })
  }

  @Test("a category:VALUE token no item has is a 400 naming it; one an edit added is searched")
  func categoryTokens() async throws {
    let (server, _, folder) = try Self.served()
    defer { try? FileManager.default.removeItem(at: folder) }
    let answers = try await Self.run(
      server,
      [
        (.get, "/catalogs/products/search?token=category:Gifts", nil, nil),
        (
          .post, "/catalogs/products/items", #"{"title": "Blue Tulip", "type": "Gifts"}"#,
          Self.token
        ),
        (.get, "/catalogs/products/search?token=category:Gifts", nil, nil),
        (.get, "/catalogs/products/search?q=zzzz&token=category:Weddings", nil, nil),
      ])
    #expect(answers.map(\.status) == [400, 201, 200, 200])
    #expect(
      answers[0].json["error"] as? String
        == "token: unknown category \"Gifts\" in token \"category:Gifts\": no item of catalog products has it (e.g. category:Birthdays, category:Weddings, category:Funerals)"
    )
    #expect(Self.titles(answers[2]) == ["Blue Tulip"])
    #expect(Self.titles(answers[3]) == [])
  }

  @Test("fields kept but not searched: listed, returned with results and items, editable")
  func storedFields() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-stored-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let schema = CatalogSchema(
      name: "cities", fields: [.text("name")], titleField: "name",
      storedFields: [.text("timezone", label: "Time zone", searchable: false)])
    let store = try CatalogStore.create(
      at: folder.appendingPathComponent("cities.sqlite"),
      document: CatalogDocument(
        schema: schema,
        items: [Item(id: "1", fields: ["name": .text("Seoul"), "timezone": .text("Asia/Seoul")])]))
    let server = SiftServer(
      catalogs: [try StoredCatalog(name: "cities", store: store, editable: true)],
      writeToken: Self.token)
    let answers = try await Self.run(
      server,
      [
        (.get, "/catalogs", nil, nil),
        (.get, "/catalogs/cities/search?q=seoul", nil, nil),
        (.get, "/catalogs/cities/search?q=asia", nil, nil),
        (
          .put, "/catalogs/cities/items/1", #"{"name": "Seoul", "timezone": "UTC+9"}"#,
          Self.token
        ),
        (.get, "/catalogs/cities/items/1", nil, nil),
      ])
    #expect(answers.map(\.status) == [200, 200, 200, 200, 200])
    let catalogs = answers[0].json["catalogs"] as? [[String: Any]] ?? []
    let fields = catalogs.first?["fields"] as? [[String: Any]] ?? []
    #expect(fields.map { $0["name"] as? String } == ["name", "timezone"])
    #expect(fields.map { $0["stored"] as? Bool } == [nil, true])
    #expect(fields.last?["label"] as? String == "Time zone")
    let result = (answers[1].json["results"] as? [[String: Any]])?.first
    #expect(result?["timezone"] as? String == "Asia/Seoul")
    #expect(Self.titles(answers[2]) == [], "a kept field is not searched")
    #expect(answers[4].json["timezone"] as? String == "UTC+9")
  }

  @Test("no token file: read-only; a missing or wrong token: 401; searches answer either way")
  func access() async throws {
    let (readOnly, _, folder) = try Self.served(token: nil)
    defer { try? FileManager.default.removeItem(at: folder) }
    let body = #"{"title": "Tulip"}"#
    let closed = try await Self.run(
      readOnly,
      [
        (.post, "/catalogs/products/items", body, Self.token),
        (.delete, "/catalogs/products/items/1", nil, nil),
        (.get, "/catalogs/products/search?q=tulip", nil, nil),
      ])
    #expect(closed.map(\.status) == [403, 403, 200])
    #expect((closed[0].json["error"] as? String)?.contains("read-only") == true)
    let (guarded, _, other) = try Self.served()
    defer { try? FileManager.default.removeItem(at: other) }
    let answers = try await Self.run(
      guarded,
      [
        (.post, "/catalogs/products/items", body, nil),
        (.post, "/catalogs/products/items", body, "wrong"),
        (.post, "/catalogs/products/items", body, Self.token + "x"),
        (.delete, "/catalogs/products/items/1", nil, "s3cret-toke"),
        (.get, "/catalogs/products/search?q=tulip", nil, nil),
      ])
    #expect(answers.map(\.status) == [401, 401, 401, 401, 200])
    #expect(Self.titles(answers[4]) == ["Tulip"])  // nothing was added
  }

  @Test(
    "bad bodies are refused with the field at fault, and nothing changes",
    arguments: [
      ("{", 400, "body: not JSON (at byte 1: expected a member's name)"),
      ("[1, 2]", 400, "body: not a JSON object of fields (an array)"),
      // What JSON cannot say is refused where it stands, not read as something else.
      (
        #"{"title": "X\ud800"}"#, 400,
        "body: not JSON (at byte 12: \\uD800 is half of a surrogate pair"
      ),
      (
        #"{"title": "X", "year": 1e400}"#, 400,
        "body: not JSON (at byte 23: 1e400 is too large a number)"
      ),
      (#"{"title": 3}"#, 400, "title: expected a string"),
      (#"{"year": 2020}"#, 400, "title: required"),
      (#"{"title": "   "}"#, 400, "title: required"),
      (#"{"title": "X", "year": "2020"}"#, 400, "year: expected a number"),
      (#"{"title": "X", "year": true}"#, 400, "year: expected a number"),
      (#"{"title": "X", "colour": "red"}"#, 400, "colour: no such field in catalog products"),
      (#"{"title": "X", "type": ["a", 2]}"#, 400, "type: expected a string or a list of strings"),
      (#"{"title": "X", "type": {"a": 1}}"#, 400, "type: expected a string or a list of strings"),
      (
        #"{"title": "X", "id": 7.5}"#, 400,
        "id: an id is a string of 1 to 200 characters without NUL, or a whole number"
      ),
      (
        #"{"title": "\#(String(repeating: "x", count: 70_000))"}"#, 413,
        "body: more than 65536 bytes"
      ),
    ])
  func badBodies(_ body: String, _ status: Int, _ message: String) async throws {
    let (server, store, folder) = try Self.served()
    defer { try? FileManager.default.removeItem(at: folder) }
    let answers = try await Self.run(
      server,
      [
        (.post, "/catalogs/products/items", body, Self.token),
        (.get, "/catalogs/products/search", nil, nil),
      ])
    #expect(answers[0].status == status)
    let error = answers[0].json["error"] as? String ?? ""
    #expect(error.contains(message), "\(error)")
    #expect(answers[1].json["matched"] as? Int == 15)
    #expect(try store.loadDocument().items.count == 15)
  }
}
#endif
