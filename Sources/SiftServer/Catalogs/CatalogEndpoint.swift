#if Server
import Sift

/// A catalog as the server answers for it: searched in memory from its .sqlite file
/// (`ServedCatalog`) or compiled to SQL in PostgreSQL (`ServedPostgresCatalog`). Both give the
/// same answers for the same items; the routes do not know which they talk to.
package protocol CatalogEndpoint: Sendable {
  /// The name it is served under (`/catalogs/NAME/…`).
  var name: String { get }
  var schema: CatalogSchema { get }
  /// How many items it holds now, for `GET /catalogs`.
  func itemCount() async throws(ServerError) -> Int
  /// The answer to a search: indicator, counts, a page of results, facets on request.
  func search(_ parameters: SearchParameters) async throws(ServerError) -> JSONValue
  /// The item with `id` as `GET /catalogs/NAME/items/ID` gives it.
  func itemAnswer(_ id: ItemID) async throws(ServerError) -> JSONValue
  /// Saves `edit` before returning; the item's id (for an add without one, the id it got).
  func commit(_ edit: CatalogEdit) async throws(ServerError) -> ItemID
}
#endif
