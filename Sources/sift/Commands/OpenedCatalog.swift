import Foundation
import Sift
import SiftStore

#if Server
import SiftPostgres
#endif

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
    let name = try servedName(argument)
    if PostgresAddress.isPostgres(argument) {
      #if Server
      let node =
        switch use {
        case .search(let typos):
          try await Failure.openNode(
            argument, cache: cache, follows: false, typoTolerance: typos, recentSearches: 1)
        case .serve(let recentSearches, _):
          try await Failure.openNode(
            argument, cache: cache, follows: true, recentSearches: recentSearches,
            retention: PostgresCatalog.Retention(changes: keeping.changes, days: keeping.days))
        }
      // A command that searches once prints what a .sqlite file's would: nothing of the copy.
      let notice: String? = if case .serve = use { node.openNotice } else { nil }
      return OpenedCatalog(catalog: node, notice: notice, close: { await node.close() })
      #else
      throw Failure.postgresRefusal
      #endif
    }
    let catalog: StoredCatalog
    switch use {
    case .search(let typos):
      let store = try Failure.openCatalog(argument)
      catalog = try Failure.catching { () throws(StoreError) in
        try StoredCatalog(
          name: name, store: store, typoTolerance: typos, recentSearches: 1, editable: false,
          warmsUp: false)
      }
    case .serve(let recentSearches, let editable):
      let store = try Failure.openCatalog(argument, concurrentReads: true)
      catalog = try Failure.catching { () throws(StoreError) in
        try StoredCatalog(
          name: name, store: store, recentSearches: recentSearches, editable: editable)
      }
    }
    // A served file is checkpointed and closed when the server stops; a searched one is read
    // until the process ends.
    let close: @Sendable () async -> Void =
      if case .serve = use { { catalog.close() } } else { {} }
    return OpenedCatalog(catalog: catalog, notice: catalog.openNotice, close: close)
  }

  /// The name a catalog is served under: a built-in catalog's name, a file's name without
  /// its folder and `.sqlite`, a PostgreSQL catalog's `?catalog=` name.
  static func servedName(_ argument: String) throws -> String {
    if PostgresAddress.isPostgres(argument) {
      #if Server
      return try Failure.postgresAddress(argument).catalog
      #else
      throw Failure.postgresRefusal
      #endif
    }
    let file = URL(fileURLWithPath: argument).lastPathComponent
    return file.hasSuffix(".sqlite") ? String(file.dropLast(".sqlite".count)) : file
  }
}

extension Failure {
  /// A catalog's refusal to answer as the command's exit (1).
  static func catalog(_ failure: CatalogFailure) -> Error {
    exit(failure.description, status: 1)
  }
}
