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

  @OptionGroup var options: CatalogOption
  var catalog: String { options.catalog }

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

/// Lines to standard output (`StandardStreams.Output`, which writes them in large blocks), or
/// to a file that takes the place of `path` only when every line is in (a failed export leaves
/// no half file behind).
private struct LineSink {
  private enum Destination {
    case standardOutput(StandardStreams.Output)
    case file(FileHandle, temporary: URL, target: URL)
  }

  private let destination: Destination
  private var buffer: [UInt8] = []

  init(path: String?) throws {
    guard let path else {
      destination = .standardOutput(StandardStreams.Output())
      return
    }
    let target = URL(fileURLWithPath: path)
    let temporary = target.deletingLastPathComponent()
      .appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).part")
    guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
      throw Failure.exit("export: cannot write \(path)", status: 1)
    }
    destination = .file(
      try FileHandle(forWritingTo: temporary), temporary: temporary, target: target)
  }

  mutating func write(_ line: String) throws {
    switch destination {
    case .standardOutput(let output): output.write(line + "\n")
    case .file(let handle, _, _):
      buffer.append(contentsOf: line.utf8)
      buffer.append(UInt8(ascii: "\n"))
      if buffer.count >= 1 << 20 {
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
      }
    }
  }

  mutating func finish() throws {
    switch destination {
    case .standardOutput(let output): output.flush()
    case .file(let handle, let temporary, let target):
      try handle.write(contentsOf: buffer)
      try handle.close()
      if FileManager.default.fileExists(atPath: target.path) {
        _ = try FileManager.default.replaceItemAt(target, withItemAt: temporary)
      } else {
        try FileManager.default.moveItem(at: temporary, to: target)
      }
    }
  }

  func abandon() {
    guard case .file(let handle, let temporary, _) = destination else { return }
    try? handle.close()
    try? FileManager.default.removeItem(at: temporary)
  }
}
