import ArgumentParser
import Foundation
import Sift
import SiftStore

/// `sift synonyms add|list|remove`: a catalog's expressions that find each other, kept in the
/// catalog itself (its schema), so every server and the terminal app on it search with them.
struct SynonymsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "synonyms",
    abstract: "Add, list or remove a catalog's synonyms.",
    discussion: """
      A query term (or several in a row) that equals an expression also matches its synonyms, \
      ranked after what was typed; `--explain` says "via synonym". Expressions are folded \
      like everything else: "New York" and "new york" are one.

      Examples:
        sift synonyms add --catalog products sofa couch settee
        sift synonyms add --catalog cities.sqlite ny "new york"
        sift synonyms add --catalog products phone --to iphone
        sift synonyms list --catalog products
        sift synonyms remove --catalog products sofa
      """,
    subcommands: [Add.self, List.self, Remove.self]
  )

  struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "add",
      abstract:
        "Add a group of expressions that find each other, or with --to one that finds others.")

    @OptionGroup var options: CatalogOption

    @Option(
      name: .customLong("to"),
      help: "Make it one-way: the expressions given find these, not the other way. Repeatable.")
    var targets: [String] = []

    @Argument(help: "The expressions, each one argument (quote one of several words).")
    var expressions: [String]

    func run() async throws {
      let entry =
        targets.isEmpty
        ? Synonyms.Entry(group: expressions) : Synonyms.Entry(expressions, to: targets)
      if let problem = Synonyms.problem(with: entry) {
        throw Failure.exit("synonyms add: \(problem)", status: 2)
      }
      try await SynonymsCommand.change(options.catalog) { synonyms in
        guard !synonyms.entries.contains(entry) else {
          return "already there: \(entry.description)"
        }
        synonyms.entries.append(entry)
        return "added: \(entry.description)"
      }
    }
  }

  struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "list",
      abstract: "Print the catalog's synonyms, one group or rule a line.")

    @OptionGroup var options: CatalogOption

    @Flag(help: "One JSON object a line: {\"expressions\": […]} and, one-way, \"to\".")
    var json = false

    func run() async throws {
      let synonyms = try await SynonymsCommand.read(options.catalog)
      for entry in synonyms.entries {
        if json {
          print(entry.json.text)
        } else {
          print(entry.description)
        }
      }
      if synonyms.isEmpty { StandardStreams.error("No synonyms") }
    }
  }

  struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "remove",
      abstract: "Remove every group or rule that names the expression.")

    @OptionGroup var options: CatalogOption

    @Argument(help: "The expression, as one argument.")
    var expression: String

    func run() async throws {
      let key = TextFolding.phraseKey(expression)
      let catalog = options.catalog
      try await SynonymsCommand.change(catalog) { synonyms in
        let removed = synonyms.entries.filter { entry in
          (entry.expressions + (entry.to ?? [])).contains {
            TextFolding.phraseKey($0) == key
          }
        }
        guard !removed.isEmpty else {
          throw Failure.exit(
            "synonyms remove: no synonym in catalog \(catalog) names \"\(expression)\"", status: 2)
        }
        synonyms.entries.removeAll { removed.contains($0) }
        return removed.map { "removed: \($0.description)" }.joined(separator: "\n")
      }
    }
  }

  /// The synonyms of the catalog `argument` names.
  static func read(_ argument: String) async throws -> Synonyms {
    let parsed = try CatalogArgument(argument)
    if case .postgres(let address) = parsed.place { return try await postgresSynonyms(address) }
    let store = try parsed.openStore()
    defer { try? store.close() }
    return try Failure.catching { () throws(StoreError) in try store.loadSchema().synonyms }
  }

  /// Changes the synonyms of the catalog `argument` names with `body`, saves them, and prints
  /// what `body` says it did.
  static func change(
    _ argument: String, _ body: (inout Synonyms) throws -> String
  ) async throws {
    let parsed = try CatalogArgument(argument)
    if case .postgres(let address) = parsed.place {
      return try await changePostgresSynonyms(address, body)
    }
    let store = try parsed.openStore()
    defer { try? store.close() }
    var synonyms = try Failure.catching { () throws(StoreError) in try store.loadSchema().synonyms }
    let said = try body(&synonyms)
    try Failure.catching { () throws(StoreError) in try store.saveSynonyms(synonyms) }
    print(said)
  }
}
