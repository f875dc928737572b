import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// An item in several categories (a film's genres): each value counts in the facets, a scope or
/// a token of any of them keeps the item, and one result per group keeps one item per list.
/// Checked against a reference written here, on random catalogs, through edits and an archive.
@Suite("Categories that are lists", .tags(.unit))
struct ListCategoryTests {
  static let genres = ["Action", "Crime", "drama", "Drama", "Comedy", "Film-Noir", "Ænima"]
  static let words = ["heat", "toy", "story", "war", "worlds", "fargo", "alien", "up"]

  static let schema = CatalogSchema(
    name: "films", fields: [.text("title"), .category("genres"), .number("votes")],
    titleField: "title", categoryField: "genres",
    scopes: [.all(), .category("Action"), .category("Drama"), .category("Comedy")],
    rankingField: RankingField(parsing: "votes"))

  static func item(_ index: Int, _ random: inout SplitMix64) -> Item {
    var fields: [String: FieldValue] = [
      "title": .text(
        (0..<Int.random(in: 1...2, using: &random)).map { _ in
          words.randomElement(using: &random)!
        }.joined(separator: " ")),
      "votes": .number(Double(Int.random(in: 0...50, using: &random))),
    ]
    switch Int.random(in: 0..<4, using: &random) {
    case 0: break
    case 1: fields["genres"] = .text(genres.randomElement(using: &random)!)
    default:
      fields["genres"] = .texts(
        (0..<Int.random(in: 0...4, using: &random)).map { _ in
          genres.randomElement(using: &random)!
        })
    }
    return Item(id: ItemID("\(index)"), fields: fields)
  }

  /// The folded genres an item holds, by the reference's own reading.
  static func held(_ item: Item) -> Set<String> {
    Set(
      (item["genres"]?.strings ?? []).map {
        $0.lowercased().replacingOccurrences(of: "æ", with: "ae")
      })
  }

  static func check(
    _ collection: FilteredCollection, items: [Item], _ context: String
  ) throws {
    let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
    for text in ["", "heat", "a"] {
      var all = collection
      all.filter(by: SearchCriteria(text: text))
      let shown = all.rows.compactMap { byID[$0] }
      // Each value counts every item that holds it, once however often it is listed.
      var expected: [String: Int] = [:]
      for item in shown { for genre in held(item) { expected[genre, default: 0] += 1 } }
      #expect(all.facets.categories == expected, "\(context) \(text)")
      for (index, scope) in schema.scopes.enumerated() {
        guard case .category(let value) = scope.filter else { continue }
        var scoped = collection
        scoped.filter(by: SearchCriteria(text: text, scopeIndex: index))
        let wanted = shown.filter { held($0).contains(value.lowercased()) }.map(\.id)
        #expect(scoped.rows == wanted, "\(context) \(text) scope \(value)")
        var token = collection
        token.filter(
          by: SearchCriteria(
            text: text,
            tokens: [SearchToken(text: value, identifier: "category:\(value.uppercased())")]))
        #expect(token.rows == wanted, "\(context) \(text) token \(value)")
      }
    }
  }

  @Test("facets, scopes and tokens agree with a reference, through edits", arguments: [1, 2, 3])
  func againstReference(seed: UInt64) throws {
    var random = SplitMix64(seed: 6_700 + seed)
    var items = (0..<150).map { Self.item($0, &random) }
    var collection = try FilteredCollection(schema: Self.schema, items: items)
    try Self.check(collection, items: items, "built")
    for serial in 0..<60 {
      let index = Int.random(in: 0..<items.count, using: &random)
      if Bool.random(using: &random) {
        var changed = Self.item(1_000 + serial, &random)
        changed.id = items[index].id
        items[index] = changed
        try collection.apply(.update(changed))
      } else {
        let added = Self.item(2_000 + serial, &random)
        items.append(added)
        try collection.apply(.add(added.id, fields: added.fields))
      }
    }
    try Self.check(collection, items: items, "edited")
    // Archived and read back: the same answers, and the bytes of a fresh build.
    let archived = collection.index.archived()
    let fresh = try FilteredCollection(schema: Self.schema, items: items)
    #expect(archived == fresh.index.archived(), "canonical")
    let read = try SearchIndex<ItemID>(archive: archived, schema: Self.schema)
    #expect(read.archived() == archived)
    #expect(read.categorySets == fresh.index.categorySets)
  }

  @Test("a value's spelling survives the archive: an edit's Ferret is not read back as ferret")
  func spellingsArchived() throws {
    var pets = try FilteredCollection(
      schema: CatalogSchema(
        name: "pets", fields: [.text("name"), .category("species")], titleField: "name",
        categoryField: "species", scopes: [.all(), .category("Dog")]),
      items: [Item(id: "1", fields: ["name": .text("Rex"), "species": .text("Dog")])])
    try pets.apply(.add("2", fields: ["name": .text("Biscuit"), "species": .text("Ferret")]))
    let read = try SearchIndex<ItemID>(archive: pets.index.archived(), schema: pets.schema)
    #expect(read.categorySpellings[TextFolding.fold("Ferret")] == "Ferret")
    var controller = SearchController(collection: pets)
    controller.send(.focus)
    controller.send(.setText("#fe"))
    #expect(controller.suggestions.map(\.text) == ["Ferret"])
  }

  @Test("one result per list of categories: items with the same list are one group")
  func distinct() throws {
    let items = [
      Item(id: "1", fields: ["title": .text("a"), "genres": .texts(["Crime", "Drama"])]),
      Item(id: "2", fields: ["title": .text("b"), "genres": .texts(["Crime", "Drama"])]),
      Item(id: "3", fields: ["title": .text("c"), "genres": .text("Crime")]),
      Item(id: "4", fields: ["title": .text("d"), "genres": .texts(["Drama", "Crime"])]),
      Item(id: "5", fields: ["title": .text("e")]),
      Item(id: "6", fields: ["title": .text("f")]),
    ]
    var collection = try FilteredCollection(schema: Self.schema, items: items)
    collection.filter(by: SearchCriteria(text: "", distinct: "genres"))
    #expect(collection.rows == ["1", "3", "4", "5", "6"])
  }
}
