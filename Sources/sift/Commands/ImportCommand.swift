import ArgumentParser
import Foundation
import Sift
import SiftStore

/// `sift import`: a JSON Lines or CSV file into a catalog, in one transaction.
struct ImportCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import",
    abstract: "Import a JSON Lines or CSV file into a catalog (created if missing).",
    discussion: """
      The whole import is one transaction: a malformed line, invalid UTF-8 or a value of the \
      wrong type fails it with FILE:LINE: reason and leaves the catalog as it was. With \
      --skip-invalid the records that fit are imported and each one that does not is listed \
      with its reason, on standard error (the first ten) and in a file (all of them). A --text \
      field may hold a string or an array of strings; a --number field a number, or a string \
      that reads as one ("12"), which the import counts and says.

      Every field of a record is kept: the ones named here are searched, the rest are stored \
      and shown with the item. The catalog remembers how it was imported, so a later import \
      into it needs none of these options again. An item whose --id the catalog holds is \
      replaced by the record (with --merge, it takes the record's fields and keeps the rest).

      Examples:
        sift import cities.jsonl --catalog cities.sqlite --title name \\
          --text alternates --number population --category country --id id \\
          --rank-by population \\
          --location lat,lon
        sift import more-cities.jsonl --catalog cities.sqlite
        sift import meals.csv --catalog meals.sqlite --title name --number rating \\
          --label rating=Stars --delimiter ';'
        sift import export.csv --catalog copy.sqlite --settings export.settings.json
        sift import movies.jsonl --catalog movies.sqlite --title title --skip-invalid
      """
  )

  @Argument(help: "A .jsonl (JSON Lines) or .csv file (with a header row).")
  var file: String

  @Option(
    help:
      "The catalog: a .sqlite file, a built-in catalog's name, or postgresql://[USER@]HOST[:PORT]/DB?catalog=NAME."
  )
  var catalog: String

  @Option(help: "The field shown as each item's title (a new catalog needs it).")
  var title: String?

  @Option(
    help: ArgumentHelp(
      "The catalog's name as people read it (\"Search Airports\"); by default the file's name, capitalised.",
      valueName: "TEXT"))
  var name: String?

  @Option(help: "A text field to search. Repeatable.")
  var text: [String] = []

  @Option(
    name: .customLong("other-names"),
    help: ArgumentHelp(
      "A text field that holds each item's other names (alternate names, codes): searched, and ranked like the title. Repeatable. A --text field that holds each item's title among its values is found to be one.",
      valueName: "FIELD"))
  var otherNames: [String] = []

  @Option(help: "A number field. Repeatable.")
  var number: [String] = []

  @Option(
    help:
      "The field that groups items (scope bar and category: tokens): a string, or a list of strings for an item in several (a film's genres)."
  )
  var category: String?

  @Flag(
    name: .customLong("search-category"), inversion: .prefixedNo,
    help:
      "Whether plain terms search the category's values too, after every other field (\"goat\" finds the goats): a new catalog's category is searched; an existing catalog keeps what it says unless told."
  )
  var searchCategory: Bool?

  @Option(help: "The field that gives each item its id; re-importing an id replaces that item.")
  var id: String?

  @Flag(help: "Update a known id's item with the record's fields and keep its others.")
  var merge = false

  @Option(
    help: ArgumentHelp(
      "What people read for a field, e.g. population=Inhabitants. Repeatable.",
      valueName: "FIELD=TEXT"))
  var label: [String] = []

  @Option(
    help: ArgumentHelp(
      "What separates CSV fields: one character, or tab.", valueName: "CHARACTER"))
  var delimiter: String = ","

  @Option(
    help: ArgumentHelp(
      "The settings `sift export --format csv` wrote beside a CSV file: the catalog's fields, kinds, labels and synonyms, and how its cells read.",
      valueName: "FILE"))
  var settings: String?

  /// The settings `--settings` names, read.
  func exportSettings() throws -> CatalogExport.Settings? {
    guard let settings else { return nil }
    do {
      return try ImportSettings.read(settingsFile: URL(fileURLWithPath: settings))
    } catch {
      throw Failure.exit(error.description, status: 1)
    }
  }

  @Option(
    name: .customLong("rank-by"),
    help: ArgumentHelp(
      "A number field that orders results the relevance rules leave tied (popularity): larger first, or FIELD:asc for smaller first.",
      valueName: "FIELD[:asc|:desc]"))
  var rankBy: String?

  @Option(
    help: ArgumentHelp(
      "The latitude and longitude fields, two numbers that place each item on the earth (checked: a latitude within ±90, a longitude within ±180), so searches can be --near a place.",
      valueName: "LAT_FIELD,LON_FIELD"))
  var location: String?

  @Option(
    help: ArgumentHelp(
      "The field holding each item's vector: an array of numbers, the same length in every record (an embedding of the item), so searches can find items by meaning (--vector FILE, --like ID). Checked: another length, a non-number or all zeros fails the import at its FILE:LINE.",
      valueName: "FIELD"))
  var vector: String?

  @Flag(
    name: .customLong("skip-invalid"),
    help:
      "Import the records that fit and pass over the others, each listed with its FILE:LINE and reason (without it, the first one fails the whole import)."
  )
  var skipInvalid = false

  @Option(
    help: ArgumentHelp(
      "Where --skip-invalid lists every record it passed over, a line each (default: beside the catalog, NAME.rejected.txt).",
      valueName: "FILE"))
  var rejects: String?

  /// The list of passed-over records, with `--skip-invalid`.
  func rejectedRecords(catalog: URL?, name: String) -> RejectedRecords? {
    guard skipInvalid else { return nil }
    return RejectedRecords(
      file: rejects.map { URL(fileURLWithPath: $0) }
        ?? RejectedRecords.defaultFile(besideCatalog: catalog, name: name))
  }

  func validate() throws {
    if rejects != nil, !skipInvalid {
      throw ValidationError("--rejects lists what --skip-invalid passes over: give both")
    }
    if let name, name.allSatisfy(\.isWhitespace) {
      throw ValidationError("--name must not be blank")
    }
    if let location, LocationFields(parsing: location) == nil {
      throw ValidationError(
        "--location \"\(location)\" is not LAT_FIELD,LON_FIELD (two different field names)")
    }
    if let vector, vector.allSatisfy(\.isWhitespace) {
      throw ValidationError("--vector must name a field")
    }
    if let rankBy, RankingField(parsing: rankBy) == nil {
      throw ValidationError(
        "--rank-by \"\(rankBy)\" is not FIELD, FIELD:asc or FIELD:desc")
    }
    for label in label {
      guard let equals = label.firstIndex(of: "="), equals != label.startIndex,
        !label[label.index(after: equals)...].allSatisfy(\.isWhitespace)
      else {
        throw ValidationError("--label \"\(label)\" is not FIELD=TEXT")
      }
    }
    guard Self.delimiter(delimiter) != nil else {
      throw ValidationError(
        "--delimiter \"\(delimiter)\" is not one character other than a quote or a line break (or tab)"
      )
    }
  }

  /// The byte `--delimiter` names: one ASCII character that is not a quote or a line break.
  static func delimiter(_ text: String) -> UInt8? {
    if text.lowercased() == "tab" || text == "\\t" { return UInt8(ascii: "\t") }
    guard text.utf8.count == 1, let byte = text.utf8.first, byte < 0x80,
      ![UInt8(ascii: "\""), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(byte)
    else { return nil }
    return byte
  }

  var delimiterByte: UInt8 { Self.delimiter(delimiter) ?? UInt8(ascii: ",") }

  /// The options as an import spec; an empty title means the catalog's own.
  var spec: ImportSpec {
    var labels: [String: String] = [:]
    for label in label {
      let parts = label.split(separator: "=", maxSplits: 1)
      if parts.count == 2 { labels[String(parts[0])] = String(parts[1]) }
    }
    var spec = ImportSpec(
      titleField: title ?? "", textFields: text, numberFields: number, categoryField: category,
      idField: id, rankingField: rankBy.flatMap(RankingField.init(parsing:)), merges: merge,
      labels: labels, location: location.flatMap(LocationFields.init(parsing:)))
    spec.catalogTitle = name
    spec.vectorField = vector
    spec.otherNameFields = otherNames
    spec.searchesCategory = searchCategory
    return spec
  }

  /// `spec` with the --text fields that hold each item's other names (`otherNameFields(in:)`),
  /// said on standard error.
  var specFindingOtherNames: ImportSpec {
    var spec = self.spec
    let found = CatalogImporter.otherNameFields(
      in: URL(fileURLWithPath: file), spec: spec, delimiter: delimiterByte)
    if !found.isEmpty {
      spec.otherNameFields += found
      StandardStreams.error(
        "Other names: \(found.joined(separator: ", ")) (each item's title is among its values;"
          + " ranked like the title)")
    }
    return spec
  }

  func run() async throws {
    let parsed = try CatalogArgument(catalog)
    let location: CatalogLocation
    switch parsed.place {
    case .postgres(let address): return try await importIntoPostgres(address)
    case .server: throw parsed.served
    case .local(let local): location = local
    }
    let url = location.url(dataDirectory: DataDirectory.resolve())
    if case .builtIn = location {
      _ = try parsed.openStore()  // copies the built-in catalog on first use
    }
    let settings = try exportSettings()
    var progress = ProgressBar(label: "Importing \(URL(fileURLWithPath: file).lastPathComponent)")
    let rejected = rejectedRecords(
      catalog: url, name: url.deletingPathExtension().lastPathComponent)
    do {
      let summary = try CatalogImporter.run(
        file: URL(fileURLWithPath: file), into: url, spec: specFindingOtherNames,
        delimiter: delimiterByte,
        settings: settings, progress: { progress.update($0) }, reject: rejected.map { $0.add })
      progress.finish()
      for line in rejected?.report() ?? [] { StandardStreams.error(line) }
      StandardStreams.error(summary.report(into: url.path, from: file))
    } catch {
      progress.finish()
      for line in rejected?.report() ?? [] { StandardStreams.error(line) }
      throw Failure.exit(error.description, status: 1)
    }
  }
}
