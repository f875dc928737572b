import SiftTestSupport
import Testing

@testable import Sift

/// A line of text shows a list's matched values first (`PageRequest.ordersListValues`): the
/// same values a page highlights, in the same order, then every other value as it came.
@Suite("A list's matched values first", .tags(.unit))
struct ListOrderTests {
  static let schema = CatalogSchema(
    name: "countries", fields: [.text("name"), .text("names", names: true)], titleField: "name")

  static let items = [
    Item(
      id: "DE",
      fields: [
        "name": .text("Germany"),
        "names": .texts(["Almanca", "Deutsch", "Duits", "Allemagne", "Jerman", "Alemania"]),
      ]),
    Item(
      id: "FR", fields: ["name": .text("France"), "names": .texts(["Frankreich", "Francia"])]),
  ]

  @Test(
    "the matched values, as a page highlights them, then the rest as they came",
    arguments: ["alle", "ale", "deutsch", "germany", "fran", "a", "duits allemagne"])
  func order(query: String) throws {
    let collection = try FilteredCollection(schema: Self.schema, items: Self.items)
    let request = try SearchRequest(SearchRequestInput(text: query), schema: Self.schema)
    let searched = collection.searched(request)
    let lines = searched.page(
      PageRequest(limit: 10, showsFields: false, ordersListValues: true), answering: request)
    let shown = searched.page(PageRequest(limit: 10), answering: request)
    #expect(lines.results.map(\.item.id) == shown.results.map(\.item.id))
    for (line, page) in zip(lines.results, shown.results) {
      guard case .texts(let all)? = line.item["names"] else { continue }
      // The reference: the values the page highlighted, then the others in their order.
      let matched =
        page.fields.first { $0.name == "names" }?.highlights.map(\.text) ?? []
      let expected = matched + all.filter { !matched.contains($0) }
      let listed = line.fields.first { $0.name == "names" }
      if matched.isEmpty {
        #expect(listed == nil, "\(query): nothing matched, the list is left as it came")
      } else {
        #expect(listed?.value == .texts(expected), "\(query) \(line.item.id)")
        #expect(listed?.highlights.isEmpty == true)
      }
    }
  }
}
