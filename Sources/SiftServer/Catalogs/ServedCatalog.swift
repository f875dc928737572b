import Foundation
import Sift
import SiftStore

/// One catalog the server answers for: its file and the collection searches start from.
///
/// Searches take the current collection (a value: copying it shares the index) and run on it
/// with no lock held, on as many cores as there are requests; an edit replaces it whole once it
/// is written, so a search sees the catalog before an edit or after it, never half of one.
/// The last searches on the current collection are kept (`RecentSearches`): a keystroke refines
/// the one before it, and a repeated search is not searched again.
public final class ServedCatalog: CatalogEndpoint {
  /// The name it is served under (`/catalogs/NAME/…`): the built-in name or the file's name.
  package let name: String
  let store: CatalogStore
  private let current: Locked<State>
  /// Held while an edit is saved and applied: edits go one at a time. Searches never take it.
  private let editing = NSLock()

  /// The collection searches start from, its edit count, and the searches answered on it.
  private struct State: Sendable {
    var collection: FilteredCollection
    /// Counts up once when an edit starts writing the file and once when it is applied: odd
    /// while the file may hold an edit the collection does not. A page read from the file
    /// belongs to its rows only if the count is even and the same before and after reading.
    var edits = 0
    var recent: RecentSearches
  }

  /// Opens `store`'s collection (its index read from the file, or rebuilt and saved);
  /// `recentSearches` is how many answered searches are kept to refine (0: none).
  public init(name: String, store: CatalogStore, recentSearches: Int = 64) throws(StoreError) {
    self.name = name
    self.store = store
    let (collection, _) = try store.openCollection()
    // Near-spelling dictionaries and trigrams, off the request path.
    collection.index.prepareForSearchingInBackground()
    current = Locked(
      State(collection: collection, recent: RecentSearches(capacity: recentSearches)))
  }

  package var schema: CatalogSchema { collection.schema }

  package func itemCount() -> Int { collection.totalCount }

  package func itemAnswer(_ id: ItemID) throws(ServerError) -> JSONValue {
    ResultItem.json(try item(id), collection: collection)
  }

  /// The collection as it is now, to search without holding anything.
  var collection: FilteredCollection { current.withLock { $0.collection } }

  /// Writes `edit` to the file, then makes it what the next search sees; returns the item's id
  /// (for an add without one, the id the catalog gave it). Searches go on meanwhile: one whose
  /// page was read while the file changed is searched again (`search(_:)`).
  package func commit(_ edit: CatalogEdit) throws(ServerError) -> ItemID {
    editing.lock()
    defer { editing.unlock() }
    let collection = current.withLock { state in
      state.edits += 1  // odd: the file may change from here on
      return state.collection
    }
    var controller = SearchController(collection: collection)
    var edited: FilteredCollection?
    defer {
      current.withLock { state in
        if let edited {
          state.collection = edited
          state.recent.removeAll()
        }
        state.edits += 1  // even: the collection is the file's again
      }
    }
    do throws(CatalogEditFailure<StoreError>) {
      let committed = try controller.commit(edit, to: store)
      edited = controller.collection
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

  /// The answer to `parameters`, searched on `SearchWorkers` in the order requests came.
  package func search(_ parameters: SearchParameters) async throws(ServerError) -> JSONValue {
    try await SearchWorkers.shared.run { () throws(ServerError) in
      try self.searchNow(parameters)
    }
  }

  /// The answer to `parameters`, with the items of the requested page read from the file.
  package func searchNow(_ parameters: SearchParameters) throws(ServerError) -> JSONValue {
    while true {
      let (controller, edits) = try searched(parameters.input)
      // An edit is being written: the file may already hold it, the rows do not yet.
      guard edits.isMultiple(of: 2) else {
        usleep(200)
        continue
      }
      // The page's items are read from the file without a lock; when an edit started or ended
      // meanwhile, they may not be the rows' items, and the search is made again.
      let response = SearchResponse.json(
        catalog: name, controller: controller,
        page: parameters.offset..<parameters.offset + parameters.limit,
        facets: parameters.facets, explain: parameters.explain)
      if current.withLock({ $0.edits }) == edits { return response }
    }
  }

  /// The controller that answers `input` on the current collection — refined from a recent
  /// search, or remembered, or searched afresh — and the edit count it belongs to.
  private func searched(
    _ input: SearchRequestInput
  ) throws(ServerError) -> (SearchController, edits: Int) {
    let (start, collection, edits) = current.withLock { state in
      (state.recent.start(for: input), state.collection, state.edits)
    }
    var controller: SearchController
    switch start {
    case (let found, exact: true)?:
      return (found, edits)
    case (let base, exact: false)?:
      // Only the text differs, and it extends the base's: the engine narrows the base's rows.
      controller = base
      controller.send(.setText(input.text))
    case nil:
      controller = SearchController(collection: collection)
      do throws(SearchRequestError) {
        try controller.apply(input)
      } catch {
        throw .refused(error, catalog: name)
      }
    }
    let answered = controller
    current.withLock { state in
      if state.edits == edits { state.recent.remember(answered, for: input) }
    }
    return (controller, edits)
  }
}
