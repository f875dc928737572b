import SiftTestSupport
import Testing

@testable import Sift

/// Relevance where a catalog has no ranking field (issue 52): the examples a traveller found in
/// PyPI's airports — each pair listed so that catalog order, the only rule left before, puts the
/// wrong one first — finished and still being typed, and the reference agrees.
@Suite("Relevance without popularity", .tags(.unit))
struct NoPopularityTests {
  static let schema = CatalogSchema(
    name: "airports",
    fields: [
      // A code names an airport as its title does; its city and region describe it.
      .text("name"), .text("city"), .text("region"), .text("iata", names: true),
      .category("country"),
      .number("lat", searchable: false), .number("lon", searchable: false),
    ],
    titleField: "name", categoryField: "country",
    location: LocationFields(latitude: "lat", longitude: "lon"))

  static func airport(
    _ id: String, _ name: String, city: String = "", region: String = "", iata: String = "",
    at place: (Double, Double) = (0, 0)
  ) -> Item {
    Item(
      id: ItemID(id),
      fields: [
        "name": .text(name), "city": .text(city), "region": .text(region), "iata": .text(iata),
        "lat": .number(place.0), "lon": .number(place.1),
      ])
  }

  struct Case: CustomTestStringConvertible, Sendable {
    var rule: String
    var query: String
    /// In catalog order; `expected` is the order the rule gives.
    var items: [Item]
    var expected: [String]
    var near: (Double, Double)?
    var testDescription: String { "\(rule): \"\(query)\"" }
  }

  static let cases: [Case] = [
    Case(
      rule: "the title holds the word: Zurich Airport before the airports in the canton",
      query: "zurich",
      items: [
        airport("LSMD", "Dubendorf Airport", city: "Zurich", region: "Zurich"),
        airport("LSPH", "Winterthur Airport", city: "Winterthur", region: "Zurich"),
        airport("LSZH", "Zurich Airport", city: "Zurich", region: "Zurich", iata: "ZRH"),
      ],
      expected: ["LSZH", "LSMD", "LSPH"]),
    Case(
      rule: "finished, the same", query: "zurich ",
      items: [
        airport("LSMD", "Dubendorf Airport", city: "Zurich", region: "Zurich"),
        airport("LSZH", "Zurich Airport", city: "Zurich", region: "Zurich", iata: "ZRH"),
      ],
      expected: ["LSZH", "LSMD"]),
    Case(
      rule: "a code equal to the query besides a title starting with it", query: "sin",
      items: [
        airport("06IS", "Sinele Strip", city: "Fairfield", region: "Illinois"),
        airport("97VA", "Singleton Airport", city: "Bristol", region: "Virginia"),
        airport("WSSS", "Singapore Changi Airport", city: "Singapore", iata: "SIN"),
      ],
      expected: ["WSSS", "06IS", "97VA"]),
    Case(
      rule: "more fields equal to the query first", query: "new york",
      items: [
        airport("01NK", "Granville Airport", city: "Granville", region: "New York"),
        airport(
          "KJFK", "John F Kennedy International Airport", city: "New York", region: "New York"),
      ],
      expected: ["KJFK", "01NK"]),
    Case(
      rule: "the title holds the word besides the city: before the city alone", query: "anchorage",
      items: [
        airport("9AK5", "Sky Harbor Airport", city: "Anchorage", region: "Alaska"),
        airport("PANC", "Ted Stevens Anchorage International Airport", city: "Anchorage"),
      ],
      expected: ["PANC", "9AK5"]),
    Case(
      rule: "near spellings at a word's start before an exact match inside a word",
      query: "münchen",
      items: [
        airport("EDLN", "Mönchengladbach Airport", city: "Mönchengladbach"),
        airport("SCML", "Mulchen Airport", city: "Mulchen"),
        airport("EDNS", "Schwabmünchen Airfield", city: "Schwabmünchen"),
      ],
      expected: ["EDLN", "SCML", "EDNS"]),
    Case(
      rule: "coverage: a title the query's words cover whole before one with words left out",
      query: "heathrow london",
      items: [
        airport("EGLL2", "Heathrow Heliport", city: "London"),
        airport("EGLL", "Heathrow", city: "London", iata: "LHR"),
      ],
      expected: ["EGLL", "EGLL2"]),
    Case(
      rule: "coverage: the same while the last word is typed", query: "heathrow lon",
      items: [
        airport("EGLL2", "Heathrow Heliport", city: "London"),
        airport("EGLL", "Heathrow", city: "London", iata: "LHR"),
      ],
      expected: ["EGLL", "EGLL2"]),
    Case(
      rule: "near a place: a title match nearby before one far away", query: "midway",
      items: [
        airport("PN62", "Midway Airport", city: "Midway", at: (40.93, -79.90)),
        airport(
          "KMDW", "Chicago Midway International Airport", city: "Chicago", at: (41.79, -87.75)),
      ],
      expected: ["KMDW", "PN62"], near: (41.8781, -87.6298)),
    Case(
      rule: "near a place: a title match before a match only in the city", query: "midway",
      items: [
        airport("26IA", "Hawkeye Field", city: "Midway", at: (41.80, -87.70)),
        airport(
          "KMDW", "Chicago Midway International Airport", city: "Chicago", at: (41.79, -87.75)),
      ],
      expected: ["KMDW", "26IA"], near: (41.8781, -87.6298)),
  ]

  @Test("each rule decides on its own", arguments: cases)
  func rule(_ test: Case) throws {
    var collection = try FilteredCollection(schema: Self.schema, items: test.items)
    let near = try test.near.map { SearchNear(try GeoPoint(latitude: $0.0, longitude: $0.1)) }
    collection.filter(by: SearchCriteria(text: test.query, near: near))
    #expect(collection.rows.map(\.description) == test.expected)
    guard near == nil else { return }
    let reference = ReferenceMatcher(schema: Self.schema)
    #expect(
      reference.rows(items: test.items, criteria: SearchCriteria(text: test.query))
        == collection.rows)
  }

  /// The same rules in a shop's catalog: name, brand, tags; no popularity.
  @Test("a shop: names decide, the brand and tags equal to the query agree")
  func shop() throws {
    let schema = CatalogSchema(
      name: "shop", fields: [.text("name"), .text("brand"), .text("tags")], titleField: "name")
    func product(_ id: String, _ name: String, brand: String, tags: String = "") -> Item {
      Item(
        id: ItemID(id),
        fields: ["name": .text(name), "brand": .text(brand), "tags": .text(tags)])
    }
    let items = [
      product("1", "Ginger Snaps", brand: "Acme"),
      product("2", "Lemon Soda", brand: "Fizz", tags: "ginger"),
      product("3", "Ginger Ale", brand: "Ginger & Co", tags: "ginger"),
      product("4", "Ginger Beer", brand: "Ginger", tags: "ginger"),
    ]
    var collection = try FilteredCollection(schema: schema, items: items)
    let reference = ReferenceMatcher(schema: schema)
    for query in ["ginger", "ginger "] {
      collection.filter(by: SearchCriteria(text: query))
      // Beer: its name starts with the word, and brand and tags equal it; Ale: its name, and
      // tags; Snaps: its name alone — the names decide, the equal values agree. Soda's tags
      // describe it: a value equal to the query there comes after every name that starts so.
      #expect(collection.rows == ["4", "3", "1", "2"], "\(query)")
      #expect(
        reference.rows(items: items, criteria: SearchCriteria(text: query)) == collection.rows,
        "\(query)")
    }
  }

  @Test("--explain names the agreement, and it decides against the next")
  func explanation() throws {
    var collection = try FilteredCollection(schema: Self.schema, items: Self.cases[0].items)
    collection.filter(by: SearchCriteria(text: "zurich"))
    let first = try #require(collection.explanation(forRow: 0))
    #expect(first.ranksByAgreement)
    #expect(first.rank.titleHoldsTerms == true && first.rank.equalFields == 2)
    // Dübendorf's city and region equal the query, but they describe it: word starts.
    #expect(first.aheadOfNext == "exactness")
    let second = try #require(collection.explanation(forRow: 1))
    #expect(second.rank.exactness == .wordStarts && second.rank.titleHoldsTerms == nil)
    #expect(second.aheadOfNext == "attribute")
  }
}
