#if Server
import CHeapUsage
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
  ///
  /// What takes a while (the catalog loaded whole, its index saved, a reload while following)
  /// is said as it starts: a server writes it to its log, a command on a terminal as a status
  /// line once the wait passes a second.
  static func openNode(
    _ argument: String, cache: String? = nil, follows: Bool,
    typoTolerance: TypoTolerance = .automatic, recentSearches: Int = 64,
    retention: PostgresCatalog.Retention = .init()
  ) async throws -> PostgresNode {
    let address = try postgresAddress(argument)
    let folder =
      cache.map { URL(fileURLWithPath: $0, isDirectory: true) }
      ?? DataDirectory.resolve().appendingPathComponent("postgres", isDirectory: true)
    let status = StatusLine(enabled: !follows && StandardStreams.isErrorTerminal)
    defer { status.clear() }
    let catalog = address.catalog
    let progress: @Sendable (String) -> Void = { step in
      if follows {
        StandardStreams.error("sift: catalog \(catalog): \(step)")
      } else {
        status.show(step)
      }
    }
    do {
      return try await PostgresNode.open(
        address, cacheFolder: folder, typoTolerance: typoTolerance,
        recentSearches: recentSearches, follows: follows, retention: retention,
        progress: progress)
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
    return OpenedCatalog(catalog: node.served, notice: notice, close: { await node.close() })
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

  func update(_ progress: ImportProgress) { bar.withLock { $0.update(progress) } }
  func finish() { bar.withLock { $0.finish() } }
}

extension ImportCommand {
  /// Reads and checks the file with the same reader and errors as for a `.sqlite` catalog, a
  /// batch at a time, and writes each batch into the catalog in PostgreSQL as it comes, by the
  /// same rules (`CatalogImport`), in one transaction: memory holds a few batches, never the
  /// file or the catalog's items.
  func importIntoPostgres(_ argument: String) async throws {
    let address = try Failure.postgresAddress(argument)
    let progress = SharedProgress(
      label: "Importing \(URL(fileURLWithPath: file).lastPathComponent)")
    let rejected = rejectedRecords(catalog: nil, name: address.catalog)
    var summary: CatalogImport.Summary
    do {
      summary = try await importIntoPostgres(address, progress: progress, rejected: rejected)
    } catch {
      progress.finish()
      for line in rejected?.report() ?? [] { StandardStreams.error(line) }
      throw error
    }
    progress.finish()
    let lines = rejected?.report() ?? []
    for line in lines { StandardStreams.error(line) }
    summary.skipped = rejected?.count ?? 0
    StandardStreams.error(summary.report(into: "\(address)", from: file))
  }

  private func importIntoPostgres(
    _ address: PostgresAddress, progress: SharedProgress, rejected: RejectedRecords?
  ) async throws -> CatalogImport.Summary {
    var spec = specFindingOtherNames
    // An export's settings make a new catalog's schema, and say where the ids are.
    var settings = try exportSettings()
    if settings == nil {
      do {
        settings = try ImportSettings.read(file: URL(fileURLWithPath: file))
      } catch {
        throw Failure.exit("\(error)", status: 1)
      }
    }
    let exportedSchema = settings.map { ImportSettings.schema($0, name: address.catalog) }
    do throws(PostgresError) {
      // Opening reads the schema the import continues, and upgrades an older format.
      let catalog = try await PostgresCatalog.open(address)
      spec =
        settings.map { ImportSettings.spec(spec, continuing: catalog.schema, settings: $0) }
        ?? spec.continuing(catalog.schema)
      await catalog.close()
    } catch .notFound {
      // Created by the import.
      if let settings, let exportedSchema {
        spec = ImportSettings.spec(spec, continuing: exportedSchema, settings: settings)
      }
    } catch {
      throw Failure.postgres(error)
    }
    do {
      return try await PostgresCatalog.importRecords(
        address, spec: spec,
        newSchema: exportedSchema ?? CatalogImport.newSchema(name: address.catalog, spec: spec)
      ) { write in
        try await readBatches(
          spec: spec, settings: settings, progress: progress, reject: rejected?.add, write)
      }
    } catch ImportSchemaError.untitled(let line, let field) {
      throw Failure.exit(
        "\(file):\(line): \(ImportSchemaError.untitledReason(field: field))", status: 1)
    } catch ImportSchemaError.unfitting(let line, let reason) {
      throw Failure.exit("\(file):\(line): \(reason)", status: 1)
    } catch let error as ImportSchemaError {
      throw Failure.exit("catalog \(address): \(error)", status: 1)
    } catch let error as PostgresError {
      throw Failure.postgres(error)
    } catch {
      throw Failure.exit("\(error)", status: 1)
    }
  }

  /// The file's batches of checked records, read on a thread of their own and handed to
  /// `write` in file order: the reader waits while two batches wait for the writer, so
  /// reading and writing overlap and memory holds at most three.
  private func readBatches(
    spec: ImportSpec, settings: CatalogExport.Settings?, progress: SharedProgress,
    reject: (@Sendable (ImportError) -> Void)?,
    _ write: ([ImportRecord]) async throws -> Void
  ) async throws {
    let (batches, continuation) = AsyncThrowingStream<[ImportRecord], any Error>.makeStream()
    let room = DispatchSemaphore(value: 2)
    let stopped = Locked(false)
    // The writer stopped (it failed): the reader stops at its next batch.
    continuation.onTermination = { _ in
      stopped.withLock { $0 = true }
      room.signal()
    }
    let (file, delimiter) = (URL(fileURLWithPath: self.file), delimiterByte)
    DispatchQueue.global().async {
      do {
        try CatalogImporter.readBatches(
          file: file, spec: spec, delimiter: delimiter, settings: settings,
          progress: { read in
            // Each batch is written as the next is read: the file's share is the import's
            // but for the catalog's row at the end.
            progress.update(
              ImportProgress(
                phase: read.phase == .scanning ? .scanning : .writing,
                fraction: 0.95 * read.phaseFraction, items: read.items))
          }, reject: reject
        ) { batch in
          room.wait()
          if stopped.withLock({ $0 }) { throw CancellationError() }
          continuation.yield(batch)
        }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    for try await batch in batches {
      room.signal()
      try await write(batch)
      // What the batch took on the reader's threads, back to the system: else each thread's
      // heap keeps what it freed, and memory grows with the file.
      sift_release_free_heap()
    }
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
