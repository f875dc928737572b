import ArgumentParser
import Foundation
import Sift
import SiftStore

#if Server
import SiftPostgres
#endif

/// `sift import`: a JSON Lines or CSV file into a catalog, in one transaction.
struct ImportCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import",
    abstract: "Import a JSON Lines or CSV file into a catalog (created if missing).",
    discussion: """
      The whole import is one transaction: a malformed line, invalid UTF-8 or a value of the
      wrong type fails it with FILE:LINE: reason and leaves the catalog as it was. Items whose
      --id is already in the catalog are updated in place. A --text field may hold a string or
      an array of strings.

      Examples:
        sift import cities.jsonl --catalog cities.sqlite --title name --text alternates \\
          --number population --category country --id id --rank-by population
        sift import meals.csv --catalog meals.sqlite --title name --number rating
      """
  )

  @Argument(help: "A .jsonl (JSON Lines) or .csv file (with a header row).")
  var file: String

  @Option(
    help:
      "The catalog: a .sqlite file, a built-in catalog's name, or postgresql://[USER@]HOST[:PORT]/DB?catalog=NAME."
  )
  var catalog: String

  @Option(help: "The field shown as each item's title.")
  var title: String

  @Option(help: "A text field to search. Repeatable.")
  var text: [String] = []

  @Option(help: "A number field. Repeatable.")
  var number: [String] = []

  @Option(help: "The field that groups items (scope bar and category: tokens).")
  var category: String?

  @Option(help: "The field that gives each item its id; re-importing an id updates that item.")
  var id: String?

  @Option(
    name: .customLong("rank-by"),
    help: ArgumentHelp(
      "A number field that orders results the relevance rules leave tied (popularity): larger first, or FIELD:asc for smaller first.",
      valueName: "FIELD[:asc|:desc]"))
  var rankBy: String?

  func validate() throws {
    if let rankBy, RankingField(parsing: rankBy) == nil {
      throw ValidationError(
        "--rank-by \"\(rankBy)\" is not FIELD, FIELD:asc or FIELD:desc")
    }
  }

  var spec: ImportSpec {
    ImportSpec(
      titleField: title, textFields: text, numberFields: number, categoryField: category,
      idField: id, rankingField: rankBy.flatMap(RankingField.init(parsing:)))
  }

  func run() async throws {
    if PostgresAddress.isPostgres(catalog) {
      try await importIntoPostgres()
      return
    }
    let location: CatalogLocation
    do {
      location = try CatalogLocation(catalog)
    } catch {
      throw Failure.exit(error.description, status: 2)
    }
    let url = location.url(dataDirectory: DataDirectory.resolve())
    if case .builtIn = location {
      _ = try Failure.openCatalog(catalog)  // copies the built-in catalog on first use
    }
    var progress = ProgressBar(label: "Importing \(URL(fileURLWithPath: file).lastPathComponent)")
    do {
      let summary = try CatalogImporter.run(
        file: URL(fileURLWithPath: file), into: url, spec: spec,
        progress: { progress.update($0) })
      progress.finish()
      StandardStreams.error(
        "Imported \(summary.total) item\(summary.total == 1 ? "" : "s") into \(url.path) (\(summary.added) added, \(summary.updated) updated)"
      )
    } catch {
      progress.finish()
      throw Failure.exit(error.description, status: 1)
    }
  }
}
