import Foundation
import Sift
import SiftStore

/// A catalog named by `--catalog`, opened in this one place for every command that searches:
/// a built-in name or a .sqlite file is searched in memory (`StoredCatalog`), a
/// `postgresql://` address through a node's local copy, caught up with the catalog's change log
/// (`PostgresNode`, in a build with the Server trait) — the same engine either way. The command then runs once, on `any SearchCatalog`, whichever it is.
struct OpenedCatalog {
  let catalog: any SearchCatalog
  /// What opening it said (the index rebuilt, and why), for standard error.
  let notice: String?
  /// Lets go of it: a database's connections close; a served file is checkpointed and closed.
  let close: @Sendable () async -> Void

  /// How a command uses the catalog it opens.
  enum Use {
    /// Searched once (or once a line): no edits, no warming up for requests that will not
    /// come, near spellings as `typos` says.
    case search(typos: TypoTolerance)
    /// Served: read by many requests at once, warmed up, the last `recentSearches` answers
    /// kept; `editable` when edits may come.
    case serve(recentSearches: Int, editable: Bool)
  }

  /// Opens `argument` for `use`; a catalog in PostgreSQL keeps its local copy in `cache` (else
  /// the data folder).
  /// `keeping`: how many changes and days of them the catalog's log keeps (writes cut it).
  static func open(
    _ argument: String, for use: Use, cache: String? = nil,
    keeping: (changes: Int, days: Int) = (100_000, 7)
  ) async throws -> OpenedCatalog {
    let parsed = try CatalogArgument(argument)
    let name = try parsed.servedName()
    if case .postgres(let address) = parsed.place {
      return try await openPostgres(address, for: use, cache: cache, keeping: keeping)
    }
    let catalog: StoredCatalog
    switch use {
    case .search(let typos):
      let store = try parsed.openStore()
      // A rebuild takes seconds: said on a terminal while it lasts.
      let status = StatusLine()
      defer { status.clear() }
      catalog = try Failure.catching { () throws(StoreError) in
        try StoredCatalog(
          name: name, store: store, typoTolerance: typos, recentSearches: 1, editable: false,
          warmsUp: false, progress: status.show)
      }
    case .serve(let recentSearches, let editable):
      let store = try parsed.openStore(concurrentReads: true)
      store.retention = ChangeLogRetention(changes: keeping.changes, days: keeping.days)
      catalog = try Failure.catching { () throws(StoreError) in
        try StoredCatalog(
          name: name, store: store, recentSearches: recentSearches, editable: editable,
          followsFile: true, progress: { StandardStreams.error("sift: catalog \(name): \($0)") })
      }
    }
    // A served file is checkpointed and closed when the server stops; a searched one is read
    // until the process ends.
    let close: @Sendable () async -> Void =
      if case .serve = use { { catalog.close() } } else { {} }
    return OpenedCatalog(catalog: catalog, notice: catalog.openNotice, close: close)
  }
}

extension Failure {
  /// A catalog's refusal to answer as the command's exit (1).
  static func catalog(_ failure: CatalogFailure) -> Error {
    exit(failure.description, status: 1)
  }
}
