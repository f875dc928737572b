#if Server
import Foundation
import Hummingbird
import HummingbirdTesting
import Sift
import SiftServer
import SiftStore
import Testing
import SiftTestSupport

/// A page of search results costs a page: a field of many values (a city's other names) holds
/// the values that matched and a few more, `more` counts the rest, and only what is sent is
/// highlighted; the item read by id has every value.
@Suite("sift serve: a page costs a page", .tags(.unit))
struct PageCostTests {
  static let schema = CatalogSchema(
    name: "places",
    fields: [.text("name"), .text("alternates"), .number("population")],
    titleField: "name", rankingField: RankingField("population"))

  /// A city with 40 other names, of which those starting "Par" are the 3rd, 17th and 31st.
  static let alternates = (0..<40).map { number in
    [2, 16, 30].contains(number) ? "Paris \(number)" : "Lutetia \(number)"
  }

  static func server() throws -> SiftServer {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-page-cost-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let items = [
      Item(
        id: "1",
        fields: [
          "name": .text("Paris"), "alternates": .texts(alternates), "population": .number(2e6),
        ]),
      Item(
        id: "2",
        fields: ["name": .text("Lyon"), "alternates": .texts(["Lugdunum", "Liyon"])]),
    ]
    let store = try CatalogStore.create(
      at: folder.appendingPathComponent("places.sqlite"),
      document: CatalogDocument(schema: schema, items: items))
    return SiftServer(catalogs: [try StoredCatalog(name: "places", store: store)])
  }

  @Test("a result holds the matched values and counts the rest; the item holds them all")
  func matchedValuesAndACount() async throws {
    let server = try Self.server()
    let (status, answer) = try await SearchEndpointTests.get(
      server, "/catalogs/places/search?q=paris+2")
    #expect(status == .ok)
    let results = answer["results"] as? [[String: Any]] ?? []
    let first = try #require(results.first)
    // "paris 2": a value is marked where either term occurs — every name with "paris" or "2"
    // in it; the first ten of them are sent.
    let shown = first["alternates"] as? [String] ?? []
    let marked = Set(
      (first["highlights"] as? [[String: Any]] ?? []).filter {
        $0["field"] as? String == "alternates"
      }
      .compactMap { $0["value"] as? String })
    let expectedMarked = Self.alternates.filter { $0.hasPrefix("Paris") || $0.contains("2") }
    #expect(marked == Set(expectedMarked.prefix(10)))
    // The matched values first, in their order, then none more (more than two matched).
    #expect(shown == Array(expectedMarked.prefix(10)))
    let more = first["more"] as? [String: Any]
    #expect(more?["alternates"] as? Int == Self.alternates.count - shown.count)

    // A title match alone: two other names to show beside it, the rest counted.
    let (_, byName) = try await SearchEndpointTests.get(server, "/catalogs/places/search?q=lyo")
    let lyon = try #require((byName["results"] as? [[String: Any]])?.first)
    #expect(lyon["alternates"] as? [String] == ["Lugdunum", "Liyon"])
    #expect(lyon["more"] == nil)
    let (_, city) = try await SearchEndpointTests.get(server, "/catalogs/places/search?q=paris")
    let paris = try #require((city["results"] as? [[String: Any]])?.first)
    #expect(paris["alternates"] as? [String] == ["Paris 2", "Paris 16", "Paris 30"])
    #expect((paris["more"] as? [String: Any])?["alternates"] as? Int == 37)

    // The item itself: every value, in its order.
    let (itemStatus, item) = try await SearchEndpointTests.get(server, "/catalogs/places/items/1")
    #expect(itemStatus == .ok)
    #expect(item["alternates"] as? [String] == Self.alternates)
    #expect(item["more"] == nil)
  }
}
#endif
