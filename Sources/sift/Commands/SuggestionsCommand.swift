import ArgumentParser
import Foundation
import Sift
import SiftStore

/// `sift suggestions`: the searches a catalog's server recorded (`sift serve
/// --record-searches`, `SearchHistory`) that start with a prefix and still find something, most
/// made first — and with `--found-nothing`, those that found nothing, for whoever maintains the
/// data.
struct SuggestionsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "suggestions",
    abstract: "List the past searches of a catalog that start with a prefix, most made first.",
    discussion: """
      The searches are those `sift serve --record-searches` counted, kept in the catalog file \
      (a PostgreSQL catalog keeps them only while served). A search is suggested when its \
      words start with the words of the prefix, folded (near spellings when none does), and \
      it still finds something now. The count of each goes beside it.

      Examples:
        sift suggestions --catalog products
        sift suggestions --catalog cities.sqlite par
        sift suggestions --catalog cities.sqlite --found-nothing
      """
  )

  @OptionGroup var options: CatalogOption

  @Option(help: "List at most this many.")
  var limit = 10

  @Flag(help: "List the searches that found nothing the last time they were made instead.")
  var foundNothing = false

  @Flag(help: "Print one JSON object a line: text and count.")
  var json = false

  @Argument(help: "The start of the searches to list.")
  var prefix: [String] = []

  func validate() throws {
    if limit < 1 { throw ValidationError("--limit must be 1 or more, not \(limit)") }
  }

  func run() async throws {
    let opened = try await OpenedCatalog.open(options.catalog, for: .search(typos: .automatic))
    let entries: [SearchHistory.Entry]
    do {
      let history = try await opened.catalog.searchHistory()
      entries =
        foundNothing
        ? history.failed(limit: limit)
        : try await opened.catalog.suggestions(
          from: history, startingWith: prefix.joined(separator: " "), limit: limit)
    } catch {
      await opened.close()
      throw Failure.catalog(error)
    }
    await opened.close()
    let width = entries.map(\.text.count).max() ?? 0
    for entry in entries {
      if json {
        print(entry.json.text)
      } else {
        let padding = String(repeating: " ", count: width - entry.text.count)
        print("\(entry.text.inert)\(padding)  \(FieldValue.grouped(Double(entry.count)))")
      }
    }
    if entries.isEmpty {
      StandardStreams.error(
        foundNothing ? "No recorded search found nothing" : "No recorded searches match")
    }
  }
}
