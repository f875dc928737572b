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
      With no subcommand, sift opens the terminal app on a catalog (the built-in `products` by
      default). The terminal app, `search`, `filter`, `import` and `bench` are being built; this
      build describes the catalog it would open.
      """,
    version: "0.1.0"
  )

  @Option(name: .long, help: "A built-in catalog (products, candies, media, meals).")
  var catalog: String = BuiltInCatalog.default.rawValue

  func run() throws {
    guard let builtIn = BuiltInCatalog(rawValue: catalog) else {
      let names = BuiltInCatalog.allCases.map(\.rawValue).joined(separator: ", ")
      FileHandleOutput.standardError(
        "sift: unknown catalog \"\(catalog)\"; the built-in catalogs are \(names)")
      throw ExitCode(2)
    }
    let document = try builtIn.load()
    let controller = SearchController(collection: try document.makeCollection())
    print("Sift — \(document.schema.title): \(controller.indicator.text)")
    if !controller.scopeTitles.isEmpty {
      print("Scopes: \(controller.scopeTitles.joined(separator: " | "))")
    }
    print("The terminal app is not built yet: it will open here with the search field focused.")
  }
}

/// Writes a line to standard error.
enum FileHandleOutput {
  static func standardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }
}
