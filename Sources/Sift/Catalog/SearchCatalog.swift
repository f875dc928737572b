/// A catalog wherever it is kept — in memory from a .sqlite file, or in PostgreSQL — as a front
/// end uses it: its schema and size, a page of a search, an item, an edit. `sift serve` serves
/// any catalog that conforms, and gives the same answers for the same items whichever it is.
public protocol SearchCatalog: Sendable {
  /// The name it is known by (`/catalogs/NAME/…`).
  var name: String { get }
  var schema: CatalogSchema { get }
  /// How many items it holds now.
  func count() async throws(CatalogFailure) -> Int
  /// The page `page` asks for of the search `request` reads.
  func search(_ request: SearchRequest, page: PageRequest) async throws(CatalogFailure)
    -> SearchPage
  /// The item with `id` as the catalog holds it now; nil when it has none.
  func item(_ id: ItemID) async throws(CatalogFailure) -> Item?
  /// Saves `edit` before returning, with the catalog's version after it; the next search here
  /// shows it.
  func commit(_ edit: CatalogEdit) async throws(CatalogFailure) -> CatalogCommit
  /// Saves `synonyms` in place of the catalog's (`schema.synonyms`) before returning; the next
  /// search uses them. Returns the catalog's version after the change.
  @discardableResult
  func replaceSynonyms(_ synonyms: Synonyms) async throws(CatalogFailure) -> Int64
  /// Saves `pins` in place of the catalog's (`schema.pins`) before returning, as
  /// `replaceSynonyms(_:)` saves synonyms. Returns the catalog's version after the change.
  @discardableResult
  func replacePins(_ pins: Pins) async throws(CatalogFailure) -> Int64
  /// The searches recorded for it (`sift serve --record-searches`), as it keeps them.
  func searchHistory() async throws(CatalogFailure) -> SearchHistory
  /// Keeps what changed of its recorded searches (`SearchHistory.takeChanges()`): in the file,
  /// for a catalog read from one; a catalog that keeps none (in PostgreSQL) holds them only
  /// while it is served.
  func saveSearchChanges(_ changes: SearchHistory.Changes) async throws(CatalogFailure)
  /// The version of the catalog its answers show now: every change moves it up.
  var version: Int64 { get }
  /// Returns once answers show `version` or a later one, waiting at most `timeout` (a node that
  /// follows a store catches up meanwhile); past it, `unavailable` says where it is.
  func reach(_ version: Int64, within timeout: Duration) async throws(CatalogFailure)
  /// Whether it answers from a store that can be out of reach while the process runs (a
  /// database server), which a health check must ask; false for one answered from memory.
  var answersFromRemoteStore: Bool { get }
  /// The changes after `version` (at most about `limit`: a version's changes are never split
  /// across pages), as `visible` lets the reader see them; or that the reader must start over.
  func changes(
    since version: Int64, limit: Int, visible: FeedVisibility?
  ) async throws(CatalogFailure) -> ChangeFeedAnswer
  /// The items after `position` in catalog order (at most `limit`) that `visible` admits, with
  /// the schema and the version they were read at: a page of what a copy starts from.
  func snapshot(
    after position: Int64?, limit: Int, visible: FeedVisibility?
  ) async throws(CatalogFailure) -> CatalogSnapshotPage
}

extension SearchCatalog {
  public var answersFromRemoteStore: Bool { false }

  /// Why `like=ID` (`SearchVector.Source.like`) has nothing to start from here, said to whoever
  /// may see every item: no item has the id, or the item has no vector. Nil when it has one.
  public func likeProblem(_ id: ItemID) async throws(CatalogFailure) -> String? {
    let shown = id.rawValue.prefix(100)
    guard let item = try await item(id) else { return "no item \"\(shown)\" in catalog \(name)" }
    guard let field = schema.vector, item[field.field] != nil else {
      let named = schema.vector.map { " (its field \"\($0.field)\" is empty)" } ?? ""
      return "item \"\(shown)\" has no vector\(named)"
    }
    return nil
  }

  /// The searches of `history` in the frame `base` (a tenant's filter identifiers; empty for
  /// everyone else) that start with `prefix` (`SearchHistory.suggestions`) and still find
  /// something here now — the data may have changed since they were made — most made first.
  public func suggestions(
    from history: SearchHistory, startingWith prefix: String, base: [String] = [],
    limit: Int = 10
  ) async throws(CatalogFailure) -> [SearchHistory.Entry] {
    var kept: [SearchHistory.Entry] = []
    let frame = base.joined(separator: " & ")
    for entry in history.suggestions(startingWith: prefix, tenant: frame, limit: limit * 2) {
      guard kept.count < limit else { break }
      guard
        let request = try? SearchRequest(
          SearchRequestInput(text: entry.text, base: base), schema: schema)
      else { continue }
      if try await search(request, page: PageRequest(limit: 0)).indicator.matchCount > 0 {
        kept.append(entry)
      }
    }
    return kept
  }

  /// A catalog that keeps no recorded searches starts with none.
  public func searchHistory() async throws(CatalogFailure) -> SearchHistory { SearchHistory() }

  /// A catalog that keeps no recorded searches lets them go.
  public func saveSearchChanges(_ changes: SearchHistory.Changes) async throws(CatalogFailure) {}

  /// A catalog that keeps no log of its changes has no feed to follow.
  public func changes(
    since version: Int64, limit: Int, visible: FeedVisibility?
  ) async throws(CatalogFailure) -> ChangeFeedAnswer {
    throw .invalid("catalog \(name) keeps no log of its changes: it cannot be followed")
  }

  public func snapshot(
    after position: Int64?, limit: Int, visible: FeedVisibility?
  ) async throws(CatalogFailure) -> CatalogSnapshotPage {
    throw .invalid("catalog \(name) keeps no log of its changes: it cannot be followed")
  }

  /// A catalog that no one else writes is at its latest version already: a later one is
  /// unknown to it.
  public func reach(_ version: Int64, within timeout: Duration) async throws(CatalogFailure) {
    let now = self.version
    guard version > now else { return }
    throw .unavailable(
      "after: catalog \(name) is at version \(now); version \(version) is not one of its")
  }
}

/// Why a catalog could not answer, by whose fault: the message names the part at fault.
public enum CatalogFailure: Error, Hashable, Sendable, CustomStringConvertible {
  /// No item with the id an edit named.
  case notFound(String)
  /// An add with an id the catalog holds already.
  case conflict(String)
  /// What the request asked cannot be (a value the catalog cannot hold, an edit it refuses).
  case invalid(String)
  /// The catalog is out of reach for now (a database restarting, a file that cannot be read):
  /// the same request may succeed later.
  case unavailable(String)
  /// Anything else the catalog refused.
  case failed(String)

  public var description: String {
    switch self {
    case .notFound(let message), .conflict(let message), .invalid(let message),
      .unavailable(let message), .failed(let message):
      message
    }
  }
}

/// An edit saved: the item's id (for an add without one, the id the catalog gave it) and the
/// catalog's version with the edit — what a client passes as `after` to read its own write on
/// any node.
public struct CatalogCommit: Hashable, Sendable {
  public var id: ItemID
  public var version: Int64

  public init(id: ItemID, version: Int64) {
    self.id = id
    self.version = version
  }
}
