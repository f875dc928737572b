import ArgumentParser
import Dispatch
import Foundation
import Sift
import SiftStore
import SiftTerminal

/// The `sift` command: a thin shell over the Sift libraries.
@main
struct SiftCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sift",
    abstract: "Searchable content: search a catalog as you type.",
    discussion: """
      With no subcommand, sift opens the terminal app on a catalog (the built-in `products` \
      by default). Built-in catalogs: products, candies, media, meals; their writable copies \
      live in $SIFT_DATA_DIR, else $XDG_DATA_HOME/sift, else ~/.local/share/sift.

      Examples:
        sift                                   the terminal app on products
        sift --catalog candies                 the terminal app on candies
        sift search --catalog products rose 2010
        ls | sift filter --fuzzy srcmn
      """,
    version: SiftVersion.current,
    subcommands: [
      AppCommand.self, SearchCommand.self, FilterCommand.self, ImportCommand.self,
      BenchCommand.self,
    ] + serverCommands + [
      SynonymsCommand.self, PinsCommand.self, SyncCommand.self, ExportCommand.self,
      FacetsCommand.self, SuggestionsCommand.self,
    ],
    defaultSubcommand: AppCommand.self
  )
}

/// `sift` and `sift app`: the terminal app on a catalog.
struct AppCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "app",
    abstract: "Open the terminal app on a catalog (what `sift` alone does)."
  )

  @Option(
    help:
      "A built-in catalog (products, candies, media, meals), a .sqlite file or a postgresql://HOST/DB?catalog=NAME address."
  )
  var catalog: String = BuiltInCatalog.default.rawValue

  @OptionGroup var place: PlaceOptions

  func run() throws {
    let argument = try CatalogArgument(catalog)
    if case .postgres(let address) = argument.place { return try runOnPostgres(address) }
    let store = try argument.openStore()
    defer { try? store.close() }
    guard StandardStreams.isInputTerminal, StandardStreams.isOutputTerminal else {
      throw Failure.exit(TerminalError.notATerminal.description, status: 2)
    }
    // The index is read from the file when it is current, else rebuilt and saved.
    let (collection, report) = try Failure.catching { () throws(StoreError) in
      try store.openCollection()
    }
    // Near-spelling dictionaries and trigrams, off the input loop: typing never waits.
    collection.index.prepareForSearchingInBackground()
    // Searches run off the input loop, so typing stays instant on large catalogs.
    var model = AppModel(
      controller: SearchController(collection: collection, searchesImmediately: false))
    if let saved = try? store.loadSearchState() {
      model.restore(from: saved)
    }
    if let notice = report.notice, model.message == nil { model.show("Note: \(notice)") }
    model.pastSearches = Self.pastSearches(store, collection)
    if let near = try place.searchNear() {
      guard collection.schema.location != nil else {
        throw Failure.usage(SearchRequestError.noLocation(catalog: collection.schema.name))
      }
      model.search(near: near)
    }
    if let box = try place.searchBox() {
      guard collection.schema.location != nil else {
        throw Failure.exit(
          "--within-box: \(SearchRequestError.noLocation(catalog: collection.schema.name))",
          status: 2)
      }
      model.search(withinBox: box)
    }
    let persistence = StorePersistence(store: store, generation: report.generation)
    let app = TerminalApp(model: model, persistence: persistence)
    try Self.run(app)
    // After edits, the index as the app kept it is saved, so the next open need not rebuild it
    // (only when no other writer changed the items meanwhile).
    if let generation = persistence.tracked.generation, generation != report.generation {
      _ = try? store.saveIndex(app.model.controller.collection.index, builtAtGeneration: generation)
    }
  }
}

extension AppCommand {
  /// Runs the app until the person quits; its goodbye, if any, once the terminal is back.
  /// The searches recorded in the file (`sift serve --record-searches`) that still find
  /// something, most made first: what the empty field offers.
  static func pastSearches(_ store: CatalogStore, _ collection: FilteredCollection) -> [String] {
    guard let history = try? store.loadSearchHistory(), !history.isEmpty else { return [] }
    var probe = collection
    return history.suggestions(startingWith: "", limit: 10).map(\.text).filter { text in
      probe.filter(by: SearchCriteria(text: text))
      return !probe.rows.isEmpty
    }.prefix(5).map { $0 }
  }

  static func run(_ app: TerminalApp) throws {
    let farewell: String?
    do {
      farewell = try app.run()
    } catch {
      throw Failure.exit("\(error)", status: 1)
    }
    if let farewell { StandardStreams.error(farewell) }
  }
}

/// The app's changes, written to the catalog file.
final class StorePersistence: AppPersistence {
  let tracked: TrackedStore

  init(store: CatalogStore, generation: Int64) {
    tracked = TrackedStore(store: store, generation: generation)
  }

  func makeItemID() throws(StoreError) -> ItemID { try tracked.makeItemID() }
  func persist(_ edit: CatalogEdit) throws(StoreError) { try tracked.persist(edit) }
  func saveSearchState(_ snapshot: Data) throws(StoreError) {
    try tracked.store.saveSearchState(snapshot)
  }
}

/// A failure reported on one line of stderr, with the exit status of its kind: 2 for usage
/// errors (an unknown catalog, scope or token), 1 for everything else.
enum Failure {
  static func exit(_ message: String, status: Int32) -> ExitCode {
    StandardStreams.error("sift: \(message)")
    return ExitCode(status)
  }

  /// Opens a built-in catalog or a .sqlite file named on the command line.
  static func openCatalog(_ argument: String, concurrentReads: Bool = false) throws -> CatalogStore
  {
    try CatalogArgument(argument).openStore(concurrentReads: concurrentReads)
  }

  /// Runs `body`, turning a failure into exit status 1 with its description.
  static func catching<T, Failure: Error & CustomStringConvertible>(
    _ body: () throws(Failure) -> T
  ) throws -> T {
    do {
      return try body()
    } catch {
      throw exit(error.description, status: 1)
    }
  }
}
