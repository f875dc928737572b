import Sift

/// Where a served catalog's writes go when its file is a copy of a catalog kept elsewhere — a
/// PostgreSQL node's local copy. The served catalog (`StoredCatalog`) searches its file and
/// memory as any other and applies the upstream's changes to them (`followUpstream`); the
/// upstream keeps the truth and the order of changes: it saves each write and shows it in the
/// copy before answering, and gives the change feed and waits for versions.
package protocol CatalogUpstream: Sendable {
  /// Saves `edit` upstream, then shows it in the copy (applied as the log's entry for it)
  /// before returning.
  func commit(_ edit: CatalogEdit) async throws(CatalogFailure) -> CatalogCommit
  /// Saves the synonyms upstream and shows them in the copy; the version after them.
  func replaceSynonyms(_ synonyms: Synonyms) async throws(CatalogFailure) -> Int64
  /// Saves the pins upstream and shows them in the copy; the version after them.
  func replacePins(_ pins: Pins) async throws(CatalogFailure) -> Int64
  /// Returns once the copy reflects `version`, reading the upstream's log meanwhile; past
  /// `timeout`, `unavailable` says where it is.
  func reach(_ version: Int64, within timeout: Duration) async throws(CatalogFailure)
  /// The upstream's changes after `version` (`SearchCatalog.changes`).
  func changes(
    since version: Int64, limit: Int, visible: FeedVisibility?
  ) async throws(CatalogFailure) -> ChangeFeedAnswer
  /// A page of the upstream's items in catalog order (`SearchCatalog.snapshot`).
  func snapshot(
    after position: Int64?, limit: Int, visible: FeedVisibility?
  ) async throws(CatalogFailure) -> CatalogSnapshotPage
}
