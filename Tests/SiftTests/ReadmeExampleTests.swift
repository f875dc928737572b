import Sift
import Testing

/// The README's example, line for line, so it cannot rot.
@Suite("README example")
struct ReadmeExampleTests {
  @Test func example() throws {
    let schema = CatalogSchema(
      name: "candies",
      fields: [.text("name"), .category("category"), .number("sales")],
      titleField: "name", categoryField: "category",
      scopes: [.all(), .category("Chocolate"), .category("Hard"), .category("Other")],
      rankingField: RankingField("sales"))
    let candies = try FilteredCollection(
      schema: schema,
      items: [
        Item(id: "1", fields: ["name": .text("Chocolate Bar"), "category": .text("Chocolate")]),
        Item(id: "2", fields: ["name": .text("Caramel"), "category": .text("Other")]),
      ])

    var search = SearchController(collection: candies)
    #expect(search.placeholder == "Search candies")
    #expect(search.send(.focus) == [.willPresent, .didPresent, .updateSearchResults])
    #expect(search.send(.setText("caramel")) == [.updateSearchResults])
    #expect(search.rows == ["2"])
    #expect(search.indicator.text == "1 item found")
    search.send(.selectScope(1))
    #expect(search.indicator.text == "No items match your query")

    search.send(.selectScope(0))
    search.send(.setText("carmel"))
    #expect(search.indicator.text == "No exact matches — showing 1 near spelling")
    #expect(
      search.collection.explanation(forRow: 0)?.rank
        == MatchRank(typos: 1, exactness: .wordStarts, attribute: 0, position: 0))
    let changes = try search.delete(id: "2")
    #expect(changes == RowChanges(deleted: [0]))

    let saved = search.encodedSnapshot()
    var next = SearchController(collection: candies)
    let problems = next.restore(from: saved)
    #expect(problems.isEmpty)
    #expect(next.text == "carmel")
  }
}
