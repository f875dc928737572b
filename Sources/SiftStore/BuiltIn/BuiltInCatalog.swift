import Foundation
import Sift

/// The catalogs that ship with Sift, one for each seed tutorial: the Apple sample's
/// `products`, CandySearch's `candies`, the search-token article's `media` and FoodTracker's
/// `meals`.
public enum BuiltInCatalog: String, CaseIterable, Sendable {
  case products, candies, media, meals

  /// The catalog opened when none is named.
  public static let `default` = BuiltInCatalog.products

  /// The shipped document, decoded from the package's resources.
  public func load() throws -> CatalogDocument {
    guard
      let url = Bundle.module.url(
        forResource: rawValue, withExtension: "json", subdirectory: "Catalogs")
    else {
      throw BuiltInCatalogError.missingResource(rawValue)
    }
    return try JSONDecoder().decode(CatalogDocument.self, from: Data(contentsOf: url))
  }
}

public enum BuiltInCatalogError: Error, CustomStringConvertible {
  case missingResource(String)

  public var description: String {
    switch self {
    case .missingResource(let name): "the built-in catalog \"\(name)\" is missing from this build"
    }
  }
}
