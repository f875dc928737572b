#if Server
import Foundation
import Hummingbird
import HummingbirdTesting
import Sift
import SiftServer
import SiftStore
import Testing
import SiftTestSupport

/// `sift serve`'s JSON endpoints, driven through the router (no socket): answers equal what a
/// `CatalogSession` — the path `sift search` takes — shows for the same input, and every bad
/// request gets its status and an `{"error": …}` that names the part at fault.
@Suite("sift serve: search endpoints", .tags(.unit))
struct SearchEndpointTests {
  /// Fresh copies of the built-in catalogs in a temporary folder, served under their names.
  static func server(token: String? = nil) throws -> (SiftServer, [String: CatalogStore], URL) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-serve-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var stores: [String: CatalogStore] = [:]
    var served: [StoredCatalog] = []
    for catalog in [BuiltInCatalog.products, .candies, .media] {
      let store = try CatalogStore.create(
        at: folder.appendingPathComponent("\(catalog.rawValue).sqlite"), document: catalog.load())
      stores[catalog.rawValue] = store
      served.append(try StoredCatalog(name: catalog.rawValue, store: store))
    }
    return (SiftServer(catalogs: served, writeToken: token), stores, folder)
  }

  /// A catalog of towns placed on the earth (`name`, `lat`, `lon`, located by the last two) in
  /// a temporary folder, served under "towns".
  static func towns(
    _ towns: [(id: String, name: String, lat: Double, lon: Double)], writeToken: String? = nil
  ) throws -> (SiftServer, CatalogStore, URL) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-serve-towns-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var schema = CatalogSchema(
      name: "towns",
      fields: [
        .text("name"), .number("lat", searchable: false), .number("lon", searchable: false),
      ],
      titleField: "name")
    schema.location = LocationFields(latitude: "lat", longitude: "lon")
    let items = towns.map {
      Item(
        id: ItemID($0.id),
        fields: ["name": .text($0.name), "lat": .number($0.lat), "lon": .number($0.lon)])
    }
    let store = try CatalogStore.create(
      at: folder.appendingPathComponent("towns.sqlite"),
      document: CatalogDocument(schema: schema, items: items))
    let server = SiftServer(
      catalogs: [try StoredCatalog(name: "towns", store: store)], writeToken: writeToken)
    return (server, store, folder)
  }

  static func get(
    _ server: SiftServer, _ uri: String
  ) async throws -> (status: HTTPResponse.Status, json: [String: Any]) {
    let app = Application(router: server.router())
    return try await app.test(.router) { client in
      try await client.execute(uri: uri, method: .get) { response in
        let bytes = Data(response.body.readableBytesView)
        #expect(response.headers[.contentType] == "application/json; charset=utf-8", "\(uri)")
        let object = try JSONSerialization.jsonObject(with: bytes) as? [String: Any]
        return (response.status, object ?? [:])
      }
    }
  }

  /// The ids, indicator and match count a session shows for the same input.
  static func expected(
    _ store: CatalogStore, _ input: SearchRequestInput
  ) throws -> (ids: [String], indicator: String, matched: Int) {
    var controller = SearchController(collection: try CatalogSession(store: store).collection)
    try controller.apply(input)
    let rows = controller.rows
    return (rows.map(\.rawValue), controller.indicator.text, rows.count)
  }

  @Test("distinct=FIELD: one result per value, as the session answers; facets count items")
  func distinct() async throws {
    let (server, stores, folder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    // A search the server remembers without groups is where the grouped one starts from.
    _ = try await Self.get(server, "/catalogs/products/search?q=r")
    for (query, text) in [("q=r", "r"), ("q=ro", "ro"), ("", "")] {
      let input = SearchRequestInput(text: text, distinct: "category")
      let expected = try Self.expected(stores["products"]!, input)
      let (status, json) = try await Self.get(
        server, "/catalogs/products/search?\(query)&distinct=category&facets=1")
      #expect(status == .ok)
      let results = json["results"] as? [[String: Any]] ?? []
      #expect(results.compactMap { idText($0["id"]) } == expected.ids, "\(query)")
      #expect(json["matched"] as? Int == expected.matched)
      #expect(json["distinct"] as? String == "type")
      let categories = results.compactMap { $0["type"] as? String }
      #expect(Set(categories).count == categories.count && !categories.isEmpty)
      // The facets are those of the search without groups.
      let plain = try await Self.get(server, "/catalogs/products/search?\(query)&facets=1").json
      #expect(
        NSDictionary(dictionary: json["facets"] as? [String: Any] ?? [:])
          == NSDictionary(dictionary: plain["facets"] as? [String: Any] ?? [:]))
      #expect((plain["matched"] as? Int ?? 0) > expected.matched, "\(query)")
    }
    let (status, error) = try await Self.get(server, "/catalogs/products/search?distinct=colour")
    #expect(status == .badRequest)
    #expect(
      error["error"] as? String
        == "distinct: cannot keep one result per \"colour\": catalog products groups by title, year, price, type"
    )
  }

  @Test("GET /catalogs/NAME/facets/FIELD: the category's values that match q, counted in a search")
  func facetValues() async throws {
    let (server, stores, folder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    func values(_ json: [String: Any]) -> [String] {
      (json["values"] as? [[String: Any]] ?? []).map {
        "\($0["value"] as? String ?? "") \($0["count"] as? Int ?? -1)"
      }
    }
    // Every category, most items first; by its field's name, its label or `category`.
    for field in ["type", "Type", "category"] {
      let (status, json) = try await Self.get(server, "/catalogs/products/facets/\(field)")
      #expect(status == .ok, "\(field)")
      #expect(values(json) == ["Weddings 6", "Birthdays 5", "Funerals 4"])
      #expect(json["field"] as? String == "type" && json["matched"] as? Int == 15)
    }
    #expect(
      values(try await Self.get(server, "/catalogs/products/facets/type?q=fun").json) == [
        "Funerals 4"
      ])
    // Near spellings, only when nothing matches as written.
    #expect(
      values(try await Self.get(server, "/catalogs/products/facets/type?q=weddngs").json)
        == ["Weddings 6"])
    // Counted in the search the parameters describe, as the session counts its facets.
    let counted = try await Self.get(
      server, "/catalogs/products/facets/type?search=rose&token=year:%3E%3D2010&limit=1"
    ).json
    var controller = SearchController(
      collection: try CatalogSession(store: stores["products"]!).collection)
    try controller.apply(SearchRequestInput(text: "rose", tokens: ["year:>=2010"]))
    let facets = controller.facets
    let best = try #require(facets.namedCategories(schema: controller.schema).first)
    #expect(values(counted) == ["\(best.value) \(best.count)"])
    #expect(counted["matched"] as? Int == controller.rows.count)
    for (query, message) in [
      ("year", "facets/year: not a category of catalog products; its category is type"),
      ("type?limit=0", "limit: \"0\" is not a whole number from 1 to 1000"),
      (
        "type?search=a&scope=nope",
        "scope: no scope \"nope\" in catalog products; its scopes are All, Birthdays, Weddings, Funerals"
      ),
      (
        "type?q=" + String(repeating: "a", count: 1_001),
        "q: 1001 characters, more than the 1000 a query may have"
      ),
    ] {
      let (status, error) = try await Self.get(server, "/catalogs/products/facets/\(query)")
      #expect(status == .badRequest, "\(query)")
      #expect(error["error"] as? String == message, "\(query)")
    }
  }

  @Test(
    "search equals the session sift search uses, for the seed scenarios",
    arguments: [
      ("products", "q=rose+2010", SearchRequestInput(text: "rose 2010")),
      ("products", "q=2007", SearchRequestInput(text: "2007")),
      ("products", "q=-rose+price:%3C30", SearchRequestInput(text: "-rose price:<30")),
      ("products", "q=rosse", SearchRequestInput(text: "rosse")),
      ("products", "token=year:%3E%3D2010", SearchRequestInput(text: "", tokens: ["year:>=2010"])),
      ("candies", "scope=chocolate", SearchRequestInput(text: "", scope: "chocolate")),
      ("candies", "q=c&scope=Other", SearchRequestInput(text: "c", scope: "Other")),
      (
        "media", "q=the&token=category:Movies",
        SearchRequestInput(text: "the", tokens: ["category:Movies"])
      ),
      ("products", "q=%D9%A2%D9%A0%D9%A1%D9%A0", SearchRequestInput(text: "٢٠١٠")),
      ("products", "", SearchRequestInput(text: "")),
    ])
  func sameAsSession(_ catalog: String, _ query: String, _ input: SearchRequestInput) async throws {
    let (server, stores, folder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let expected = try Self.expected(stores[catalog]!, input)
    let (status, json) = try await Self.get(
      server, "/catalogs/\(catalog)/search?\(query)&limit=1000")
    #expect(status == .ok)
    let results = json["results"] as? [[String: Any]] ?? []
    #expect(results.compactMap { idText($0["id"]) } == expected.ids, "\(query)")
    #expect(json["indicator"] as? String == expected.indicator)
    #expect(json["matched"] as? Int == expected.matched)
    #expect(json["total"] as? Int == 15 || catalog == "media")
  }

  @Test("a page: limit and offset cut the same order; each result has its fields and highlights")
  func paging() async throws {
    let (server, _, folder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let all = try await Self.get(server, "/catalogs/products/search?q=r&limit=1000").json
    let page = try await Self.get(server, "/catalogs/products/search?q=r&limit=2&offset=1").json
    let ids = (all["results"] as? [[String: Any]] ?? []).compactMap { idText($0["id"]) }
    let paged = (page["results"] as? [[String: Any]] ?? []).compactMap { idText($0["id"]) }
    #expect(ids.count > 3 && paged == Array(ids[1..<3]))
    #expect(page["offset"] as? Int == 1 && page["matched"] as? Int == ids.count)
    let rose = try await Self.get(server, "/catalogs/products/search?q=red+rose").json
    let first = (rose["results"] as? [[String: Any]])?.first ?? [:]
    #expect(first["title"] as? String == "Red Rose")
    #expect(first["year"] as? Double == 2010 && first["type"] as? String == "Funerals")
    let highlights = first["highlights"] as? [[String: Any]] ?? []
    #expect(highlights.first?["field"] as? String == "title")
    #expect(highlights.first?["ranges"] as? [[Int]] == [[0, 3], [4, 8]])
    let beyond = try await Self.get(server, "/catalogs/products/search?q=r&offset=500").json
    #expect((beyond["results"] as? [Any])?.isEmpty == true)
  }

  @Test("q=rose | tulip: either, each result highlighted where its alternative matched")
  func eitherOfTwo() async throws {
    let (server, _, folder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let answer = try await Self.get(
      server, "/catalogs/products/search?q=rose%20%7C%20tulip&explain=1&facets=1")
    #expect(answer.status == .ok)
    let results = answer.json["results"] as? [[String: Any]] ?? []
    #expect(results.compactMap { $0["title"] as? String } == ["Tulip", "Red Rose", "White Rose"])
    let ranges = results.map {
      ($0["highlights"] as? [[String: Any]])?.first?["ranges"] as? [[Int]]
    }
    #expect(ranges == [[[0, 5]], [[4, 8]], [[6, 10]]])
    #expect(answer.json["matched"] as? Int == 3)
    let dangling = try await Self.get(server, "/catalogs/products/search?q=rose%20%7C").json
    #expect(
      dangling["diagnostics"] as? [String]
        == ["column 6: `|` needs a term on each side (`rose | tulip`); ignored"], "\(dangling)")
  }

  @Test("/catalogs/NAME/pins: GET, PUT, POST and DELETE for an edit token; a search shows them")
  func pins() async throws {
    let (server, _, folder) = try Self.server(token: "secret")
    defer { try? FileManager.default.removeItem(at: folder) }
    let app = Application(router: server.router())
    try await app.test(.router) { client in
      func send(
        _ method: HTTPRequest.Method, _ uri: String, _ body: String = "",
        token: String? = "secret"
      ) async throws -> (Int, String) {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(
          uri: uri, method: method, headers: headers, body: ByteBuffer(string: body)
        ) { (Int($0.status.code), String(buffer: $0.body)) }
      }
      func titles(_ query: String) async throws -> [String] {
        let (_, body) = try await send(.get, "/catalogs/products/search?q=\(query)", token: nil)
        let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        return (json?["results"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
      }
      #expect(try await titles("rose") == ["Red Rose", "White Rose"])
      #expect(try await send(.get, "/catalogs/products/pins", token: nil).0 == 401)
      #expect(try await send(.get, "/catalogs/products/pins") == (200, #"{"pins":[]}"#))
      // Ginger (1) first for "rose", White Rose (15) hidden.
      let pinned = try await send(
        .post, "/catalogs/products/pins", #"{"query": "Rose", "id": "1", "at": 1}"#)
      #expect(pinned.0 == 200, "\(pinned.1)")
      #expect(pinned.1.hasPrefix(#"{"pins":[{"query":"Rose","id":"1","at":1}],"version":"#))
      let hidden = try await send(
        .post, "/catalogs/products/pins", #"{"query": "rose", "id": "15", "hidden": true}"#)
      #expect(hidden.0 == 200)
      #expect(try await titles("rose") == ["Ginger", "Red Rose"])
      #expect(try await titles("rose%20") == ["Ginger", "Red Rose"])
      let explained = try await send(
        .get, "/catalogs/products/search?q=rose&explain=1", token: nil)
      #expect(explained.1.contains(#""pinned":true"#))
      // Faults name what is wrong; nothing changes.
      for (method, body, status, message) in [
        (
          HTTPRequest.Method.post, #"{"query": "rose", "id": "999", "at": 1}"#, 400,
          #"{"error":"id: no item \"999\" in catalog products"}"#
        ),
        (
          .post, #"{"query": " ", "id": "1", "at": 1}"#, 400,
          #"{"error":"the query has no word to pin for"}"#
        ),
        (
          .put, #"{"pins": [{"query": "a", "id": "1", "at": 5000}]}"#, 400,
          #"{"error":"pins[0]: at: 5000 is past row 1000, the last a pin may take"}"#
        ),
        (
          // PUT names items as POST does: one the catalog lacks is refused, nothing replaced.
          .put,
          #"{"pins": [{"query": "a", "id": "1", "at": 1}, {"query": "b", "id": "nope", "at": 2}]}"#,
          400, #"{"error":"pins[1].id: no item \"nope\" in catalog products"}"#
        ),
      ] {
        let answer = try await send(method, "/catalogs/products/pins", body)
        #expect(answer.0 == status && answer.1 == message, "\(body)")
      }
      #expect(try await send(.post, "/catalogs/products/pins", "{}", token: nil).0 == 401)
      let removed = try await send(.delete, "/catalogs/products/pins?query=ROSE&id=15")
      #expect(removed.0 == 200)
      #expect(try await titles("rose") == ["Ginger", "Red Rose", "White Rose"])
      let missing = try await send(.delete, "/catalogs/products/pins?query=rose&id=15")
      #expect(missing == (404, #"{"error":"no pin of \"15\" for \"rose\" in catalog products"}"#))
      let replaced = try await send(.put, "/catalogs/products/pins", #"{"pins": []}"#)
      #expect(replaced.0 == 200)
      #expect(try await titles("rose") == ["Red Rose", "White Rose"])
    }
  }

  @Test("GET and PUT /catalogs/NAME/synonyms: writes need the token, faults name the entry")
  func synonyms() async throws {
    let (server, stores, folder) = try Self.server(token: "secret")
    defer { try? FileManager.default.removeItem(at: folder) }
    let app = Application(router: server.router())
    try await app.test(.router) { client in
      func put(_ body: String, token: String? = "secret") async throws -> (Int, String) {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(
          uri: "/catalogs/products/synonyms", method: .put, headers: headers,
          body: ByteBuffer(string: body)
        ) { (Int($0.status.code), String(buffer: $0.body)) }
      }
      let empty = try await client.execute(uri: "/catalogs/products/synonyms", method: .get) {
        String(buffer: $0.body)
      }
      #expect(empty == "{\"synonyms\":[]}")
      let body =
        "{\"synonyms\":[{\"expressions\":[\"flower\",\"rose\"]},{\"expressions\":[\"bloom\"],\"to\":[\"daisy\"]}]}"
      #expect(try await put(body, token: nil).0 == 401)
      #expect(try await put(body, token: "wrong").0 == 401)
      let one = try await put(
        "{\"synonyms\":[{\"expressions\":[\"flower\",\"rose\"]},{\"expressions\":[\"sofa\"]}]}")
      #expect(one.0 == 400)
      #expect(
        one.1
          == "{\"error\":\"synonyms[1]: a synonym group needs two expressions or more (`sofa couch`); for one that only finds another, use `--to`\"}"
      )
      #expect(try await put("[1, 2]").0 == 400)
      let saved = try await put(body)
      // With the catalog's version after the change.
      #expect(saved.0 == 200 && saved.1.hasPrefix(body.dropLast() + ",\"version\":"), "\(saved.1)")
      let found = try await client.execute(
        uri: "/catalogs/products/search?q=flower&explain=1", method: .get
      ) { String(buffer: $0.body) }
      #expect(found.contains("\"via_synonym\":\"flower → rose\""), "\(found)")
    }
    // Saved in the catalog: a store opened afresh reads them.
    let reopened = try CatalogStore.open(at: stores["products"]!.url)
    defer { try? reopened.close() }
    #expect(try reopened.loadSchema().synonyms.entries.count == 2)
  }

  @Test("sort=FIELD:desc lists by that field, relevance breaking ties; a bad sort is a 400")
  func sorted() async throws {
    let (server, _, folder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let json = try await Self.get(server, "/catalogs/products/search?sort=price:desc&limit=4").json
    let titles = (json["results"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
    #expect(titles == ["Gladiolus", "Ginger", "Tulip", "Poinsettia Red"])
    #expect(json["sort"] as? String == "price:desc")
    #expect(json["indicator"] as? String == "15 items")
    let roses = try await Self.get(server, "/catalogs/products/search?q=rose&sort=Title").json
    let rosesTitles = (roses["results"] as? [[String: Any]] ?? []).compactMap {
      $0["title"] as? String
    }
    #expect(rosesTitles == ["Red Rose", "White Rose"])
    #expect(roses["sort"] as? String == "title:asc")
    // A search the server remembers unsorted is not the start of a sorted one.
    _ = try await Self.get(server, "/catalogs/products/search?q=ros")
    let newest = try await Self.get(server, "/catalogs/products/search?q=rose&sort=year:desc").json
    let newestTitles = (newest["results"] as? [[String: Any]] ?? []).compactMap {
      $0["title"] as? String
    }
    #expect(newestTitles == ["White Rose", "Red Rose"])
    let (status, error) = try await Self.get(server, "/catalogs/products/search?sort=type")
    #expect(status == .badRequest)
    #expect(
      error["error"] as? String
        == "sort: cannot sort by \"type\": catalog products sorts by title, year, price (FIELD, FIELD:asc or FIELD:desc)"
    )
    let (badStatus, bad) = try await Self.get(server, "/catalogs/products/search?sort=price:up")
    #expect(badStatus == .badRequest)
    #expect(bad["error"] as? String == "sort: \"price:up\" is not FIELD, FIELD:asc or FIELD:desc")
    let list = try await Self.get(server, "/catalogs").json
    let products = (list["catalogs"] as? [[String: Any]] ?? []).first {
      $0["name"] as? String == "products"
    }
    #expect(products?["sortable"] as? [String] == ["title", "year", "price"])
  }

  @Test(
    "near=LAT,LON&within=KM: by distance after typos, word starts and the title, distance_km on each; faults are 400s"
  )
  func near() async throws {
    let (server, store, folder) = try Self.towns([
      ("1", "Springfield", 42.1015, -72.5898), ("2", "Springfield", 39.8017, -89.6437),
      ("3", "Springfield Gardens", 40.6632, -73.7624), ("4", "Shelbyville", 39.4064, -88.79),
    ])
    defer { try? FileManager.default.removeItem(at: folder) }
    func ids(_ json: [String: Any]) -> [String] {
      (json["results"] as? [[String: Any]] ?? []).compactMap { idText($0["id"]) }
    }
    let near = try await Self.get(
      server, "/catalogs/towns/search?q=springfield%20&near=39.78,-89.65&explain=1"
    ).json
    // Each title holds the word: nearest first, the start "Springfield Gardens" (1,350 km)
    // before the equal "Springfield" in Massachusetts (1,430 km).
    #expect(ids(near) == ["2", "3", "1"])
    let first = (near["results"] as? [[String: Any]])?.first
    let distance = try #require(first?["distance_km"] as? Double)
    #expect(abs(distance - 2.4) < 0.1)
    let explain = first?["explain"] as? [String: Any]
    #expect(explain?["distance_km"] as? Double == distance)
    #expect(explain?["ahead_of_next"] as? String == "distance")
    // The same as the session's answer.
    let input = SearchRequestInput(
      text: "springfield ", near: SearchNear(try GeoPoint(latitude: 39.78, longitude: -89.65)))
    #expect(ids(near) == (try Self.expected(store, input)).ids)
    let within = try await Self.get(
      server, "/catalogs/towns/search?near=39.78,-89.65&within=200&sort=distance"
    ).json
    #expect(ids(within) == ["2", "4"])
    #expect(within["indicator"] as? String == "Items found: 2")
    // within_box: the towns inside, as the session answers; with near, nearest first.
    let box = try await Self.get(
      server, "/catalogs/towns/search?q=springfield&within_box=39,-90,41,-73&near=42,-72.6"
    ).json
    #expect(ids(box) == ["3", "2"])
    #expect(box["indicator"] as? String == "Items found: 2")
    let boxInput = SearchRequestInput(
      text: "springfield", near: SearchNear(try GeoPoint(latitude: 42, longitude: -72.6)),
      withinBox: try GeoBox(south: 39, west: -90, north: 41, east: -73))
    #expect(ids(box) == (try Self.expected(store, boxInput)).ids)
    let list = try await Self.get(server, "/catalogs").json
    let towns = (list["catalogs"] as? [[String: Any]])?.first
    #expect((towns?["location"] as? [String: String]) == ["latitude": "lat", "longitude": "lon"])
    for (query, message) in [
      ("near=91,0", "near: latitude 91 is outside -90…90"),
      ("near=here", "near: \"here\" is not LAT,LON (two decimal numbers, e.g. 39.78,-89.65)"),
      ("within=5", "within: needs near=LAT,LON"),
      (
        "within_box=1,2,3",
        "within_box: \"1,2,3\" is not SOUTH,WEST,NORTH,EAST (four numbers in degrees, e.g. 45.7,5.9,47.8,10.5)"
      ),
      ("within_box=0,-200,1,1", "within_box: longitude -200 is outside -180…180"),
      (
        "near=1,1&within=far", "within: \"far\" is not a radius in kilometres (a number, 0 or more)"
      ),
      (
        "sort=distance",
        "sort: a sort by distance needs a place to measure from (--near LAT,LON, near=LAT,LON)"
      ),
    ] {
      let (status, error) = try await Self.get(server, "/catalogs/towns/search?\(query)")
      #expect(status == .badRequest, "\(query)")
      #expect(error["error"] as? String == message, "\(query)")
    }
    let (products, _, productsFolder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: productsFolder) }
    let (status, error) = try await Self.get(products, "/catalogs/products/search?near=1,1")
    #expect(status == .badRequest)
    #expect(
      error["error"] as? String
        == "near: catalog products has no location to be near: import it with --location LAT_FIELD,LON_FIELD"
    )
    let boxed = try await Self.get(products, "/catalogs/products/search?within_box=0,0,1,1")
    #expect(boxed.status == .badRequest)
    #expect(
      (boxed.json["error"] as? String)?.hasPrefix("within_box: catalog products has no location")
        == true)
  }

  @Test("GET /search searches several catalogs in one round trip, each answer under its name")
  func severalCatalogs() async throws {
    let (server, _, folder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (status, json) = try await Self.get(
      server, "/search?catalog=products&catalog=candies&q=c&facets=1&limit=2")
    #expect(status == .ok)
    let answers = json["catalogs"] as? [String: Any] ?? [:]
    #expect(answers.keys.sorted() == ["candies", "products"])
    // Each answer is what the catalog's own search gives for the same parameters.
    for name in ["products", "candies"] {
      let alone = try await Self.get(server, "/catalogs/\(name)/search?q=c&facets=1&limit=2").json
      let together = answers[name] as? [String: Any] ?? [:]
      #expect(
        try JSONSerialization.data(withJSONObject: together, options: .sortedKeys)
          == JSONSerialization.data(withJSONObject: alone, options: .sortedKeys), "\(name)")
      #expect((together["results"] as? [Any])?.count == 2 && together["facets"] != nil)
    }
    let (missing, noCatalog) = try await Self.get(server, "/search?q=c")
    #expect(missing == .badRequest)
    #expect(
      noCatalog["error"] as? String
        == "catalog: name the catalogs to search (catalog=NAME, repeatable)")
    let (unknown, nope) = try await Self.get(server, "/search?catalog=products&catalog=nope&q=c")
    #expect(unknown == .notFound)
    #expect((nope["error"] as? String)?.hasPrefix("catalog: no catalog named \"nope\"") == true)
    let (twice, _) = try await Self.get(server, "/search?catalog=products&catalog=products")
    #expect(twice == .badRequest)
    // A scope one of them lacks: the error names that catalog.
    let (scoped, scope) = try await Self.get(
      server, "/search?catalog=candies&catalog=products&scope=Chocolate")
    #expect(scoped == .badRequest)
    #expect(
      (scope["error"] as? String)?.hasPrefix(
        "catalog products: scope: no scope \"Chocolate\" in catalog products") == true,
      "\(scope)")
  }

  @Test("many GET /search at once: every answer is filed under the catalog it answers for")
  func severalCatalogsAtOnce() async throws {
    let (server, _, folder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let app = Application(router: server.router())
    let misfiled = try await app.test(.router) { client in
      try await withThrowingTaskGroup(of: [String].self) { group in
        for round in 0..<48 {
          let order = ["products", "candies", "media"].shuffled()
          let query = ["rose", "r", "c", "the", "a"][round % 5]
          group.addTask {
            let uri =
              "/search?" + order.map { "catalog=\($0)" }.joined(separator: "&")
              + "&q=\(query)&limit=\(round % 2)"
            return try await client.execute(uri: uri, method: .get) { response in
              let json =
                try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
                as? [String: Any]
              let answers = json?["catalogs"] as? [String: [String: Any]] ?? [:]
              #expect(answers.count == 3, "\(uri)")
              return answers.compactMap { name, answer in
                answer["catalog"] as? String == name ? nil : "\(uri): \(name)"
              }
            }
          }
        }
        var all: [String] = []
        for try await wrong in group { all += wrong }
        return all
      }
    }
    #expect(misfiled.isEmpty, "\(misfiled.prefix(5))")
  }

  @Test("facets=1 adds the scope bar's and the categories' counts and the number ranges")
  func facets() async throws {
    let (server, _, folder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let json = try await Self.get(server, "/catalogs/candies/search?q=c&facets=1&limit=0").json
    let facets = json["facets"] as? [String: Any] ?? [:]
    let scopes = (facets["scopes"] as? [[String: Any]] ?? []).map {
      "\($0["title"] as? String ?? "") \($0["count"] as? Int ?? -1)"
    }
    #expect(scopes.first?.hasPrefix("All ") == true && scopes.count == 4)
    #expect((json["results"] as? [Any])?.isEmpty == true)
    // A price slider's ends: each number field's smallest and largest value among the matches.
    let products = try await Self.get(server, "/catalogs/products/search?q=rose&facets=1").json
    let ranges = (products["facets"] as? [String: Any])?["ranges"] as? [[String: Any]] ?? []
    #expect(
      ranges.map { "\($0["field"] ?? "") \($0["min"] ?? "")–\($0["max"] ?? "")" } == [
        "year 2010–2012", "price 24.99–24.99",
      ])
  }

  @Test("GET /catalogs lists each catalog with its schema")
  func catalogList() async throws {
    let (server, _, folder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (status, json) = try await Self.get(server, "/catalogs")
    #expect(status == .ok)
    let catalogs = json["catalogs"] as? [[String: Any]] ?? []
    #expect(catalogs.compactMap { $0["name"] as? String } == ["candies", "media", "products"])
    let candies = catalogs.first ?? [:]
    #expect(candies["scopes"] as? [String] == ["All", "Chocolate", "Hard", "Other"])
    #expect(candies["titleField"] as? String == "name")
    #expect((candies["fields"] as? [[String: Any]])?.first?["kind"] as? String == "text")
  }

  @Test("explain=1 gives each result the ranking rules' values, in the results' order")
  func explain() async throws {
    let (server, stores, folder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let json = try await Self.get(server, "/catalogs/media/search?q=the&explain=1&limit=5").json
    let results = json["results"] as? [[String: Any]] ?? []
    #expect(!results.isEmpty)
    // The same values the engine gives for those rows.
    var controller = SearchController(
      collection: try CatalogSession(store: stores["media"]!).collection)
    try controller.apply(SearchRequestInput(text: "the"))
    for (row, result) in results.enumerated() {
      let explain = result["explain"] as? [String: Any] ?? [:]
      let expected = controller.collection.explanation(forRow: row)
      #expect(explain["typos"] as? Int == expected?.rank.typos)
      #expect(explain["exactness"] as? String == expected?.rank.exactness.name)
      #expect(explain["field"] as? String == expected?.field)
      #expect(explain["catalog_order"] as? Int64 == expected?.catalogOrder)
    }
    let plain = try await Self.get(server, "/catalogs/media/search?q=the&limit=5").json
    #expect((plain["results"] as? [[String: Any]])?.allSatisfy { $0["explain"] == nil } == true)
  }

  @Test("suggestions offer tokens for the word typed; didYouMean the word nearest a miss")
  func suggestionsAndDidYouMean() async throws {
    let (server, _, folder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    func offered(_ query: String) async throws -> [String] {
      let json = try await Self.get(server, "/catalogs/products/search?\(query)&limit=0").json
      return (json["suggestions"] as? [[String: Any]] ?? []).compactMap {
        $0["identifier"] as? String
      }
    }
    #expect(
      try await offered("q=%23") == [
        // Most items first: Weddings 6, Birthdays 5, Funerals 4; then the tokens that are no
        // category, in the catalog's order.
        "category:Weddings", "category:Birthdays", "category:Funerals", "price:<20", "year:>=2010",
      ])
    // Within the roses only Funerals keeps a result; the others come after the year tokens.
    #expect(
      try await offered("q=rose+%23") == [
        "category:Funerals", "price:<20", "year:>=2010", "category:Birthdays", "category:Weddings",
      ])
    #expect(try await offered("q=wed") == ["category:Weddings"])
    #expect(try await offered("q=wed&token=category:Weddings") == [])
    #expect(try await offered("q=w") == [])
    // "#bir" asks for a token: the rows stay those of the rest of the text.
    let asking = try await Self.get(server, "/catalogs/products/search?q=rose+%23bir").json
    #expect(asking["matched"] as? Int == 2)
    let missed = try await Self.get(server, "/catalogs/candies/search?q=carmel&scope=Chocolate")
    #expect(missed.json["didYouMean"] as? String == "caramel")
    let found = try await Self.get(server, "/catalogs/candies/search?q=caramel")
    #expect(found.json["didYouMean"] == nil)
  }

  @Test("GET /catalogs/NAME/items/ID answers the item as the file holds it")
  func oneItem() async throws {
    let (server, stores, folder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (status, json) = try await Self.get(server, "/catalogs/products/items/14")
    #expect(status == .ok)
    let item = try stores["products"]!.item(id: ItemID("14"))
    #expect(json["title"] as? String == item?[("title")]?.displayText)
    #expect(json["year"] as? Int == 2010 && json["type"] as? String == "Funerals")
  }

  @Test(
    "bad requests get their status and a message naming the part at fault",
    arguments: [
      ("/catalogs/nope/search?q=a", 404, "no catalog named \"nope\""),
      ("/catalogs/..%2F..%2Fetc%2Fpasswd/search", 404, "no catalog named"),
      ("/catalogs/products/search?q=%FF%FE", 400, "q: not valid UTF-8"),
      ("/catalogs/products/search?q=%E2%82", 400, "q: not valid UTF-8"),
      ("/catalogs/products/search?q=%G1", 400, "q: a malformed % escape"),
      ("/catalogs/products/search?q=abc%", 400, "q: a malformed % escape"),
      ("/catalogs/products/search?limit=abc", 400, "limit: \"abc\" is not a whole number"),
      ("/catalogs/products/search?limit=5000", 400, "limit:"),
      ("/catalogs/products/search?offset=-1", 400, "offset:"),
      ("/catalogs/products/search?facets=maybe", 400, "facets:"),
      ("/catalogs/products/search?explain=2", 400, "explain: \"2\" is not 1 or 0"),
      ("/catalogs/products/items/999", 404, "no item \"999\" in catalog products"),
      ("/catalogs/candies/search?scope=Nope", 400, "scope: no scope \"Nope\" in catalog candies"),
      ("/catalogs/products/search?token=nope:3", 400, "token: invalid token \"nope:3\""),
      ("/catalogs/products/search?token=price:%3C", 400, "token: invalid token \"price:<\""),
      (
        "/catalogs/products/search?q=" + String(repeating: "a", count: 1_001), 400,
        "q: 1001 characters"
      ),
      // What a hostile client asks to make a search cost a catalog's worth of work, bounded.
      (
        "/catalogs/products/search?offset=100000&limit=1000&distinct=type", 400,
        "offset: 100000 + limit 1000 reach past result 10,000, the deepest a search pages to"
      ),
      ("/catalogs/products/search?offset=9000&limit=1000", 200, ""),
      (
        "/catalogs/products/search?q="
          + (0..<40).map { "w\($0)" }.joined(separator: "+%7C+"), 400,
        "q: 40 alternatives (| or OR), more than the 32 a search may have"
      ),
      (
        "/catalogs/products/search?q=" + (0..<32).map { "w\($0)" }.joined(separator: "+OR+"),
        200, ""
      ),
      ("/nowhere", 404, "no such path"),
    ])
  func badRequests(_ uri: String, _ status: Int, _ message: String) async throws {
    let (server, _, folder) = try Self.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (answered, json) = try await Self.get(server, uri)
    #expect(answered.code == status, "\(uri)")
    let error = json["error"] as? String ?? ""
    #expect(message.isEmpty ? error.isEmpty : error.contains(message), "\(uri): \(error)")
    // And the server answers the next request as before.
    #expect(try await Self.get(server, "/catalogs/products/search?q=rose").status == .ok)
  }
}
#endif
