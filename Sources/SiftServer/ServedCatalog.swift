import Foundation
import Sift
import SiftStore
import Synchronization

/// One catalog the server answers for: its file and the collection searches start from.
///
/// Searches take the current collection (a value: copying it shares the index) and run on it
/// with no lock held, on as many cores as there are requests; an edit replaces it whole once it
/// is written, so a search sees the catalog before an edit or after it, never half of one.
public final class ServedCatalog: Sendable {
  /// The name it is served under (`/catalogs/NAME/…`): the built-in name or the file's name.
  public let name: String
  let store: CatalogStore
  private let current: Mutex<FilteredCollection>

  /// Opens `store`'s collection (its index read from the file, or rebuilt and saved).
  public init(name: String, store: CatalogStore) throws(StoreError) {
    self.name = name
    self.store = store
    let (collection, _) = try store.openCollection()
    // The near-spelling dictionaries and trigrams are made ready off the request path.
    let index = collection.index
    DispatchQueue.global(qos: .utility).async {
      index.prepareNearSpellings()
      index.prepareSubstringSearch()
    }
    current = Mutex(collection)
  }

  public var schema: CatalogSchema { current.withLock { $0.schema } }

  /// The collection as it is now, to search without holding anything.
  var collection: FilteredCollection { current.withLock { $0 } }

  /// The answer to `parameters`, with the items of the requested page read from the file.
  func search(_ parameters: SearchParameters) throws(ServerError) -> SearchResponse {
    var controller = SearchController(collection: collection)
    do throws(SearchRequestError) {
      try controller.apply(parameters.input)
    } catch .unknownScope(let scope, _, let scopes) {
      let known =
        scopes.isEmpty ? "it has no scope bar" : "its scopes are \(scopes.joined(separator: ", "))"
      throw .badRequest("scope: no scope \"\(scope)\" in catalog \(name); \(known)")
    } catch {
      // An invalid token: the engine's message, under the parameter's name.
      throw .badRequest("token: \(error)")
    }
    return SearchResponse(
      catalog: name, controller: controller,
      page: parameters.offset..<parameters.offset + parameters.limit,
      facets: parameters.facets)
  }
}
