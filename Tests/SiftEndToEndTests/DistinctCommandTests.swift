import Foundation
import SiftTestSupport
import Testing

/// `sift search --distinct FIELD` through the built binary on the cities sample: the rows of
/// the same search without it, less each city whose country an earlier one holds.
@Suite("sift search --distinct", .tags(.endToEnd))
struct DistinctCommandTests {
  /// The sample's cities as (id, country, population), read from the fixture itself.
  static func sampleCities() throws -> [(id: String, country: String, population: Double)] {
    try SiftProcess.citySample().map { object in
      (
        "\(try #require(object["id"] as? Int))", try #require(object["country"] as? String),
        try #require(object["population"] as? Double)
      )
    }
  }

  @Test("one city per country: the first of each in the order without it; facets count cities")
  func onePerCountry() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    try sift.importCitySample()
    let cities = try Self.sampleCities()
    let countryOf = Dictionary(uniqueKeysWithValues: cities.map { ($0.id, $0.country) })

    // No text: each country's most populous city, most populous first.
    let all = try sift.run([
      "search", "--catalog", "cities.sqlite", "--distinct", "country", "--json",
    ])
    #expect(all.status == 0, "\(all.stderr)")
    // Ties of population go to catalog order.
    var best: [String: (id: String, population: Double, position: Int)] = [:]
    for (position, city) in cities.enumerated()
    where (best[city.country]?.population ?? -1) < city.population {
      best[city.country] = (city.id, city.population, position)
    }
    let expected = best.values.sorted {
      ($1.population, $0.position) < ($0.population, $1.position)
    }
    .map(\.id)
    #expect(all.objects.compactMap { idText($0["id"]) } == expected)
    #expect(all.stderr == "Items found: \(expected.count)\n")

    for query in ["san", "ber", "a"] {
      let plain = try sift.run([
        "search", "--catalog", "cities.sqlite", "--json", "--facets", query,
      ])
      let grouped = try sift.run([
        "search", "--catalog", "cities.sqlite", "--json", "--facets", "--distinct", "country",
        query,
      ])
      #expect(grouped.status == 0, "\(grouped.stderr)")
      let rows = plain.objects.compactMap { idText($0["id"]) }
      var seen = Set<String>()
      let firsts = rows.filter { seen.insert(countryOf[$0]!).inserted }
      #expect(grouped.objects.compactMap { idText($0["id"]) } == firsts, "\(query)")
      #expect(firsts.count < rows.count, "\(query): some country has two matches")
      // The facets line counts every city, as without --distinct.
      #expect(
        grouped.objects.last.map { NSDictionary(dictionary: $0) }
          == plain.objects.last.map { NSDictionary(dictionary: $0) }, "\(query)")
      #expect(grouped.stderr == "Items found: \(firsts.count)\n")
    }

    let page = try sift.run([
      "search", "--catalog", "cities.sqlite", "--distinct", "country", "--offset", "2", "--limit",
      "3", "--json", "san",
    ])
    let firstFive = try sift.run([
      "search", "--catalog", "cities.sqlite", "--distinct", "country", "--limit", "5", "--json",
      "san",
    ])
    #expect(
      page.objects.compactMap { idText($0["id"]) }
        == Array(firstFive.objects.compactMap { idText($0["id"]) }.dropFirst(2)))

    let kept = try sift.run([
      "search", "--catalog", "cities.sqlite", "--distinct", "timezone", "san",
    ])
    #expect(kept.status == 2)
    #expect(
      kept.stderr
        == "sift: --distinct: cannot keep one result per \"timezone\": catalog cities groups by name, alternates, population, latitude, longitude, country (timezone is kept, not searched: import it with --text or --number)\n"
    )
  }
}
