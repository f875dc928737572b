import Foundation
import SiftTestSupport
import Testing

@testable import Sift

@Suite("The typed door", .tags(.unit))
struct TypedDoorTests {
  @Test("CandySearch on the app's own Candy: results are its elements, scopes and tokens typed")
  func candies() throws {
    var candies = try SearchCollection(Candy.all, schema: Candy.schema.get())
    candies.filter(by: SearchCriteria(text: "cho"))
    #expect(
      candies.results.map(\.name) == [
        "Chocolate Bar", "Chocolate Chip", "Chocolate Coin", "Chocolate Egg", "Dark Chocolate",
      ])
    candies.filter(by: SearchCriteria(text: "a", scopeIndex: 2))
    #expect(Set(candies.results.map(\.name)) == ["Candy Cane", "Jaw Breaker", "Toffee Apple"])
    let token = try Candy.schema.get().searchToken(for: .category("Other"))
    #expect(token == SearchToken(text: "Other", icon: "🍬", identifier: "category:Other"))
    candies.filter(by: SearchCriteria(text: "ca", tokens: [token]))
    #expect(candies.results.map(\.name) == ["Caramel", "Candy Floss"])
    let floss = try #require(candies.results.first)
    let ranges = candies.highlights(\.name, of: floss)
    #expect(ranges.map { String(floss.name[$0]) } == ["Ca"])
  }

  @Test("a category declared searchable is found by plain terms, after the names, highlighted")
  func searchableCategory() throws {
    let schema = try SearchSchema<Candy>(
      name: "candies", title: .text("name", \.name),
      fields: [.category("category", \.category, searchable: true)])
    var candies = try SearchCollection(Candy.all, schema: schema)
    // "Hard" names no candy: the hard candies, in catalog order.
    candies.filter(by: SearchCriteria(text: "hard"))
    #expect(
      candies.results.map(\.name) == ["Lollipop", "Candy Cane", "Jaw Breaker", "Toffee Apple"])
    let lollipop = try #require(candies.results.first)
    let ranges = candies.highlightRanges(in: "Hard", field: "category", of: lollipop)
    #expect(ranges.map { String("Hard"[$0]) } == ["Hard"])
    // A candy named with the word comes before the ones whose category holds it.
    candies.filter(by: SearchCriteria(text: "choc"))
    #expect(candies.results.count == 5)
    #expect(candies.results.allSatisfy { $0.name.contains("Chocolate") })
    // The seeds' own schema does not search it.
    var seeds = try SearchCollection(Candy.all, schema: Candy.schema.get())
    seeds.filter(by: SearchCriteria(text: "hard"))
    #expect(seeds.results.isEmpty)
  }

  @Test("Product: numbers from Int and Decimal, range tokens by key path, ranking by a key path")
  func products() throws {
    var products = try SearchCollection(Product.all, schema: Product.schema.get())
    let schema = try Product.schema.get()
    let since2010 = try schema.searchToken(for: .range(\.year, 2010...))
    #expect(since2010.identifier == "year:>=2010")
    #expect(since2010.text == "Year introduced ≥ 2010")
    let cheap = try schema.searchToken(for: .range(\.price, ..<20))
    #expect(cheap.identifier == "price:<20")
    products.filter(by: SearchCriteria(text: "r", tokens: [since2010]))
    #expect(products.results.map(\.title) == ["Red Rose", "Poinsettia Red", "White Rose"])
    products.filter(by: SearchCriteria(tokens: [cheap]))
    #expect(products.results.map(\.title) == ["Orchid", "Geranium", "Daisy"])
    products.filter(by: SearchCriteria(text: "price:16.99..17"))
    #expect(products.results.count == 3)
    #expect(throws: CatalogSchemaError.undeclaredKeyPath("\\Product.id", role: "token")) {
      try schema.searchToken(for: .range(\Product.id, 1...))
    }

    let ranked = try SearchSchema<Product>(
      title: .text("title", \.title), fields: [.number("year", \.year)], rankedBy: \.year)
    var newest = try SearchCollection(Product.all, schema: ranked)
    newest.filter(by: SearchCriteria(text: "rose"))
    #expect(newest.results.map(\.title) == ["White Rose", "Red Rose"])
  }

  @Test("Meal: UUID ids, optional fields, field scopes; edits by element and by id")
  func meals() throws {
    var meals = try SearchCollection(Meal.all, schema: Meal.schema.get())
    meals.filter(by: SearchCriteria(text: "4", scopeIndex: 1))
    #expect(meals.results.map(\.name) == ["Caprese Salad"])
    meals.filter(by: SearchCriteria(text: "pa", scopeIndex: 0))
    #expect(meals.results.map(\.name) == ["Pasta with Meatballs"])

    let soup = Meal(id: UUID(), name: "Pumpkin Soup", photo: nil, rating: 4)
    let added = try meals.add(soup)
    #expect(meals.results.map(\.name).contains("Pumpkin Soup") == false)
    #expect(added.isEmpty)
    var pasta = try #require(meals.results.first)
    pasta.name = "Fettuccine"
    let updated = try meals.update(pasta)
    #expect(updated.deleted == [0])
    #expect(meals.element(id: pasta.id)?.name == "Fettuccine")
    try meals.delete(id: soup.id)
    #expect(meals.element(id: soup.id) == nil)
    #expect(throws: CatalogEditError.unknownID(ItemID(soup.id.uuidString))) {
      try meals.delete(id: soup.id)
    }
    #expect(throws: CatalogEditError.duplicateID(ItemID(pasta.id.uuidString))) {
      try meals.add(pasta)
    }
  }

  @Test("a schema mistake throws an error that names it")
  func schemaMistakes() {
    #expect(throws: CatalogSchemaError.undeclaredKeyPath("\\Product.year", role: "ranking")) {
      try SearchSchema<Product>(title: .text("title", \.title), rankedBy: \.year)
    }
    #expect(throws: CatalogSchemaError.keyPathDeclaredTwice("\\Product.title", "title", "name")) {
      try SearchSchema<Product>(title: .text("title", \.title), fields: [.text("name", \.title)])
    }
    #expect(throws: CatalogSchemaError.duplicateField("year")) {
      try SearchSchema<Product>(
        title: .text("title", \.title), fields: [.number("year", \.year), .text("year", \.type)])
    }
    #expect(throws: CatalogSchemaError.wrongKind("type", role: "title", expected: .text)) {
      try SearchSchema<Product>(title: .category("type", \.type))
    }
    #expect(throws: CatalogSchemaError.categoryScopeWithoutCategory("Hard")) {
      try SearchSchema<Product>(title: .text("title", \.title), scopes: [.category("Hard")])
    }
    #expect(throws: CatalogSchemaError.secondCategory("kind", first: "type")) {
      try SearchSchema<Product>(
        title: .text("title", \.title),
        fields: [.category("type", \.type), .category("kind", \.title)])
    }
    let error = CatalogSchemaError.undeclaredKeyPath("\\Product.year", role: "ranking")
    #expect(
      error.description == "the ranking key path \\Product.year is not one of the schema's fields")
  }

  @Test(
    "typed and dynamic doors give the same rows for the same data",
    arguments: [
      "", "r", "rose", "red -rose", "2007", "year:>=2010", "price:<20", "gard", "carnaton",
      "\"red\"",
    ])
  func sameAsDynamic(text: String) throws {
    let typed = try SearchSchema<Product>(
      title: .text("title", \.title),
      fields: [.number("year", \.year), .number("price", \.price), .category("type", \.type)])
    let items = Product.all.map { product in
      Item(
        id: ItemID(String(product.id)),
        fields: [
          "title": .text(product.title), "year": .number(Double(product.year)),
          "price": .number(NSDecimalNumber(decimal: product.price).doubleValue),
          "type": .text(product.type),
        ])
    }
    var a = try SearchCollection(Product.all, schema: typed)
    var b = try FilteredCollection(schema: typed.catalog, items: items)
    a.filter(by: SearchCriteria(text: text))
    b.filter(by: SearchCriteria(text: text))
    #expect(a.rows.map { ItemID(String($0)) } == b.rows)
    #expect((0..<a.rows.count).map(a.rank(atRow:)) == (0..<b.rows.count).map(b.rank(atRow:)))
  }

  @Test("row changes replayed on the old results give the new results")
  func rowChangesReplay() throws {
    let seed: UInt64 = 20_261_122
    var random = SplitMix64(seed: seed)
    var candies = try SearchCollection(Candy.all, schema: Candy.schema.get())
    candies.filter(by: SearchCriteria(text: "c"))
    let names = ["Cocoa", "Mint", "Choc Drop", "Cane", "Fudge", "Cola Bottle", "Chew"]
    var nextID = 100
    for step in 0..<300 {
      let before = Array(candies.results)
      let changes: RowChanges
      switch random.next() % 3 {
      case 0:
        nextID += 1
        changes = try candies.add(
          Candy(
            id: nextID, name: names[Int(random.next() % 7)],
            category: [.chocolate, .hard, .other][Int(random.next() % 3)]))
      case 1:
        let all = candies.allElements
        var candy = all[Int(random.next() % UInt64(all.count))]
        candy.name = names[Int(random.next() % 7)]
        changes = try candies.update(candy)
      default:
        guard candies.totalCount > 5 else { continue }
        let all = candies.allElements
        changes = try candies.delete(id: all[Int(random.next() % UInt64(all.count))].id)
      }
      let after = Array(candies.results)
      let replayed = changes.applied(to: before) { after[$0] }
      #expect(replayed.map(\.id) == after.map(\.id), "step \(step)")
      // A row not reloaded shows the same element as before.
      for row in after.indices where !changes.reloaded.contains(row) {
        #expect(replayed[row] == after[row], "step \(step), row \(row)")
      }
    }
  }
}
