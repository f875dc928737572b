import Foundation
import Sift
import SiftStore

#if Server
import SiftPostgres
#endif

/// A catalog named by `--catalog`, opened in this one place for every command that searches:
/// a built-in name or a .sqlite file is searched in memory (`StoredCatalog`), a
/// `postgresql://` address in the database (`PostgresSearchCatalog`, in a build with the Server
/// trait). The command then runs once, on `any SearchCatalog`, whichever it is.
struct OpenedCatalog {
  let catalog: any SearchCatalog
  /// What opening it said (the index rebuilt, and why), for standard error.
  let notice: String?
  /// Lets go of it: a database's connections close; a file is read until the process ends.
  let close: @Sendable () async -> Void

  /// Opens `argument` to search with `typos`, as a command does: once, with no edits and no
  /// warming up for requests that will not come.
  static func open(_ argument: String, typos: TypoTolerance) async throws -> OpenedCatalog {
    if PostgresAddress.isPostgres(argument) {
      #if Server
      let catalog = try await Failure.openPostgres(argument)
      return OpenedCatalog(
        catalog: PostgresSearchCatalog(
          name: catalog.address.catalog, catalog: catalog, typoTolerance: typos),
        notice: nil, close: { await catalog.close() })
      #else
      throw Failure.postgresRefusal
      #endif
    }
    let store = try Failure.openCatalog(argument)
    let catalog = try Failure.catching { () throws(StoreError) in
      try StoredCatalog(
        name: argument, store: store, typoTolerance: typos, recentSearches: 1, editable: false,
        warmsUp: false)
    }
    return OpenedCatalog(catalog: catalog, notice: catalog.openNotice, close: {})
  }
}

extension Failure {
  /// A catalog's refusal to answer as the command's exit (1).
  static func catalog(_ failure: CatalogFailure) -> Error {
    exit(failure.description, status: 1)
  }
}
