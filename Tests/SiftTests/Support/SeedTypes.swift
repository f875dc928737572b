import Foundation
import Sift

/// The seeds' own types, as an app declares them, with the seeds' data.
struct Candy: Identifiable, Hashable, Sendable {
  enum Category: String, Sendable { case chocolate = "Chocolate", hard = "Hard", other = "Other" }
  var id: Int
  var name: String
  var category: Category

  static let schema = Result { () throws(CatalogSchemaError) in
    try SearchSchema<Candy>(
      name: "candies", title: .text("name", \.name),
      fields: [.category("category", \.category)],
      scopes: [
        .all(), .category("Chocolate", icon: "🍫"), .category("Hard", icon: "🍭"),
        .category("Other", icon: "🍬"),
      ])
  }

  static let rows: [(String, Category)] = [
    ("Chocolate Bar", .chocolate), ("Chocolate Chip", .chocolate), ("Dark Chocolate", .chocolate),
    ("Lollipop", .hard), ("Candy Cane", .hard), ("Jaw Breaker", .hard), ("Caramel", .other),
    ("Sour Chew", .other), ("Gummi Bear", .other), ("Candy Floss", .other),
    ("Chocolate Coin", .chocolate), ("Chocolate Egg", .chocolate), ("Jelly Beans", .other),
    ("Liquorice", .other), ("Toffee Apple", .hard),
  ]
  static let all = rows.enumerated().map { Candy(id: $0 + 1, name: $1.0, category: $1.1) }
}

struct Product: Identifiable, Hashable, Sendable {
  var id: Int
  var title: String
  var year: Int
  var price: Decimal
  var type: String

  static let schema = Result { () throws(CatalogSchemaError) in
    try SearchSchema<Product>(
      name: "products", title: .text("title", \.title),
      fields: [
        .number("year", \.year, label: "Year introduced"),
        .number("price", \.price, label: "Intro price", decimals: 2),
        .category("type", \.type),
      ],
      scopes: [.all(), .category("Birthdays"), .category("Weddings"), .category("Funerals")],
      tokens: [SearchToken(text: "Under $20", identifier: "price:<20")])
  }

  static let rows: [(String, Int, Double, String)] = [
    ("Ginger", 2007, 49.98, "Birthdays"), ("Gladiolus", 2001, 51.99, "Birthdays"),
    ("Orchid", 2007, 16.99, "Birthdays"), ("Geranium", 2006, 16.99, "Birthdays"),
    ("Daisy", 2006, 16.99, "Birthdays"), ("Tulip", 1997, 39.99, "Weddings"),
    ("Carnation Red", 2006, 23.99, "Weddings"), ("Carnation White", 2007, 23.99, "Weddings"),
    ("Sunflower", 2008, 25.00, "Weddings"), ("Gardenia", 2006, 25.00, "Weddings"),
    ("Daffodil", 2008, 24.99, "Weddings"), ("Poinsettia Red", 2010, 31.99, "Funerals"),
    ("Poinsettia Pink", 2011, 31.99, "Funerals"), ("Red Rose", 2010, 24.99, "Funerals"),
    ("White Rose", 2012, 24.99, "Funerals"),
  ]
  static let all = rows.enumerated().map { offset, row in
    Product(
      id: offset + 1, title: row.0, year: row.1, price: Decimal(string: "\(row.2)")!, type: row.3)
  }
}

/// FoodTracker's meal: an optional photo and a rating, searched by name or by rating.
struct Meal: Identifiable, Hashable, Sendable {
  var id: UUID
  var name: String
  var photo: String?
  var rating: Int

  static let schema = Result { () throws(CatalogSchemaError) in
    try SearchSchema<Meal>(
      name: "meals", title: .text("name", \.name),
      fields: [.number("rating", \.rating), .text("photo", \.photo, searchable: false)],
      scopes: [.fields("Name", ["name"]), .fields("Rating", ["rating"])])
  }

  static let all: [Meal] = [
    Meal(id: UUID(), name: "Caprese Salad", photo: "meal1", rating: 4),
    Meal(id: UUID(), name: "Chicken and Potatoes", photo: "meal2", rating: 5),
    Meal(id: UUID(), name: "Pasta with Meatballs", photo: "meal3", rating: 3),
  ]
}
