import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// Near a place: the relevance order with distance ranked right after typos, whether every term
/// starts a word, and whether the title holds the match (`MatchRank.nearClass`) — the reference
/// is that order stably sorted by (that class, distance), with a haversine of the test's own; a
/// radius keeps only what is within it.
@Suite("Near a place", .tags(.unit))
struct NearTests {
  static let schema: CatalogSchema = {
    var schema = EnginePropertyTests.schema
    schema.fields += [
      .number("lat", searchable: false), .number("lon", searchable: false),
    ]
    schema.location = LocationFields(latitude: "lat", longitude: "lon")
    return schema
  }()

  /// A few towns' centres: items cluster around them, so distances tie and differ by little.
  static let centres = [(48.85, 2.35), (39.78, -89.65), (-33.87, 151.21), (0, 179.99)]

  static func randomItem(_ id: Int, using random: inout SplitMix64) -> Item {
    var item = EnginePropertyTests.randomItem(id, using: &random)
    switch Int.random(in: 0..<6, using: &random) {
    case 0: break  // no location
    case 1:
      // Exactly on a centre: ties on distance.
      let centre = centres.randomElement(using: &random)!
      item.fields["lat"] = .number(centre.0)
      item.fields["lon"] = .number(centre.1)
    default:
      let centre = centres.randomElement(using: &random)!
      item.fields["lat"] = .number(centre.0 + Double.random(in: -2...2, using: &random))
      item.fields["lon"] = .number(
        min(180, centre.1 + Double.random(in: -2...2, using: &random)))
    }
    return item
  }

  static func randomPlace(using random: inout SplitMix64) throws -> GeoPoint {
    let centre = centres.randomElement(using: &random)!
    return try GeoPoint(
      latitude: centre.0 + Double.random(in: -1...1, using: &random),
      longitude: min(180, centre.1 + Double.random(in: -1...1, using: &random)))
  }

  /// The test's own great-circle distance in whole metres (haversine on a sphere of 6,371 km).
  static func meters(_ item: Item, from place: GeoPoint) -> Int? {
    guard case .number(let latitude) = item["lat"], case .number(let longitude) = item["lon"]
    else { return nil }
    let radians = Double.pi / 180
    let dLat = (latitude - place.latitude) * radians
    let dLon = (longitude - place.longitude) * radians
    let h =
      pow(sin(dLat / 2), 2) + cos(place.latitude * radians) * cos(latitude * radians)
      * pow(sin(dLon / 2), 2)
    return Int((2 * 6_371_000 * asin(min(1, h.squareRoot())) + 0.5).rounded(.down))
  }

  /// The reference: `relevance` (ids best first, with their ranks) stably sorted by the rank's
  /// class near a place, then distance (none last); with `byDistanceAlone`, by distance alone.
  static func reference(
    _ relevance: [(id: ItemID, rank: MatchRank)], items: [Item], place: GeoPoint,
    withinMeters: Int? = nil, byDistanceAlone: Bool = false, descending: Bool = false
  ) -> [ItemID] {
    let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
    let kept = relevance.filter { entry in
      guard let radius = withinMeters else { return true }
      return meters(byID[entry.id]!, from: place).map { $0 <= radius } ?? false
    }
    func key(_ entry: (id: ItemID, rank: MatchRank)) -> (UInt16, Int) {
      let distance = meters(byID[entry.id]!, from: place)
      let level = byDistanceAlone ? 0 : MatchRank.nearClass(entry.rank.packed)
      guard let distance else { return (level, .max) }
      return (level, descending ? -distance : distance)
    }
    return kept.enumerated().sorted { a, b in
      let (keyA, keyB) = (key(a.element), key(b.element))
      if keyA != keyB { return keyA < keyB }
      return a.offset < b.offset
    }.map(\.element.id)
  }

  static func relevance(_ collection: FilteredCollection) -> [(id: ItemID, rank: MatchRank)] {
    collection.rows.indices.map { (collection.rows[$0], collection.rank(atRow: $0)!) }
  }

  @Test(
    "near a place: the relevance order stably sorted by typos, word starts and title, then distance"
  )
  func nearEqualsReference() throws {
    let seed: UInt64 = 20_261_126
    print("near seed \(seed)")
    var random = SplitMix64(seed: seed)
    var radiusRounds = 0
    for round in 0..<1_000 {
      let items = (0..<Int.random(in: 0...40, using: &random)).map {
        Self.randomItem($0, using: &random)
      }
      // With a radius, exact matches only: which near spellings are looked for depends on
      // how many exact matches the radius keeps, which the plain relevance order cannot say.
      let radius: Double? =
        round % 3 == 0 ? [0, 50, 150, 400, 1_000].randomElement(using: &random)! : nil
      var collection = try FilteredCollection(
        schema: Self.schema, items: items, typoTolerance: radius == nil ? .automatic : .off)
      var criteria = SearchCriteria(
        text: EnginePropertyTests.randomQuery(using: &random),
        tokens: EnginePropertyTests.randomTokens(using: &random),
        scopeIndex: Int.random(in: 0..<5, using: &random))
      collection.filter(by: criteria)
      let relevance = Self.relevance(collection)
      let place = try Self.randomPlace(using: &random)
      criteria.near = SearchNear(place, withinKilometers: radius)
      collection.filter(by: criteria)
      let expected = Self.reference(
        relevance, items: items, place: place,
        withinMeters: radius.map { Int($0 * 1000) })
      #expect(Array(collection.rows) == expected, "round \(round): \(criteria)")
      if radius != nil, !expected.isEmpty { radiusRounds += 1 }
      // The rows say how far each is, as the test measures it.
      for row in collection.rows.indices.prefix(3) {
        let item = collection.element(atRow: row)!
        #expect(
          Self.schema.kilometers(of: item, from: criteria.near)
            == Self.meters(item, from: place).map { Double($0) / 1000 })
      }
    }
    #expect(radiusRounds > 30, "\(radiusRounds) rounds kept something within a radius")
  }

  @Test("sorted by distance: the relevance order stably sorted by distance, either way")
  func sortedByDistance() throws {
    var random = SplitMix64(seed: 77)
    for round in 0..<400 {
      let items = (0..<Int.random(in: 0...40, using: &random)).map {
        Self.randomItem($0, using: &random)
      }
      var collection = try FilteredCollection(schema: Self.schema, items: items)
      var criteria = SearchCriteria(text: EnginePropertyTests.randomQuery(using: &random))
      collection.filter(by: criteria)
      let relevance = Self.relevance(collection)
      let place = try Self.randomPlace(using: &random)
      let descending = Bool.random(using: &random)
      criteria.near = SearchNear(place)
      criteria.sort = SearchSort("distance", descending: descending)
      collection.filter(by: criteria)
      #expect(
        Array(collection.rows)
          == Self.reference(
            relevance, items: items, place: place, byDistanceAlone: true, descending: descending),
        "round \(round): \(criteria)")
    }
  }

  @Test(
    "many matches: the first page, a later page and the whole list follow the reference",
    arguments: ["", "a", "rose", "da n", "r"])
  func manyMatches(query: String) throws {
    var random = SplitMix64(seed: 4243)
    let items = (0..<3_000).map { Self.randomItem($0, using: &random) }
    var collection = try FilteredCollection(schema: Self.schema, items: items)
    collection.filter(by: SearchCriteria(text: query))
    let relevance = Self.relevance(collection)
    let place = try GeoPoint(latitude: 48.9, longitude: 2.4)
    let expected = Self.reference(relevance, items: items, place: place)
    collection.filter(by: SearchCriteria(text: query, near: SearchNear(place)))
    // Only the first rows are put in order at once; later ones when read.
    if expected.count > 256 { #expect(collection.matches.orderedCount < expected.count) }
    #expect(collection.ids(atRows: 0..<20) == Array(expected.prefix(20)), "\(query)")
    #expect(collection.ids(atRows: 1_000..<1_020) == Array(expected.dropFirst(1_000).prefix(20)))
    #expect(Array(collection.rows) == expected, "\(query) near \(place)")
  }

  @Test("many at one spot: ties of exactness and distance go to the attribute, past a page")
  func tiesPastAPage() throws {
    // 300 items named otherwise with "rose" as a tag, then 300 titled "rose": all equal the
    // query at the same distance, and the titles come first (attribute) though later in order.
    let items = (0..<600).map { index in
      Item(
        id: ItemID(String(index)),
        fields: [
          "title": .text(index < 300 ? "thing \(index)" : "rose"),
          "tags": .texts(index < 300 ? ["rose"] : []), "lat": .number(10), "lon": .number(10),
        ])
    }
    var collection = try FilteredCollection(schema: Self.schema, items: items)
    collection.filter(by: SearchCriteria(text: "rose"))
    let relevance = Self.relevance(collection)
    let place = try GeoPoint(latitude: 10.5, longitude: 10)
    collection.filter(by: SearchCriteria(text: "rose", near: SearchNear(place)))
    let expected = Self.reference(relevance, items: items, place: place)
    #expect(expected.first == "300")
    #expect(collection.ids(atRows: 0..<200) == Array(expected.prefix(200)))
    #expect(Array(collection.rows) == expected)
  }

  @Test("edits near a place land where a search from scratch puts them, and replay")
  func editsNearAPlace() throws {
    var random = SplitMix64(seed: 98)
    for round in 0..<40 {
      let items = (0..<Int.random(in: 1...30, using: &random)).map {
        Self.randomItem($0, using: &random)
      }
      let criteria = SearchCriteria(
        text: ["", "a", "rose", "da"].randomElement(using: &random)!,
        near: SearchNear(
          try Self.randomPlace(using: &random), withinKilometers: round % 2 == 0 ? 200 : nil))
      try EditReplay.check(
        items, schema: Self.schema, criteria: criteria, round: round,
        newItem: { Self.randomItem($0, using: &$1) }, using: &random)
    }
  }

  @Test("a radius filters: the indicator counts what is within it, with or without text")
  func radiusFilters() throws {
    let items = [
      Item(
        id: "paris",
        fields: ["title": .text("Paris"), "lat": .number(48.8566), "lon": .number(2.3522)]),
      Item(
        id: "london",
        fields: ["title": .text("London"), "lat": .number(51.5074), "lon": .number(-0.1278)]),
      Item(id: "nowhere", fields: ["title": .text("Paris Nowhere")]),
    ]
    var collection = try FilteredCollection(schema: Self.schema, items: items)
    let paris = try GeoPoint(latitude: 48.8566, longitude: 2.3522)
    collection.filter(by: SearchCriteria(near: SearchNear(paris)))
    // A place alone orders (no location last) and does not filter.
    #expect(Array(collection.rows) == ["paris", "london", "nowhere"])
    #expect(collection.indicator.text == "3 items")
    collection.filter(by: SearchCriteria(near: SearchNear(paris, withinKilometers: 343.556)))
    #expect(Array(collection.rows) == ["paris", "london"])
    #expect(collection.indicator.text == "Items found: 2")
    collection.filter(by: SearchCriteria(near: SearchNear(paris, withinKilometers: 343.555)))
    #expect(Array(collection.rows) == ["paris"])
    collection.filter(
      by: SearchCriteria(text: "paris", near: SearchNear(paris, withinKilometers: 10)))
    #expect(Array(collection.rows) == ["paris"])
    // Paris–London on the sphere, to the metre.
    #expect(Self.meters(items[1], from: paris) == 343_556)
    #expect(collection.schema.kilometers(of: items[1], from: SearchNear(paris)) == 343.556)
  }

  @Test("--explain near a place: a title nearby first, a title far away, then another field")
  func explanation() throws {
    let items = [
      Item(
        id: "far",
        fields: ["title": .text("Springfield"), "lat": .number(42.1), "lon": .number(-72.59)]),
      Item(
        id: "near",
        fields: ["title": .text("Springfield"), "lat": .number(39.8), "lon": .number(-89.64)]),
      Item(
        id: "start",
        fields: [
          "title": .text("Springfield Gardens"), "lat": .number(39.8), "lon": .number(-89.65),
        ]),
      Item(
        id: "tagged",
        fields: [
          "title": .text("Capitol"), "tags": .text("springfield"), "lat": .number(39.78),
          "lon": .number(-89.65),
        ]),
    ]
    var collection = try FilteredCollection(schema: Self.schema, items: items)
    let place = try GeoPoint(latitude: 39.78, longitude: -89.65)
    collection.filter(by: SearchCriteria(text: "springfield ", near: SearchNear(place)))
    // Every title holds the word: the nearest first, though "near" and "far" equal the query;
    // the match only in the tags, though on the spot, after them.
    #expect(Array(collection.rows) == ["start", "near", "far", "tagged"])
    let first = try #require(collection.explanation(forRow: 0))
    #expect(first.aheadOfNext == "distance")
    #expect(
      first.distanceKilometers == Self.meters(items[2], from: place).map { Double($0) / 1000 })
    #expect(first.sortField == nil)
    let second = try #require(collection.explanation(forRow: 1))
    #expect(second.aheadOfNext == "distance")
    let third = try #require(collection.explanation(forRow: 2))
    #expect(third.aheadOfNext == "exactness")
    collection.filter(by: SearchCriteria(text: "springfield ", near: nil))
    // Without a place, the titles equal to the query first, then the title that starts with
    // it: the tags describe the item, and their value equal to the query comes after a name.
    #expect(Array(collection.rows) == ["far", "near", "start", "tagged"])
    collection.filter(
      by: SearchCriteria(text: "springfield ", sort: .distance, near: SearchNear(place)))
    #expect(Array(collection.rows) == ["tagged", "start", "near", "far"])
    let sorted = try #require(collection.explanation(forRow: 0))
    #expect(sorted.sortField == "distance")
    #expect(sorted.sortValue == MatchExplanation.kilometers(sorted.distanceKilometers!))
    #expect(MatchExplanation.kilometers(0.85) == "850 m")
    #expect(MatchExplanation.kilometers(12.34) == "12.3 km")
    #expect(MatchExplanation.kilometers(1_234.5) == "1235 km")
  }

  @Test(
    "places are read as LAT,LON; what is wrong is named",
    arguments: [
      ("39.78,-89.65", "39.78,-89.65"), (" 0 , 180 ", "0,180"),
      ("91,0", "latitude 91 is outside -90…90"),
      ("0,-180.5", "longitude -180.5 is outside -180…180"),
      ("39.78", "\"39.78\" is not LAT,LON (two decimal numbers, e.g. 39.78,-89.65)"),
      ("a,b", "\"a,b\" is not LAT,LON (two decimal numbers, e.g. 39.78,-89.65)"),
      ("nan,0", "latitude nan is outside -90…90"),
    ])
  func parsing(text: String, expected: String) {
    do {
      #expect(try GeoPoint(parsing: text).description == expected)
    } catch {
      #expect(error.description == expected)
    }
  }

  @Test("a radius is a number of kilometres, 0 or more; a location names two fields")
  func radiusAndLocationFields() throws {
    #expect(try SearchNear.kilometers(parsing: "2.5") == 2.5)
    #expect(throws: GeoPointError.malformedRadius("-1")) {
      try SearchNear.kilometers(parsing: "-1")
    }
    #expect(throws: GeoPointError.malformedRadius("far")) {
      try SearchNear.kilometers(parsing: "far")
    }
    #expect(
      LocationFields(parsing: "lat, lon") == LocationFields(latitude: "lat", longitude: "lon"))
    #expect(LocationFields(parsing: "lat") == nil)
    #expect(LocationFields(parsing: "lat,lat") == nil)
    #expect(LocationFields(parsing: ",lon") == nil)
  }

  @Test("coordinates off the earth are named with what is wrong")
  func coordinateProblems() {
    let location = LocationFields(latitude: "lat", longitude: "lon")
    #expect(location.problem(in: ["lat": .number(90), "lon": .number(-180)]) == nil)
    #expect(location.problem(in: [:]) == nil)
    #expect(
      location.problem(in: ["lat": .number(-90.5)])! == (
        "lat", "a latitude, from -90 to 90, not -90.5"
      ))
    #expect(
      location.problem(in: ["lat": .number(10), "lon": .number(.nan)])!.reason
        == "a longitude, from -180 to 180, not nan")
  }

  @Test("a schema's location must be two of its number fields")
  func schemaValidation() throws {
    var schema = Self.schema
    schema.location = LocationFields(latitude: "title", longitude: "lon")
    #expect(throws: CatalogSchemaError.wrongKind("title", role: "latitude", expected: .number)) {
      try schema.validate()
    }
    schema.location = LocationFields(latitude: "lat", longitude: "longitude")
    #expect(throws: CatalogSchemaError.missingField("longitude", role: "longitude")) {
      try schema.validate()
    }
    // Kept through a round trip as JSON (the catalog file's schema row).
    let data = try JSONEncoder().encode(Self.schema)
    #expect(try JSONDecoder().decode(CatalogSchema.self, from: data) == Self.schema)
    // A sort by distance needs a location and a place.
    #expect(Self.schema.resolved(.distance) == .distance)
    #expect(EnginePropertyTests.schema.resolved(.distance) == nil)
    #expect(throws: SearchRequestError.distanceWithoutPlace) {
      try SearchRequest(SearchRequestInput(text: "", sort: .distance), schema: Self.schema)
    }
    #expect(throws: SearchRequestError.noLocation(catalog: "things")) {
      try SearchRequest(
        SearchRequestInput(text: "", near: SearchNear(try GeoPoint(latitude: 0, longitude: 0))),
        schema: EnginePropertyTests.schema)
    }
  }

  struct Town: Identifiable, Sendable {
    var id: Int
    var name: String
    var lat: Double
    var lon: Double
  }

  @Test("the DocC article's model: near a place, the nearer Springfield first")
  @MainActor
  func modelNearAPlace() throws {
    let schema = try SearchSchema<Town>(
      title: .text("name", \.name),
      fields: [.number("lat", \.lat, searchable: false), .number("lon", \.lon, searchable: false)]
    ).located(latitude: \.lat, longitude: \.lon)
    let model = try SearchModel(
      [
        Town(id: 1, name: "Springfield", lat: 42.10, lon: -72.59),
        Town(id: 2, name: "Springfield", lat: 39.80, lon: -89.64),
      ], schema: schema)
    model.isPresented = true
    model.text = "spring"
    #expect(model.results.map(\.id) == [1, 2])
    model.near = SearchNear(try GeoPoint(latitude: 40, longitude: -89))
    #expect(model.results.map(\.id) == [2, 1])
    #expect(model.criteria.near != nil)
    model.near = SearchNear(try GeoPoint(latitude: 40, longitude: -89), withinKilometers: 100)
    #expect(model.results.map(\.id) == [2])
    #expect(model.indicator.text == "1 item found")
    // "Search this area": the box keeps what is inside, with or without text, near or not.
    model.near = nil
    model.withinBox = try GeoBox(south: 41, west: -75, north: 43, east: -70)
    #expect(model.results.map(\.id) == [1])
    model.text = ""
    #expect(model.isFiltering && model.results.map(\.id) == [1])
    #expect(model.tokens.isEmpty, "the box is not one of the searcher's tokens")
    model.withinBox = nil
    #expect(model.results.map(\.id) == [1, 2])
  }

  @Test("SearchController.setWithinBox: the same rows as the request with the box, and no token")
  func controllerBox() throws {
    var random = SplitMix64(seed: 91)
    let items = (0..<60).map { Self.randomItem($0, using: &random) }
    var controller = SearchController(
      collection: try FilteredCollection(schema: Self.schema, items: items))
    let box = try GeoBox(south: 47, west: 0, north: 51, east: 5)
    controller.send(.activate)
    controller.send(.setWithinBox(box))
    #expect(controller.tokens.isEmpty)
    let inside = items.filter { item in
      guard case .number(let latitude) = item["lat"], case .number(let longitude) = item["lon"]
      else { return false }
      return box.contains(latitude: latitude, longitude: longitude)
    }.map(\.id)
    #expect(Set(controller.rows) == Set(inside) && !inside.isEmpty)
    #expect(controller.indicator.text.hasSuffix("\(inside.count)"))
    var applied = SearchController(
      collection: try FilteredCollection(schema: Self.schema, items: items))
    try applied.apply(SearchRequestInput(text: "", withinBox: box))
    #expect(Array(applied.rows) == Array(controller.rows))
    controller.send(.setWithinBox(nil))
    #expect(controller.rows.count == items.count)
  }

  @Test("an app's own type: the location by key paths, the model near a place")
  func typedLocation() throws {
    let schema = try SearchSchema<Town>(
      title: .text("name", \.name),
      fields: [.number("lat", \.lat, searchable: false), .number("lon", \.lon, searchable: false)]
    ).located(latitude: \.lat, longitude: \.lon)
    #expect(schema.catalog.location == LocationFields(latitude: "lat", longitude: "lon"))
    #expect(throws: CatalogSchemaError.self) {
      try SearchSchema<Town>(title: .text("name", \.name)).located(
        latitude: \.lat, longitude: \.lon)
    }
    let towns = [
      Town(id: 1, name: "Springfield", lat: 42.1, lon: -72.59),
      Town(id: 2, name: "Springfield", lat: 39.8, lon: -89.64),
      Town(id: 3, name: "Shelbyville", lat: 39.41, lon: -88.79),
    ]
    var collection = try SearchCollection(towns, schema: schema)
    let place = try GeoPoint(latitude: 39.78, longitude: -89.65)
    collection.filter(by: SearchCriteria(text: "spring", near: SearchNear(place)))
    #expect(Array(collection.rows) == [2, 1])
    collection.filter(by: SearchCriteria(near: SearchNear(place, withinKilometers: 100)))
    #expect(Array(collection.rows) == [2, 3])
  }

  @Test(
    "within a box: the relevance order, less what the test's own box check leaves out, across the 180° meridian too"
  )
  func withinBoxEqualsReference() throws {
    let seed: UInt64 = 20_261_127
    print("box seed \(seed)")
    var random = SplitMix64(seed: seed)
    var (kept, wrapped) = (0, 0)
    for round in 0..<600 {
      let items = (0..<Int.random(in: 0...40, using: &random)).map {
        Self.randomItem($0, using: &random)
      }
      // Exact matches only, as with a radius: a box changes how many there are.
      var collection = try FilteredCollection(
        schema: Self.schema, items: items, typoTolerance: .off)
      let text = EnginePropertyTests.randomQuery(using: &random)
      collection.filter(by: SearchCriteria(text: text))
      let relevance = Array(collection.rows)
      let centre = Self.centres.randomElement(using: &random)!
      let (height, width) = (
        Double.random(in: 0...3, using: &random), Double.random(in: 0...3, using: &random)
      )
      let south = max(-90, centre.0 - height)
      let north = min(90, centre.0 + Double.random(in: 0...3, using: &random))
      var west = centre.1 - width
      var east = centre.1 + Double.random(in: 0...3, using: &random)
      // Past the 180° meridian: the box wraps round (west east of east).
      if east > 180 { east -= 360 }
      if west < -180 { west += 360 }
      let box = try GeoBox(south: south, west: west, north: north, east: east)
      let request = try SearchRequest(
        SearchRequestInput(text: text, withinBox: box), schema: Self.schema)
      collection.filter(by: request.criteria)
      let inside = { (id: ItemID) -> Bool in
        let item = items.first { $0.id == id }!
        guard case .number(let latitude) = item["lat"], case .number(let longitude) = item["lon"]
        else { return false }
        let eastward = west <= east
        return south <= latitude && latitude <= north
          && (eastward
            ? west <= longitude && longitude <= east
            : longitude >= west || longitude <= east)
      }
      let expected = relevance.filter(inside)
      #expect(Array(collection.rows) == expected, "round \(round): \(text) in \(box)")
      kept += expected.count
      if box.crossesAntimeridian, !expected.isEmpty { wrapped += 1 }
    }
    #expect(kept > 300, "\(kept) rows kept inside boxes")
    #expect(wrapped > 5, "\(wrapped) boxes across the 180° meridian kept something")
  }

  @Test(
    "a box reads as SOUTH,WEST,NORTH,EAST and names what is wrong",
    arguments: [
      ("45.7,5.9,47.8,10.5", nil),
      ("-20, 170, -10, -170", nil),
      ("1,2,3", "\"1,2,3\" is not SOUTH,WEST,NORTH,EAST"),
      ("a,2,3,4", "is not SOUTH,WEST,NORTH,EAST"),
      ("91,0,92,1", "latitude 91 is outside -90…90"),
      ("0,-181,1,1", "longitude -181 is outside -180…180"),
      ("10,0,5,1", "the south edge 10 is north of the north edge 5"),
    ] as [(String, String?)])
  func boxParsing(text: String, problem: String?) {
    do {
      let box = try GeoBox(parsing: text)
      #expect(problem == nil, "\(text) read as \(box)")
      #expect(try GeoBox(parsing: box.description) == box)
    } catch {
      #expect(problem.map { "\(error)".contains($0) } == true, "\(error)")
    }
  }
}
