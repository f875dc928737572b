import ArgumentParser
import Foundation
import Sift
import SiftPostgres
import SiftStore

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

  static func openPostgres(_ argument: String) throws -> PostgresCatalog {
    let address = try postgresAddress(argument)
    do {
      return try PostgresCatalog.openWaiting(address)
    } catch {
      throw postgres(error)
    }
  }
}

/// A progress bar that tasks may update.
final class SharedProgress: @unchecked Sendable {
  private let lock = NSLock()
  private var bar: ProgressBar

  init(label: String) { bar = ProgressBar(label: label) }

  func update(_ fraction: Double) { lock.withLock { bar.update(fraction) } }
  func finish() { lock.withLock { bar.finish() } }
}

extension ImportCommand {
  /// Reads and checks the file with the same reader and errors as for a `.sqlite` catalog, in
  /// a scratch copy of the catalog (so ids already there are updated in place and the schema
  /// grows the same way), then writes the result to PostgreSQL in one transaction.
  func importIntoPostgres() throws {
    let address = try Failure.postgresAddress(catalog)
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-import-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let copy = scratch.appendingPathComponent("\(address.catalog).sqlite")
    let progress = SharedProgress(
      label: "Importing \(URL(fileURLWithPath: file).lastPathComponent)")
    do {
      let existing = try PostgresCatalog.openWaiting(address)
      let document = try existing.documentWaiting()
      existing.closeWaiting()
      try CatalogStore.create(at: copy, document: document).close()
    } catch PostgresError.notFound {
      // A new catalog.
    } catch let error as PostgresError {
      progress.finish()
      throw Failure.postgres(error)
    }
    let summary: CatalogImporter.Summary
    let document: CatalogDocument
    do {
      summary = try CatalogImporter.run(
        file: URL(fileURLWithPath: file), into: copy, spec: spec,
        progress: { progress.update($0 * 0.5) })
      let store = try CatalogStore.open(at: copy)
      document = try store.loadDocument()
      try store.close()
    } catch {
      progress.finish()
      throw Failure.exit("\(error)", status: 1)
    }
    do {
      try PostgresCatalog.replaceWaiting(address, with: document) {
        progress.update(0.5 + $0 * 0.5)
      }
    } catch {
      progress.finish()
      throw Failure.postgres(error)
    }
    progress.finish()
    StandardStreams.error(
      "Imported \(summary.total) item\(summary.total == 1 ? "" : "s") into \(address) (\(summary.added) added, \(summary.updated) updated)"
    )
  }
}

extension SearchCommand {
  /// `sift search` on PostgreSQL: the query compiled to SQL, the same lines out.
  func runOnPostgres() throws {
    if explain || facets || queriesFile != nil {
      throw Failure.exit(
        "--explain, --facets and --queries are not available on PostgreSQL catalogs yet",
        status: 2)
    }
    let catalog = try Failure.openPostgres(self.catalog)
    defer { catalog.closeWaiting() }
    let schema = catalog.schema
    let input: PostgresSearchInput
    do {
      input = try catalog.input(
        SearchRequestInput(text: query.joined(separator: " "), scope: scope, tokens: tokens))
    } catch {
      throw Failure.usage(error)
    }
    let output = StandardStreams.Output()
    let result: PostgresSearchResult
    do {
      result = try catalog.searchWaiting(input, typos: typos.tolerance, limit: limit)
    } catch {
      throw Failure.postgres(error)
    }
    // One search, then the items a page at a time.
    for page in stride(from: 0, to: result.ids.count, by: Self.pageSize) {
      let items: [Item]
      do {
        items = try catalog.itemsWaiting(
          Array(result.ids[page..<min(page + Self.pageSize, result.ids.count)]))
      } catch {
        throw Failure.postgres(error)
      }
      for item in items {
        output.write(
          (json ? jsonLine(item, schema, explanation: nil) : textLine(item, schema)) + "\n")
      }
    }
    output.flush()
    for diagnostic in result.diagnostics { StandardStreams.error("sift: note: \(diagnostic)") }
    StandardStreams.error(result.indicator.text)
  }
}
