import Foundation
import SiftTestSupport
import Testing

/// `sift facets` through the built binary on the cities sample: the countries, counted from the
/// fixture itself, and within a search as `sift search --facets` counts them.
@Suite("sift facets", .tags(.endToEnd))
struct FacetsCommandTests {
  @Test("the countries that match a text, with how many cities of a search each holds")
  func countries() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    try sift.importCitySample()
    var byCountry: [String: Int] = [:]
    for city in try DistinctCommandTests.sampleCities() { byCountry[city.country, default: 0] += 1 }
    let ordered = byCountry.sorted { ($1.value, $0.key) < ($0.value, $1.key) }

    let all = try sift.run(["facets", "--catalog", "cities.sqlite", "--limit", "1000", "--json"])
    #expect(all.status == 0, "\(all.stderr)")
    #expect(
      all.objects.map { "\($0["value"] as? String ?? "") \($0["count"] as? Int ?? -1)" }
        == ordered.map { "\($0.key) \($0.value)" })
    #expect(all.stderr == "country: \(ordered.count) values\n")

    // A text: the codes that start with it; the column of counts lines up.
    let found = try sift.run(["facets", "--catalog", "cities.sqlite", "--limit", "3", "b"])
    let expected = ordered.filter { $0.key.hasPrefix("B") }.prefix(3)
    let width = expected.map(\.key.count).max() ?? 0
    #expect(
      found.stdout
        == expected.map {
          "\($0.key)\(String(repeating: " ", count: width - $0.key.count))  \($0.value)\n"
        }.joined())

    // Within a search: what `sift search --facets` counts.
    let searched = try sift.run([
      "facets", "--catalog", "cities.sqlite", "--search", "san", "--limit", "1000", "--json",
    ])
    let facets = try sift.run(["search", "--catalog", "cities.sqlite", "--json", "--facets", "san"])
    let categories =
      (facets.objects.last?["facets"] as? [String: Any])?["categories"] as? [[String: Any]] ?? []
    #expect(
      searched.objects.map { "\($0["value"] as? String ?? "") \($0["count"] as? Int ?? -1)" }
        == categories.map { "\($0["value"] as? String ?? "") \($0["count"] as? Int ?? -1)" })
    #expect(!categories.isEmpty)

    let none = try sift.run(["facets", "--catalog", "cities.sqlite", "zz"])
    #expect(none.status == 0 && none.stdout.isEmpty)
    #expect(none.stderr == "No country values match\n")
    let wrong = try sift.run(["facets", "--catalog", "cities.sqlite", "--field", "name", "x"])
    #expect(wrong.status == 2)
    #expect(
      wrong.stderr
        == "sift: --field: name is not a category of catalog cities; its category is country\n")
  }
}
