import Foundation
import Sift
import SiftTestSupport
import Testing

@testable import SiftStore

@Suite("Built-in catalogs", .tags(.unit))
struct BuiltInCatalogTests {
  @Test(
    "each loads with the data of its seed tutorial",
    arguments: [
      (BuiltInCatalog.products, 15, "Products"), (.candies, 15, "Candies"), (.meals, 3, "Meals"),
      (.media, 40, "Media"),
    ])
  func loads(_ catalog: BuiltInCatalog, _ count: Int, _ title: String) throws {
    let document = try catalog.load()
    #expect(document.items.count == count)
    #expect(document.schema.title == title)
    #expect(Set(document.items.map(\.id)).count == count, "ids are unique")
    #expect(document.schema.fields.contains { $0.name == document.schema.titleField })
    for token in document.schema.suggestedTokens {
      #expect((try? Query.term(forToken: token.identifier, schema: document.schema).get()) != nil)
    }
  }

  @Test func products() throws {
    let document = try BuiltInCatalog.products.load()
    let ginger = try #require(document.items.first)
    #expect(ginger["title"] == .text("Ginger"))
    #expect(ginger["year"] == .number(2007))
    #expect(ginger["price"] == .number(49.98))
    #expect(ginger["type"] == .text("Birthdays"))
    let price = try #require(document.schema.field(named: "Intro price"))
    #expect(price.display(.number(25)) == "25.00")
    #expect(document.schema.field(named: "Year introduced")?.name == "year")
  }

  @Test("the data folder follows SIFT_DATA_DIR, then XDG_DATA_HOME, then HOME")
  func dataDirectory() {
    #expect(
      DataDirectory.resolve(environment: ["SIFT_DATA_DIR": "/d", "XDG_DATA_HOME": "/x"]).path
        == "/d")
    #expect(
      DataDirectory.resolve(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]).path == "/x/sift")
    #expect(DataDirectory.resolve(environment: ["HOME": "/h"]).path == "/h/.local/share/sift")
    #expect(
      DataDirectory.resolve(environment: ["SIFT_DATA_DIR": "", "HOME": "/h"]).path
        == "/h/.local/share/sift")
  }
}
