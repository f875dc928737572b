import Foundation
import SiftTestSupport
import Testing

/// `sift import --location` and `sift search --near/--within/--sort distance`, through the
/// built binary on the cities sample.
@Suite("sift search --near", .tags(.endToEnd))
struct NearCommandTests {
  static let locatedArguments =
    ImportCommandTests.cityArguments + [
      "--rank-by", "population", "--location", "latitude,longitude",
    ]

  /// The sample's cities as (id, latitude, longitude), read from the fixture itself.
  static func samplePlaces() throws -> [(id: String, latitude: Double, longitude: Double)] {
    try SiftProcess.citySample().map { object in
      (
        "\(try #require(object["id"] as? Int))", try #require(object["latitude"] as? Double),
        try #require(object["longitude"] as? Double)
      )
    }
  }

  /// The test's own haversine, in kilometres to the metre.
  static func kilometers(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
    let radians = Double.pi / 180
    let h =
      pow(sin((b.0 - a.0) * radians / 2), 2) + cos(a.0 * radians) * cos(b.0 * radians)
      * pow(sin((b.1 - a.1) * radians / 2), 2)
    return (2 * 6_371_000 * asin(min(1, h.squareRoot())) + 0.5).rounded(.down) / 1000
  }

  @Test(
    "--within-box keeps the cities inside it, across the 180° meridian too; with --near, nearest first"
  )
  func withinBox() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let sample = SiftProcess.fixtures.appendingPathComponent("cities-sample.jsonl").path
    try sift.run(["import", sample, "--catalog", "cities.sqlite"] + Self.locatedArguments)
    let places = try Self.samplePlaces()
    for (box, edges) in [
      ("-44,112,-10,154", (-44.0, 112.0, -10.0, 154.0)),  // Australia: a negative first edge
      ("-25,170,0,-170", (-25.0, 170.0, 0.0, -170.0)),  // Fiji to Samoa, across 180°
    ] {
      let (south, west, north, east) = edges
      let inside = Set(
        places.filter { place in
          south <= place.latitude && place.latitude <= north
            && (west <= east
              ? west <= place.longitude && place.longitude <= east
              : place.longitude >= west || place.longitude <= east)
        }.map(\.id))
      #expect(!inside.isEmpty, "\(box)")
      let run = try sift.run([
        "search", "--catalog", "cities.sqlite", "--within-box", box, "--json",
      ])
      #expect(run.status == 0, "\(run.stderr)")
      #expect(Set(run.objects.compactMap { idText($0["id"]) }) == inside, "\(box)")
      #expect(run.stderr == "Items found: \(inside.count)\n")
    }
    // With --near: the same cities, nearest first.
    let sydney = (-33.87, 151.21)
    let near = try sift.run([
      "search", "--catalog", "cities.sqlite", "--within-box", "-44,112,-10,154", "--near",
      "-33.87,151.21", "--sort", "distance", "--json",
    ])
    let distances = near.objects.compactMap { $0["distance_km"] as? Double }
    #expect(distances.count == near.objects.count && distances == distances.sorted())
    let first = try #require(idText(near.objects.first?["id"]))
    let closest = places.min {
      Self.kilometers(sydney, ($0.1, $0.2)) < Self.kilometers(sydney, ($1.1, $1.2))
    }
    #expect(first == closest?.id)

    let bad = try sift.run(["search", "--catalog", "cities.sqlite", "--within-box", "10,0,5,1"])
    #expect(
      bad.stderr.hasPrefix("Error: --within-box: the south edge 10 is north of the north edge 5\n"))
    let unlocated = try sift.run(["search", "--catalog", "products", "--within-box", "0,0,1,1"])
    #expect(unlocated.status == 2)
    #expect(unlocated.stderr.hasPrefix("sift: --within-box: catalog products has no location"))
  }

  @Test("--within keeps the cities within the radius, --sort distance lists them nearest first")
  func withinAndSorted() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let sample = SiftProcess.fixtures.appendingPathComponent("cities-sample.jsonl").path
    let imported = try sift.run(
      ["import", sample, "--catalog", "cities.sqlite"] + Self.locatedArguments)
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(imported.stderr.contains("Kept, not searched: timezone (search one"))
    let paris = (48.8566, 2.3522)
    let expected = try Self.samplePlaces().map { ($0.id, Self.kilometers(paris, ($0.1, $0.2))) }
      .filter { $0.1 <= 40 }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
    #expect(expected.count > 5)
    let run = try sift.run([
      "search", "--catalog", "cities.sqlite", "--near", "48.8566,2.3522", "--within", "40",
      "--sort", "distance", "--json",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr == "Items found: \(expected.count)\n")
    let found = run.objects.map { (idText($0["id"]) ?? "", $0["distance_km"] as? Double ?? -1) }
    #expect(found.map(\.1) == expected.map(\.1))
    #expect(Set(found.map(\.0)) == Set(expected.map(\.0)))
    // Farthest first, within the same radius.
    let reversed = try sift.run([
      "search", "--catalog", "cities.sqlite", "--near", "48.8566,2.3522", "--within", "40",
      "--sort", "distance:desc", "--json",
    ])
    #expect(
      reversed.objects.map { $0["distance_km"] as? Double ?? -1 } == expected.map(\.1).reversed())
    // A southern or western place is written as it reads, with no `=`, in any order.
    let southWest = (-33.8688, -70.6693)
    let nearest = try Self.samplePlaces().map { ($0.id, Self.kilometers(southWest, ($0.1, $0.2))) }
      .sorted { ($0.1, $0.0) < ($1.1, $1.0) }
    for arguments in [
      ["--near", "-33.8688,-70.6693", "--within", "5000"],
      ["--within", "5000", "--near", "-33.8688,-70.6693"],
      ["--near=-33.8688,-70.6693", "--within=5000"],
    ] {
      let run = try sift.run(
        ["search", "--catalog", "cities.sqlite", "--sort", "distance", "--json", "--limit", "3"]
          + arguments)
      #expect(run.status == 0, "\(arguments): \(run.stderr)")
      #expect(
        run.objects.map { idText($0["id"]) ?? "" } == nearest.prefix(3).map(\.0), "\(arguments)")
    }
    // A place alone orders every city and filters none.
    let all = try sift.run([
      "search", "--catalog", "cities.sqlite", "--near", "48.8566,2.3522", "--limit", "1",
    ])
    #expect(all.stderr == "2955 items\n")
    #expect(
      all.stdout.hasSuffix(" · \(MatchKilometers.shown(expected[0].1)) away\n"), "\(all.stdout)")
  }

  @Test(
    "--near ranks by distance after typos, word starts and the title; --explain says how far, and why ahead"
  )
  func nearRanksAfterExactness() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let sample = SiftProcess.fixtures.appendingPathComponent("cities-sample.jsonl").path
    try sift.run(["import", sample, "--catalog", "cities.sqlite"] + Self.locatedArguments)
    let plain = try sift.run(["search", "--catalog", "cities.sqlite", "--json", "san "])
    let near = try sift.run([
      "search", "--catalog", "cities.sqlite", "--json", "--near", "37.77,-122.42", "--explain",
      "san ",
    ])
    #expect(near.status == 0, "\(near.stderr)")
    // The same cities: a place without a radius reorders, it does not filter.
    #expect(Set(near.titles) == Set(plain.titles))
    #expect(near.stderr == plain.stderr)
    let explained = near.objects.compactMap { $0["explain"] as? [String: Any] }
    #expect(explained.count == near.objects.count)
    // Within one class — typos, every term starting a word, the title holding the match —
    // nearest first, and the classes in order; each says its distance, as the result does.
    var previous: ([Int], Double)?
    for (object, explain) in zip(near.objects, explained) {
      let title =
        explain["title_holds_terms"] as? Bool ?? (explain["attribute"] as? Int == 0)
      let kind = [
        explain["typos"] as? Int ?? -1, explain["exactness"] as? String == "substring" ? 1 : 0,
        title ? 0 : 1,
      ]
      let distance = try #require(explain["distance_km"] as? Double)
      #expect(object["distance_km"] as? Double == distance)
      if let previous {
        #expect(!kind.lexicographicallyPrecedes(previous.0))
        if previous.0 == kind { #expect(previous.1 <= distance) }
      }
      previous = (kind, distance)
    }
    #expect(explained.dropLast().contains { $0["ahead_of_next"] as? String == "distance" })
    let text = try sift.run([
      "search", "--catalog", "cities.sqlite", "--near", "37.77,-122.42", "--explain", "--limit",
      "1", "san ",
    ])
    #expect(text.stdout.contains(" · distance "), "\(text.stdout)")
  }

  @Test("bad places name their option; a catalog without a location says how to give it one")
  func badInput() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let latitude = try sift.run(["search", "--catalog", "products", "--near", "91,0", "rose"])
    #expect(latitude.status == 64)
    #expect(latitude.stderr.hasPrefix("Error: --near: latitude 91 is outside -90…90\n"))
    let malformed = try sift.run(["search", "--catalog", "products", "--near", "here", "rose"])
    #expect(
      malformed.stderr.hasPrefix(
        "Error: --near: \"here\" is not LAT,LON (two decimal numbers, e.g. 39.78,-89.65)\n"))
    let radius = try sift.run(["search", "--catalog", "products", "--within", "5", "rose"])
    #expect(radius.stderr.hasPrefix("Error: --within needs --near LAT,LON\n"))
    let negative = try sift.run([
      "search", "--catalog", "products", "--near", "1,1", "--within=-5", "rose",
    ])
    #expect(
      negative.stderr.hasPrefix(
        "Error: --within: \"-5\" is not a radius in kilometres (a number, 0 or more)\n"))
    let unlocated = try sift.run(["search", "--catalog", "products", "--near", "1,1", "rose"])
    #expect(unlocated.status == 2)
    #expect(
      unlocated.stderr
        == "sift: --near: catalog products has no location to be near: import it with --location LAT_FIELD,LON_FIELD\n"
    )
    let sample = SiftProcess.fixtures.appendingPathComponent("cities-sample.jsonl").path
    try sift.run(["import", sample, "--catalog", "cities.sqlite"] + Self.locatedArguments)
    let placeless = try sift.run(["search", "--catalog", "cities.sqlite", "--sort", "distance"])
    #expect(placeless.status == 2)
    #expect(
      placeless.stderr
        == "sift: --sort: a sort by distance needs a place to measure from (--near LAT,LON, near=LAT,LON)\n"
    )
    let unsortable = try sift.run(["search", "--catalog", "cities.sqlite", "--sort", "nope"])
    #expect(
      unsortable.stderr
        == "sift: --sort: cannot sort by \"nope\": catalog cities sorts by name, population, latitude, longitude, distance (FIELD, FIELD:asc or FIELD:desc)\n"
    )
  }

  @Test("an import with a place off the earth fails at its line and leaves the catalog as it was")
  func importChecksPlaces() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let good = try sift.write(
      "good.jsonl", #"{"id": 1, "name": "Springfield", "lat": 39.8, "lon": -89.64}"# + "\n")
    let first = try sift.run([
      "import", good, "--catalog", "towns.sqlite", "--title", "name", "--id", "id",
      "--location", "lat,lon",
    ])
    #expect(first.status == 0, "\(first.stderr)")
    let bad = try sift.write(
      "bad.jsonl",
      #"{"id": 2, "name": "Shelbyville", "lat": 39.4, "lon": -88.79}"# + "\n"
        + #"{"id": 3, "name": "Nowhere", "lat": 91, "lon": 0}"# + "\n")
    // No flags: the catalog remembers its location, and checks it.
    let refused = try sift.run(["import", bad, "--catalog", "towns.sqlite"])
    #expect(refused.status != 0)
    #expect(
      refused.stderr.contains(
        "bad.jsonl:2: field \"lat\" is a latitude, from -90 to 90, not 91"), "\(refused.stderr)")
    let after = try sift.run([
      "search", "--catalog", "towns.sqlite", "--near", "39.78,-89.65", "--json",
    ])
    #expect(after.titles == ["Springfield"])
    let longitude = try sift.write(
      "east.csv", "id,name,lat,lon\n4,Far East,10,181\n")
    let csv = try sift.run(["import", longitude, "--catalog", "towns.sqlite"])
    #expect(
      csv.stderr.contains("east.csv:2: field \"lon\" is a longitude, from -180 to 180, not 181"))
    let malformed = try sift.run([
      "import", good, "--catalog", "other.sqlite", "--title", "name", "--location", "lat",
    ])
    #expect(malformed.status == 64)
    #expect(
      malformed.stderr.hasPrefix(
        "Error: --location \"lat\" is not LAT_FIELD,LON_FIELD (two different field names)\n"))
    // Coordinates are filters, not words: a plain "39.8" does not find Springfield, lat:>39 does.
    #expect(try sift.run(["search", "--catalog", "towns.sqlite", "--json", "39.8"]).titles == [])
    #expect(
      try sift.run(["search", "--catalog", "towns.sqlite", "--json", "lat:>39"]).titles
        == ["Springfield"])
  }
}

/// How a distance is written after a result: "12.3 km", "850 m" (`MatchExplanation.kilometers`).
enum MatchKilometers {
  static func shown(_ value: Double) -> String {
    if value < 1 { return "\(Int((value * 1000).rounded())) m" }
    let tenths = (value * 10).rounded() / 10
    return tenths == tenths.rounded() ? "\(Int(tenths)) km" : "\(tenths) km"
  }
}
