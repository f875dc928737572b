import ArgumentParser
import Foundation
import Sift
import SiftStore

/// `sift facets`: search within a category's values (`Facets.categories(matching:schema:limit:)`)
/// — the countries whose name matches what was typed, each with how many results of a search
/// hold it — as `GET /catalogs/NAME/facets/FIELD?q=` answers.
struct FacetsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "facets",
    abstract: "List the values of a catalog's category that match a text, with their counts.",
    discussion: """
      A value matches when a word of it starts with each word typed, folded as a search folds \
      ("cote" finds Côte d'Ivoire); when none does, values within the typo budget of a search \
      match instead ("frnace" finds France). Each value comes with how many results of the \
      search given by --search, --scope, --token and the place options hold it, most first; \
      values no result holds are left out. Without a text, the most frequent values. The \
      count goes to stderr.

      Examples:
        sift facets --catalog cities.sqlite fr
        sift facets --catalog cities.sqlite --search san --limit 5
        sift facets --catalog products --search rose --json
      """
  )

  @OptionGroup var options: CatalogOption
  var catalog: String { options.catalog }

  @Option(
    help: ArgumentHelp(
      "The category field (its name or label, or category); by default the catalog's category.",
      valueName: "FIELD"))
  var field: String?

  @Option(
    name: .customLong("search"),
    help: ArgumentHelp(
      "Count the results of this query, as sift search reads it; by default every item.",
      valueName: "QUERY"))
  var searchText = ""

  @Option(help: "The scope bar button of the search counted, by title.")
  var scope: String?

  @Option(
    name: .customLong("token"),
    help: "A token of the search counted, e.g. year:>=2010. Repeatable.")
  var tokens: [String] = []

  @OptionGroup var place: PlaceOptions

  @Option(help: "List at most this many values.")
  var limit = 10

  @Flag(help: "Print one JSON object per value and line: value and count.")
  var json = false

  @Argument(help: "What was typed for the value.")
  var text: [String] = []

  func validate() throws {
    if limit < 1 { throw ValidationError("--limit must be 1 or more, not \(limit)") }
  }

  func run() async throws {
    let opened = try await OpenedCatalog.open(catalog, for: .search(typos: .automatic))
    if let notice = opened.notice { StandardStreams.error("sift: \(notice)") }
    let schema = opened.catalog.schema
    defer { Task { await opened.close() } }
    let named = field ?? "category"
    if let problem = schema.categoryProblem(named: named) {
      throw Failure.exit("--field: \(named) is \(problem)", status: 2)
    }
    let category = schema.categoryField ?? named
    let request: SearchRequest
    let (near, box) = (try place.searchNear(), try place.searchBox())
    do throws(SearchRequestError) {
      request = try SearchRequest(
        SearchRequestInput(
          text: searchText, scope: scope, tokens: tokens, near: near, withinBox: box),
        schema: schema)
    } catch .noLocation {
      throw Failure.exit(
        "\(place.placeOption): \(SearchRequestError.noLocation(catalog: schema.name))", status: 2)
    } catch {
      throw Failure.usage(error)
    }
    let values: [FacetValue]
    do {
      values = try await opened.catalog.categoryValues(
        matching: text.joined(separator: " "), in: request, limit: limit
      ).values
    } catch {
      throw Failure.catalog(error)
    }
    let output = StandardStreams.Output()
    let width = values.map(\.value.count).max() ?? 0
    for value in values {
      if json {
        output.write(
          JSONValue.object(sorting: [
            ("value", .string(value.value)), ("count", .number(Double(value.count))),
          ]).text + "\n")
      } else {
        let padding = String(repeating: " ", count: width - value.value.count)
        output.write("\(value.value.inert)\(padding)  \(FieldValue.grouped(Double(value.count)))\n")
      }
    }
    output.flush()
    StandardStreams.error(
      values.isEmpty
        ? "No \(category) values match"
        : "\(category): \(values.count) \(values.count == 1 ? "value" : "values")")
  }
}
