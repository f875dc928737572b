import ArgumentParser
import Foundation
import Sift
import SiftStore

/// The `sift` command: a thin shell over the Sift libraries.
@main
struct SiftCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sift",
    abstract: "Searchable content: search a catalog as you type.",
    discussion: """
      With no subcommand, sift opens the terminal app on a catalog (the built-in `products`
      by default). Built-in catalogs: products, candies, media, meals; their writable copies
      live in $SIFT_DATA_DIR, else $XDG_DATA_HOME/sift, else ~/.local/share/sift.

      Examples:
        sift                                   the terminal app on products
        sift --catalog candies                 the terminal app on candies
        sift search --catalog products rose 2010
        ls | sift filter --fuzzy srcmn
      """,
    version: "0.1.0",
    subcommands: [AppCommand.self, SearchCommand.self, FilterCommand.self, ImportCommand.self],
    defaultSubcommand: AppCommand.self
  )
}

/// `sift` and `sift app`: the terminal app on a catalog.
struct AppCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "app",
    abstract: "Open the terminal app on a catalog (what `sift` alone does)."
  )

  @Option(help: "A built-in catalog (products, candies, media, meals) or a .sqlite file.")
  var catalog: String = BuiltInCatalog.default.rawValue

  func run() throws {
    let store = try Failure.openCatalog(catalog)
    defer { try? store.close() }
    let session = try Failure.catching { () throws(StoreError) in try CatalogSession(store: store) }
    let controller = session.controller
    print("Sift — \(controller.schema.title): \(controller.indicator.text)")
    if !controller.scopeTitles.isEmpty {
      print("Scopes: \(controller.scopeTitles.joined(separator: " | "))")
    }
    print("The terminal app is not built yet: it will open here with the search field focused.")
  }
}

/// A failure reported on one line of stderr, with the exit status of its kind: 2 for usage
/// errors (an unknown catalog, scope or token), 1 for everything else.
enum Failure {
  static func exit(_ message: String, status: Int32) -> ExitCode {
    StandardStreams.error("sift: \(message)")
    return ExitCode(status)
  }

  /// Opens a catalog named on the command line.
  static func openCatalog(_ argument: String) throws -> CatalogStore {
    let location: CatalogLocation
    do {
      location = try CatalogLocation(argument)
    } catch {
      throw exit(error.description, status: 2)
    }
    do {
      return try location.open()
    } catch {
      switch error {
      case .notFound(let path):
        throw exit("unknown catalog \"\(argument)\": no file at \(path)", status: 2)
      case .notSQLite, .notACatalog, .newerFormat:
        throw exit(error.description, status: 2)
      default:
        throw exit(error.description, status: 1)
      }
    }
  }

  static func catching<T>(_ body: () throws(StoreError) -> T) throws -> T {
    do {
      return try body()
    } catch {
      throw exit(error.description, status: 1)
    }
  }
}
