import ArgumentParser
import Foundation
import Sift
import SiftStore

/// `sift export`: every item of a catalog with every field, and its settings, in a form
/// `sift import` takes back (`CatalogExport`): JSON Lines with the settings first, or CSV with
/// the settings in a file beside.
struct ExportCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Write every item of a catalog, and its settings, as JSON Lines or CSV.",
    discussion: """
      The settings are the catalog's fields and their kinds and labels, the title, category, \
      id and ranking fields, the location and the synonyms. As JSON Lines (the default) they \
      are the first line, and every other line is an item, its id first, in catalog order: \
      `sift import FILE --catalog NEW` makes a catalog that answers every search as this one \
      does, with no other option. As CSV they go in a file of their own (--settings, or beside \
      --output: cities.csv, cities.settings.json), which `sift import FILE --settings \
      SETTINGS` reads back; a list of strings is a JSON array in its cell.

      Examples:
        sift export --catalog products > products.jsonl
        sift export --catalog cities.sqlite --output cities-export.jsonl
        sift import cities-export.jsonl --catalog copy.sqlite
        sift export --catalog cities.sqlite --format csv --output cities.csv
        sift import cities.csv --catalog copy2.sqlite --settings cities.settings.json
      """
  )

  @Option(
    help:
      "A built-in catalog (products, candies, media, meals), a .sqlite file or postgresql://[USER@]HOST[:PORT]/DB?catalog=NAME."
  )
  var catalog: String

  @Option(help: "jsonl (JSON Lines, the settings first) or csv (the settings in a file beside).")
  var format: CatalogExport.Format = .jsonLines

  @Option(
    name: .shortAndLong,
    help: "Write to FILE (replaced only once the export is whole) instead of standard output.")
  var output: String?

  @Option(
    help: ArgumentHelp(
      "Write the settings to FILE (with --format csv; by default beside --output, NAME.settings.json).",
      valueName: "FILE"))
  var settings: String?

  /// Where a CSV export's settings go, if anywhere.
  var settingsPath: String? {
    guard format == .csv else { return nil }
    if let settings { return settings }
    guard let output else { return nil }
    // As the output was named, relative or not: cities.csv → cities.settings.json.
    return (output as NSString).deletingPathExtension + ".settings.json"
  }

  func validate() throws {
    if settings != nil, format != .csv {
      throw ValidationError(
        "--settings is for --format csv: a JSON Lines export holds its settings in its first line")
    }
  }

  func run() async throws {
    let opened = try await OpenedCatalog.open(catalog, for: .search(typos: .off))
    var items = -1  // the settings line or the header is not an item
    var sink: LineSink?
    var settingsSink: LineSink?
    do {
      sink = try LineSink(path: output)
      try await CatalogExport.write(
        opened.catalog, format: format,
        settings: { settings in
          guard let path = settingsPath else { return }
          settingsSink = try LineSink(path: path)
          try settingsSink?.write(settings.json)
        }
      ) { line in
        try sink?.write(line)
        items += 1
      }
      try sink?.finish()
      try settingsSink?.finish()
      await opened.close()
    } catch {
      sink?.abandon()
      settingsSink?.abandon()
      await opened.close()
      if let failure = error as? CatalogFailure { throw Failure.catalog(failure) }
      if error is ExitCode { throw error }
      throw Failure.exit("export: \(error)", status: 1)
    }
    let count = FieldValue.grouped(Double(max(items, 0)), from: 1_000)
    StandardStreams.error(
      "Exported \(count) item\(items == 1 ? "" : "s") from \(catalog)"
        + (output.map { " to \($0)" } ?? ""))
    if let path = settingsPath {
      StandardStreams.error(
        "Settings in \(path): sift import \(output ?? "FILE") --catalog NEW --settings \(path)")
    } else if format == .csv {
      StandardStreams.error(
        "Settings not written: --settings FILE keeps them, for sift import --settings FILE")
    }
  }
}

extension CatalogExport.Format: ExpressibleByArgument {}

/// Lines written a megabyte at a time to standard output, or to a file that takes the place of
/// `path` only when every line is in (a failed export leaves no half file behind).
private struct LineSink {
  private let handle: FileHandle
  private let path: String?
  private let temporary: URL?
  private var buffer: [UInt8] = []

  init(path: String?) throws {
    self.path = path
    guard let path else {
      handle = .standardOutput
      temporary = nil
      return
    }
    let target = URL(fileURLWithPath: path)
    let temporary = target.deletingLastPathComponent()
      .appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).part")
    guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
      throw Failure.exit("export: cannot write \(path)", status: 1)
    }
    handle = try FileHandle(forWritingTo: temporary)
    self.temporary = temporary
  }

  mutating func write(_ line: String) throws {
    buffer.append(contentsOf: line.utf8)
    buffer.append(UInt8(ascii: "\n"))
    if buffer.count >= 1 << 20 { try flush() }
  }

  mutating func finish() throws {
    try flush()
    guard let temporary, let path else { return }
    try handle.close()
    let target = URL(fileURLWithPath: path)
    if FileManager.default.fileExists(atPath: target.path) {
      _ = try FileManager.default.replaceItemAt(target, withItemAt: temporary)
    } else {
      try FileManager.default.moveItem(at: temporary, to: target)
    }
  }

  func abandon() {
    guard let temporary else { return }
    try? handle.close()
    try? FileManager.default.removeItem(at: temporary)
  }

  private mutating func flush() throws {
    guard !buffer.isEmpty else { return }
    try handle.write(contentsOf: buffer)
    buffer.removeAll(keepingCapacity: true)
  }
}
