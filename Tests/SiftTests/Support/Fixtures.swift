import Sift
import SiftTestSupport

/// The built-in catalogs (the seed tutorials' data) as in-memory controllers and collections.
enum Fixtures {
  static func document(_ catalog: SeedCatalog) throws -> CatalogDocument {
    try catalog.load()
  }

  static func collection(_ catalog: SeedCatalog) throws -> FilteredCollection {
    try document(catalog).makeCollection()
  }

  /// A controller on the catalog, active with the search field focused (the user tapped it).
  static func activeController(_ catalog: SeedCatalog) throws -> SearchController {
    var controller = SearchController(collection: try collection(catalog))
    controller.send(.focus)
    return controller
  }

  /// The value of `field` of each row, in row order.
  static func column(_ field: String, of controller: SearchController) -> [String] {
    controller.rows.compactMap { controller.collection.item(id: $0)?[field]?.displayText }
  }
}

extension SearchController {
  /// Types `text` as the new field content and returns the titles shown.
  mutating func type(_ text: String) -> [String] {
    send(.setText(text))
    return Fixtures.column(schema.titleField, of: self)
  }

  var titles: [String] { Fixtures.column(schema.titleField, of: self) }
}
