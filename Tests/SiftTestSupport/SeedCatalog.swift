import Foundation
import Sift

/// The seed catalogs (the seed tutorials' data) for the engine's and the terminal's tests, read straight
/// from the JSON documents `SiftStore` ships, so those tests need no catalog store.
public enum SeedCatalog: String, CaseIterable, Sendable {
  case products, candies, media, meals

  /// Where the documents live in the source tree.
  static let folder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources/SiftStore/BuiltIn/Catalogs")

  /// The catalog's document, decoded.
  public func load() throws -> CatalogDocument {
    let url = Self.folder.appendingPathComponent("\(rawValue).json")
    return try JSONDecoder().decode(CatalogDocument.self, from: Data(contentsOf: url))
  }
}
