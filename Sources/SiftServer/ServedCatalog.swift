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
  /// Held while an edit is written and applied: edits go one at a time, in arrival order.
  private let editing = NSLock()

  /// Opens `store`'s collection (its index read from the file, or rebuilt and saved).
  public init(name: String, store: CatalogStore) throws(StoreError) {
    self.name = name
    self.store = store
    let (collection, _) = try store.openCollection()
    // Near-spelling dictionaries and trigrams, off the request path.
    collection.index.prepareForSearchingInBackground()
    current = Mutex(collection)
  }

  public var schema: CatalogSchema { current.withLock { $0.schema } }

  /// The collection as it is now, to search without holding anything.
  var collection: FilteredCollection { current.withLock { $0 } }

  /// Writes `edit` to the file, then makes it what the next search sees; returns the item's id
  /// (for an add without one, the id the catalog gave it).
  func commit(_ edit: CatalogEdit) throws(ServerError) -> ItemID {
    editing.lock()
    defer { editing.unlock() }
    var controller = SearchController(collection: collection)
    do throws(CatalogEditFailure<StoreError>) {
      let committed = try controller.commit(edit, to: store)
      let edited = controller.collection
      current.withLock { $0 = edited }
      return committed.id
    } catch .refused(.unknownID(let id)) {
      throw .notFound("no item \"\(id.rawValue.prefix(100))\" in catalog \(name)")
    } catch .refused(.duplicateID(let id)) {
      throw ServerError(
        .conflict, "id: catalog \(name) has an item \"\(id.rawValue.prefix(100))\" already")
    } catch {
      switch error {
      case .refused(let refusal): throw .badRequest("\(refusal)")
      case .notSaved(let failure):
        throw ServerError(.serviceUnavailable, "the edit was not saved: \(failure)")
      }
    }
  }

  /// The item with `id` as the file holds it now.
  func item(_ id: ItemID) throws(ServerError) -> Item {
    let found: Item?
    do {
      found = try store.item(id: id)
    } catch {
      throw ServerError(.serviceUnavailable, "the catalog could not be read: \(error)")
    }
    guard let found else {
      throw .notFound("no item \"\(id.rawValue.prefix(100))\" in catalog \(name)")
    }
    return found
  }

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
      facets: parameters.facets, explain: parameters.explain)
  }
}
