import ArgumentParser
import Foundation
import Sift
import SiftStore
import SiftTerminal

/// `sift search`: one search through the same SearchController the app uses.
struct SearchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search",
    abstract: "Search a catalog and print the matching items, best first.",
    discussion: """
      The query uses the same syntax as the app: terms (all must match), "phrases", -negation,
      field:value, price:<10, year:2000..2010 (put -- before a query that starts with -, so it
      is not read as an option). The results indicator goes to stderr; every match
      is printed unless --limit is given. Exit status 0 with or without matches, 2 for an unknown
      catalog, scope or token.

      Examples:
        sift search --catalog products rose 2010
        sift search --catalog candies --scope Chocolate
        sift search --catalog products -- -rose price:<30
        sift search --catalog media --token category:Movies --token 'year:>=2010' --json
        sift search --catalog cities.sqlite --limit 5 da nang
      """
  )

  @Option(help: "A built-in catalog (products, candies, media, meals) or a .sqlite file.")
  var catalog: String

  @Option(help: "The scope bar button to select, by title (e.g. Chocolate).")
  var scope: String?

  @Option(
    name: .customLong("token"),
    help: "A token identifier, e.g. category:Chocolate or year:>=2010. Repeatable.")
  var tokens: [String] = []

  @Flag(help: "Print one JSON object per matching item and line.")
  var json = false

  @Option(help: "Print at most this many items.")
  var limit: Int?

  @Argument(help: "The query.")
  var query: [String] = []

  func validate() throws {
    if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit)") }
  }

  func run() throws {
    let store = try Failure.openCatalog(catalog)
    defer { try? store.close() }
    var session = try Failure.catching { () throws(StoreError) in try CatalogSession(store: store) }
    let schema = session.schema
    session.send(.activate)
    if let scope {
      guard
        let index = schema.scopeTitles.firstIndex(where: { $0.lowercased() == scope.lowercased() })
      else {
        let titles = schema.scopeTitles
        let known =
          titles.isEmpty
          ? "it has no scope bar" : "its scopes are \(titles.joined(separator: ", "))"
        throw Failure.exit(
          "unknown scope \"\(scope)\" for catalog \(schema.name): \(known)", status: 2)
      }
      session.send(.selectScope(index))
    }
    for (position, identifier) in tokens.enumerated() {
      if case .failure = Query.term(forToken: identifier, schema: schema) {
        throw Failure.exit(
          "invalid --token \"\(identifier)\": not one filter of catalog \(schema.name) (e.g. category:VALUE, FIELD:<NUMBER)",
          status: 2)
      }
      let known = schema.suggestedTokens.first { $0.identifier == identifier }
      session.send(
        .insertToken(known ?? SearchToken(text: identifier, identifier: identifier), at: position))
    }
    session.send(.setText(query.joined(separator: " ")))

    let controller = session.controller
    let output = StandardStreams.Output()
    let rows = limit.map { Array(controller.rows.prefix($0)) } ?? controller.rows
    for id in rows {
      guard let item = controller.collection.item(id: id) else { continue }
      output.write((json ? jsonLine(item, schema) : textLine(item, schema)) + "\n")
    }
    output.flush()
    for diagnostic in controller.diagnostics {
      StandardStreams.error("sift: note: \(diagnostic)")
    }
    StandardStreams.error(controller.indicator.text)
  }

  /// `{"id":…,"title":…,` then every field under its own name, in schema order.
  private func jsonLine(_ item: Item, _ schema: CatalogSchema) -> String {
    var object = JSONLine()
    object.add("id", .string(item.id.rawValue))
    object.add("title", .string(item[schema.titleField]?.displayText ?? ""))
    for field in schema.fields {
      switch item[field.name] {
      case .none: continue
      case .text(let text): object.add(field.name, .string(text))
      case .texts(let texts): object.add(field.name, .strings(texts))
      case .number(let number): object.add(field.name, .number(number))
      }
    }
    return object.line
  }

  /// The title, then the other fields as "Label: value", made inert for the terminal.
  private func textLine(_ item: Item, _ schema: CatalogSchema) -> String {
    let title = item[schema.titleField]?.displayText ?? ""
    let details = schema.fields.filter { $0.name != schema.titleField }.compactMap { field in
      item[field.name].map { "\(field.label): \(field.display($0, maximumValues: 5))" }
    }
    let line = details.isEmpty ? title : "\(title)  —  \(details.joined(separator: " · "))"
    return TerminalText.inert(line)
  }

  /// A long list (a city's hundred alternate names) shortened to its first few values.

}
