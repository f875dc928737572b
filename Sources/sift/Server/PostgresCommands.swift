#if Server
import ArgumentParser
import Foundation
import Sift
import SiftPostgres
import SiftStore
import SiftTerminal

/// The command line on a catalog in PostgreSQL (`--catalog postgresql://…`): the same commands
/// and output as on a `.sqlite` file.
extension Failure {
  /// The address, or a usage error naming what is wrong with it.
  static func postgresAddress(_ argument: String) throws -> PostgresAddress {
    do {
      return try PostgresAddress(argument)
    } catch {
      throw exit(error.description, status: 2)
    }
  }

  /// A PostgreSQL failure as the command's exit: a missing catalog or a bad address is a usage
  /// error (2), the rest a failure (1).
  static func postgres(_ error: PostgresError) -> Error {
    switch error {
    case .notFound, .address, .newerFormat: exit(error.description, status: 2)
    default: exit(error.description, status: 1)
    }
  }

  static func openPostgres(_ argument: String) async throws -> PostgresCatalog {
    let address = try postgresAddress(argument)
    do {
      return try await PostgresCatalog.open(address)
    } catch {
      throw postgres(error)
    }
  }

  /// A node on the catalog at `argument`: its local copy in `cache` (else the data folder's
  /// `postgres` folder), caught up with the log; `follows`: keeps up until closed (a server).
  static func openNode(
    _ argument: String, cache: String? = nil, follows: Bool,
    typoTolerance: TypoTolerance = .automatic, recentSearches: Int = 64,
    retention: PostgresCatalog.Retention = .init()
  ) async throws -> PostgresNode {
    let address = try postgresAddress(argument)
    let folder =
      cache.map { URL(fileURLWithPath: $0, isDirectory: true) }
      ?? DataDirectory.resolve().appendingPathComponent("postgres", isDirectory: true)
    do {
      return try await PostgresNode.open(
        address, cacheFolder: folder, typoTolerance: typoTolerance,
        recentSearches: recentSearches, follows: follows, retention: retention)
    } catch {
      throw postgres(error)
    }
  }
}

/// A catalog in PostgreSQL, as the commands name it.
enum PostgresCatalogs {
  /// The catalog's name in its address (`?catalog=NAME`).
  static func name(of address: String) throws -> String {
    try Failure.postgresAddress(address).catalog
  }
}

extension OpenedCatalog {
  /// A catalog in PostgreSQL opened for `use` through a node: its local copy in `cache` (else
  /// the data folder), caught up with the catalog's change log.
  static func openPostgres(
    _ address: String, for use: Use, cache: String?, keeping: (changes: Int, days: Int)
  ) async throws -> OpenedCatalog {
    let node =
      switch use {
      case .search(let typos):
        try await Failure.openNode(
          address, cache: cache, follows: false, typoTolerance: typos, recentSearches: 1)
      case .serve(let recentSearches, _):
        try await Failure.openNode(
          address, cache: cache, follows: true, recentSearches: recentSearches,
          retention: PostgresCatalog.Retention(changes: keeping.changes, days: keeping.days))
      }
    // A command that searches once prints what a .sqlite file's would: nothing of the copy.
    let notice: String? = if case .serve = use { node.openNotice } else { nil }
    return OpenedCatalog(catalog: node, notice: notice, close: { await node.close() })
  }
}

extension SynonymsCommand {
  /// The synonyms of the catalog in PostgreSQL at `address`.
  static func postgresSynonyms(_ address: String) async throws -> Synonyms {
    let catalog = try await Failure.openPostgres(address)
    defer { Task { await catalog.close() } }
    return catalog.schema.synonyms
  }

  /// Changes its synonyms with `body`, saves them, and prints what `body` says it did.
  static func changePostgresSynonyms(
    _ address: String, _ body: (inout Synonyms) throws -> String
  ) async throws {
    let catalog = try await Failure.openPostgres(address)
    do {
      var synonyms = catalog.schema.synonyms
      let said = try body(&synonyms)
      do {
        try await catalog.saveSynonyms(synonyms)
      } catch {
        throw Failure.postgres(error)
      }
      print(said)
    } catch {
      await catalog.close()
      throw error
    }
    await catalog.close()
  }
}

/// A progress bar that tasks may update.
final class SharedProgress: Sendable {
  private let bar: Locked<ProgressBar>

  init(label: String) { bar = Locked(ProgressBar(label: label)) }

  func update(_ fraction: Double) { bar.withLock { $0.update(fraction) } }
  func finish() { bar.withLock { $0.finish() } }
}

extension ImportCommand {
  /// Reads and checks the file with the same reader and errors as for a `.sqlite` catalog,
  /// applies the same rules (`CatalogImport`) to the catalog's items in memory, so ids already
  /// there are updated in place and the schema grows the same way, then writes the result to
  /// PostgreSQL in one transaction.
  func importIntoPostgres(_ argument: String) async throws {
    let address = try Failure.postgresAddress(argument)
    let progress = SharedProgress(
      label: "Importing \(URL(fileURLWithPath: file).lastPathComponent)")
    let summary: CatalogImport.Summary
    do {
      summary = try await importIntoPostgres(address, progress: progress)
    } catch {
      progress.finish()
      throw error
    }
    progress.finish()
    StandardStreams.error(summary.report(into: "\(address)", from: file))
  }

  private func importIntoPostgres(
    _ address: PostgresAddress, progress: SharedProgress
  ) async throws -> CatalogImport.Summary {
    var existing: CatalogDocument
    var spec = self.spec
    do throws(PostgresError) {
      let catalog = try await PostgresCatalog.open(address)
      do throws(PostgresError) {
        existing = try await catalog.document()
      } catch {
        await catalog.close()
        throw error
      }
      await catalog.close()
      spec = spec.continuing(existing.schema)
    } catch .notFound {
      existing = CatalogDocument(
        schema: CatalogImport.newSchema(name: address.catalog, spec: spec), items: [])
    } catch {
      throw Failure.postgres(error)
    }
    let imported: (document: CatalogDocument, summary: CatalogImport.Summary)
    do {
      let records = try CatalogImporter.readRecords(
        file: URL(fileURLWithPath: file), spec: spec, delimiter: delimiterByte,
        progress: { progress.update($0.phaseFraction * 0.5) })
      imported = try CatalogImport.apply(records, spec: spec, to: existing)
    } catch ImportSchemaError.untitled(let line, let field) {
      throw Failure.exit(
        "\(file):\(line): \(ImportSchemaError.untitledReason(field: field))", status: 1)
    } catch let error as ImportSchemaError {
      throw Failure.exit("catalog \(address): \(error)", status: 1)
    } catch {
      throw Failure.exit("\(error)", status: 1)
    }
    existing.items = []  // one copy of the items in memory, not two
    do {
      try await PostgresCatalog.replace(address, with: imported.document) {
        progress.update(0.5 + $0 * 0.5)
      }
    } catch {
      throw Failure.postgres(error)
    }
    return imported.summary
  }
}

extension BenchCommand {
  /// The same typing into a catalog in PostgreSQL, searched as a node searches it: its local
  /// copy, caught up with the log.
  func runOnPostgres(_ address: String, _ lines: [String]) async throws {
    let node = try await Failure.openNode(address, follows: false)
    do {
      try await bench(lines, file: node.localCopyURL.path)
    } catch {
      await node.close()
      throw error
    }
    await node.close()
  }
}

extension AppCommand {
  /// The terminal app on a catalog in PostgreSQL: the local copy a node keeps, caught up with
  /// the log, searched in memory as typing wants; each edit is written to the database before
  /// the app shows it. Edits made elsewhere meanwhile show when the app is opened again.
  func runOnPostgres(_ address: String) throws {
    guard StandardStreams.isInputTerminal, StandardStreams.isOutputTerminal else {
      throw Failure.exit(TerminalError.notATerminal.description, status: 2)
    }
    let node = try waiting { () async throws in try await Failure.openNode(address, follows: false)
    }
    defer { waiting { () async in await node.close() } }
    let catalog = node.catalog
    let copy = try Failure.openCatalog(node.localCopyURL.path)
    defer { try? copy.close() }
    let (collection, _) = try Failure.catching { () throws(StoreError) in
      try copy.openCollection()
    }
    collection.index.prepareForSearchingInBackground()
    let model = AppModel(
      controller: SearchController(collection: collection, searchesImmediately: false))
    try Self.run(TerminalApp(model: model, persistence: PostgresPersistence(catalog: catalog)))
  }
}

/// The terminal app's changes, written to the catalog in PostgreSQL. The search state (text,
/// scope, tokens) is not kept there: a shared catalog is no place for one person's search.
final class PostgresPersistence: AppPersistence {
  let catalog: PostgresCatalog

  init(catalog: PostgresCatalog) { self.catalog = catalog }

  func makeItemID() throws(PostgresError) -> ItemID {
    let catalog = self.catalog
    return try waiting { () async throws(PostgresError) in try await catalog.nextItemID() }
  }

  /// Writes `edit` in its own transaction; an edit that no longer fits the items (another
  /// writer was first) is an error naming the item.
  func persist(_ edit: CatalogEdit) throws(PostgresError) {
    let catalog = self.catalog
    let saved = try waiting { () async throws(PostgresError) in try await catalog.commit(edit) }
    guard saved == nil else { return }
    let id = edit.id?.rawValue ?? ""
    let message =
      if case .add = edit {
        "an item with id \"\(id)\" exists already (added by another writer)"
      } else {
        "no item \"\(id)\" any more (deleted by another writer)"
      }
    throw PostgresError.query(catalog.address.description, message: message)
  }

  func saveSearchState(_ snapshot: Data) throws(PostgresError) {}
}
#endif
