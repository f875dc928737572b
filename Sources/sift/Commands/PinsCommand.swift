import ArgumentParser
import Foundation
import Sift
import SiftStore

/// `sift pins add|hide|list|remove`: curated results (`Pins`), kept in the catalog with its
/// synonyms, so every server, copy and the terminal app on it show them.
struct PinsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pins",
    abstract: "Pin an item at a row of a query's results, hide one, list or remove them.",
    discussion: """
      For the query given — folded, so "iPhone", "iphone" and "iphone " are one — a pinned \
      item stands at its row whatever the ranking, scope and tokens say (it need not match), \
      and a hidden item never shows; `--explain` says "pinned". A tenant still sees only its \
      rows. Pins are in the catalog's change log: servers following it and `sift sync` copies \
      get them, and `sift export` writes them in the settings.

      Examples:
        sift pins add --catalog products rose 12
        sift pins add --catalog products rose 3 --at 2
        sift pins hide --catalog products rose 14
        sift pins list --catalog products
        sift pins remove --catalog products rose 12
      """,
    subcommands: [Add.self, Hide.self, List.self, Remove.self]
  )

  struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "add",
      abstract: "Pin an item at a row of a query's results (the first unless --at says).")

    @OptionGroup var options: CatalogOption

    @Option(help: "The row, 1 for the first.")
    var at = 1

    @Argument(help: "The query, as one argument.")
    var query: String

    @Argument(help: "The item's id.")
    var id: String

    func validate() throws {
      if at < 1 { throw ValidationError("--at must be 1 or more, not \(at)") }
    }

    func run() async throws {
      let entry = Pins.Entry(query: query, id: ItemID(id), position: at)
      try await PinsCommand.change(options.catalog, entry: entry) { pins in
        pins.pin(entry.id, at: at, for: query)
        return "pinned: \(entry.description)"
      }
    }
  }

  struct Hide: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "hide",
      abstract: "Hide an item from a query's results.")

    @OptionGroup var options: CatalogOption

    @Argument(help: "The query, as one argument.")
    var query: String

    @Argument(help: "The item's id.")
    var id: String

    func run() async throws {
      let entry = Pins.Entry(query: query, hiding: ItemID(id))
      try await PinsCommand.change(options.catalog, entry: entry) { pins in
        pins.hide(entry.id, for: query)
        return "hidden: \(entry.description)"
      }
    }
  }

  struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "list",
      abstract: "Print the catalog's pins, one a line.")

    @OptionGroup var options: CatalogOption

    @Flag(help: "One JSON object a line: query, id and at, or hidden.")
    var json = false

    func run() async throws {
      let opened = try await OpenedCatalog.open(options.catalog, for: .search(typos: .off))
      let pins = opened.catalog.schema.pins
      await opened.close()
      for entry in pins.entries {
        if json {
          print(entry.json.text)
        } else {
          print(entry.description)
        }
      }
      if pins.isEmpty { StandardStreams.error("No pins") }
    }
  }

  struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "remove",
      abstract: "Remove what a query says of an item: pinned or hidden.")

    @OptionGroup var options: CatalogOption

    @Argument(help: "The query, as one argument.")
    var query: String

    @Argument(help: "The item's id.")
    var id: String

    func run() async throws {
      let catalog = options.catalog
      try await PinsCommand.change(catalog, entry: nil) { pins in
        guard pins.remove(ItemID(id), for: query) else {
          throw Failure.exit(
            "pins remove: catalog \(catalog) has no pin of \"\(id)\" for \"\(query)\"", status: 2)
        }
        return "removed: \(id) for \(query)"
      }
    }
  }

  /// Changes the pins of the catalog `argument` names with `body`, saves them, and prints what
  /// `body` says it did. `entry`, the one added, must name an item the catalog has.
  static func change(
    _ argument: String, entry: Pins.Entry?, _ body: (inout Pins) throws -> String
  ) async throws {
    if let entry, let problem = Pins.problem(with: entry) {
      throw Failure.exit("pins: \(problem)", status: 2)
    }
    let opened = try await OpenedCatalog.open(argument, for: .search(typos: .off))
    do {
      let catalog = opened.catalog
      if let entry, try await Self.item(entry.id, in: catalog) == nil {
        throw Failure.exit("pins: no item \"\(entry.id)\" in catalog \(catalog.name)", status: 2)
      }
      var pins = catalog.schema.pins
      let said = try body(&pins)
      do {
        try await catalog.replacePins(pins)
      } catch {
        throw Failure.catalog(error)
      }
      print(said)
    } catch {
      await opened.close()
      throw error
    }
    await opened.close()
  }

  private static func item(_ id: ItemID, in catalog: any SearchCatalog) async throws -> Item? {
    do {
      return try await catalog.item(id)
    } catch {
      throw Failure.catalog(error)
    }
  }
}
