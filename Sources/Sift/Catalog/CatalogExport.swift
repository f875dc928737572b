import Foundation

/// A catalog written back out in the form `sift import` reads: every item with every field, in
/// catalog order, and the catalog's settings (its schema: fields and their kinds and labels,
/// the title, category, id and ranking fields, the location, the synonyms).
///
/// JSON Lines: the settings are the first line, `{"sift_settings": {…}}`, which an import that
/// creates a catalog takes as its schema, so that no flag is needed; every other line is an
/// item, its id first.
///
/// CSV has no room for the settings before its header: they go in a file of their own, which
/// `sift import FILE --settings SETTINGS` reads back. A cell holds one string, so with the
/// settings a cell is read as JSON when it starts with `[` (a list of strings,
/// `["Paris","París"]`) or `"` (a text that starts with either, quoted as a JSON string); in a
/// field kept unsearched, `{`, `true`, `false`, `null` and a number are JSON too, so that every
/// value comes back with its type.
///
/// ```swift
/// try await CatalogExport.write(catalog) { line in print(line) }
/// ```
public enum CatalogExport {
  /// The file formats an export writes.
  public enum Format: String, Sendable, CaseIterable {
    case jsonLines = "jsonl"
    case csv
  }

  /// The only member of a JSON Lines export's first line.
  public static let settingsKey = "sift_settings"

  /// Items read from the catalog at a time.
  static let pageSize = 2_000

  /// What an import needs besides the items: the schema, and the field of the records that
  /// holds each item's id.
  public struct Settings: Hashable, Sendable, Codable {
    /// The export's layout; an import refuses a later one.
    public var version: Int
    /// The field each record holds its id in: the schema's id field, or `id` (`_id` when the
    /// catalog has a field named `id`) for a catalog whose ids were numbered as it imported.
    public var idField: String
    public var schema: CatalogSchema

    public static let currentVersion = 1

    public init(schema: CatalogSchema) {
      version = Self.currentVersion
      self.schema = schema
      let names = Set(schema.allFields.map(\.name))
      idField = schema.idField ?? (names.contains("id") ? "_id" : "id")
    }

    enum CodingKeys: String, CodingKey {
      case version
      case idField = "id_field"
      case schema
    }

    /// The settings as JSON, one line.
    public var json: String {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      // A schema always encodes: it is made of strings, numbers and flags.
      let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
      return String(decoding: data, as: UTF8.self)
    }

    /// The settings in `json`, checked; nil with the reason when they do not read.
    public static func read(_ json: some Sequence<UInt8>) -> Result<Settings, SettingsProblem> {
      let data = Data(json)
      // A later layout is named as such, whatever else it holds.
      if let layout = try? JSONDecoder().decode(SettingsLayout.self, from: data),
        layout.version > currentVersion
      {
        return .failure(
          SettingsProblem(
            reason:
              "the settings are of export version \(layout.version); this sift reads \(currentVersion) and earlier"
          ))
      }
      do {
        return .success(try JSONDecoder().decode(Settings.self, from: data))
      } catch {
        return .failure(SettingsProblem(reason: "the settings do not read (\(error))"))
      }
    }

    /// The first line of a JSON Lines export.
    public var line: String { "{\"\(CatalogExport.settingsKey)\":\(json)}" }

    /// The fields in the order a record lists them: the id, then the schema's.
    public var columns: [String] {
      [idField] + schema.allFields.map(\.name).filter { $0 != idField }
    }
  }

  /// The one member of settings of any layout.
  private struct SettingsLayout: Decodable { var version: Int }

  /// Why an export's settings could not be read.
  public struct SettingsProblem: Error, Hashable, Sendable {
    public var reason: String
  }

  /// `item` as a JSON Lines record: its id, then each field it has.
  public static func record(_ item: Item, settings: Settings) -> String {
    var members: [(String, JSONValue)] = [(settings.idField, settings.schema.json(item.id))]
    for name in settings.columns.dropFirst() {
      guard let value = item[name] else { continue }
      members.append((name, value.json))
    }
    return JSONValue.object(members).text
  }

  /// `item` as a CSV row under `csvHeader(settings:)`: a number as `FieldValue.format` writes
  /// it, a list of strings as a JSON array, a text that starts with `[` or `"` as a JSON string.
  /// A field kept unsearched keeps its JSON type too: `true`, `false` and `null` as the bare
  /// words, a list or an object as its JSON, and a text that would read as one of these (or as
  /// a number) as a JSON string.
  public static func csvRow(_ item: Item, settings: Settings) -> String {
    var cells = [item.id.rawValue]
    let kept = Set(settings.schema.storedFields.map(\.name))
    for name in settings.columns.dropFirst() {
      cells.append(item[name].map { csvCell($0, kept: kept.contains(name)) } ?? "")
    }
    return csvLine(cells)
  }

  /// One cell of `csvRow(_:settings:)`; `kept`: the field is kept unsearched.
  static func csvCell(_ value: FieldValue, kept: Bool) -> String {
    switch value {
    case .number(let number): return FieldValue.format(number)
    case .texts, .bool, .null, .list, .object, .vector: return value.json.text
    case .text(let text):
      // By its first byte, as the import reads it: a quote and a joiner are one `Character`.
      let first = text.utf8.first
      let quoted =
        first == UInt8(ascii: "[") || first == UInt8(ascii: "\"")
        || (kept
          && (first == UInt8(ascii: "{") || ["true", "false", "null"].contains(text)
            || NumberText.parse(text) != nil || text.isEmpty))
      return quoted ? JSONValue.string(text).text : text
    }
  }

  /// The CSV header: the columns' names, the id's first.
  public static func csvHeader(settings: Settings) -> String {
    csvLine(settings.columns)
  }

  /// Every item of `catalog`, each line handed to `write` as it is made (without its line
  /// break), the catalog read a page at a time in catalog order: as JSON Lines the settings
  /// first, as CSV the header (`settings` is told them once, before any line, to keep beside).
  /// A page is read at the catalog's version then. Edits while the export runs never make an
  /// item appear twice: the pages go up to the last place the first page saw (an item added or
  /// moved since comes after it), then the items the changes since the first page's version
  /// added or moved are written, each id once.
  ///
  /// - Parameters:
  ///   - catalog: the catalog to write out.
  ///   - format: JSON Lines (the settings first) or CSV (the header first).
  ///   - visible: which items a reader may see (a tenant's); nil: every item.
  ///   - told: given the settings once, before the first line.
  ///   - write: given each line.
  public static func write(
    _ catalog: some SearchCatalog, format: Format = .jsonLines, visible: FeedVisibility? = nil,
    settings told: (Settings) async throws -> Void = { _ in },
    _ write: (String) async throws -> Void
  ) async throws {
    var after: Int64?
    // The first page's schema names the columns of every line; its version and last place
    // bound what the pages read.
    var first: (settings: Settings, version: Int64, last: Int64?)?
    var written = Set<ItemID>()
    func line(_ item: Item, _ settings: Settings) -> String {
      format == .jsonLines ? record(item, settings: settings) : csvRow(item, settings: settings)
    }
    repeat {
      let page = try await catalog.snapshot(after: after, limit: pageSize, visible: visible)
      if first == nil {
        let settings = Settings(schema: page.schema)
        first = (settings, page.version, page.last)
        try await told(settings)
        try await write(format == .jsonLines ? settings.line : csvHeader(settings: settings))
      }
      for positioned in page.items where written.insert(positioned.item.id).inserted {
        try await write(line(positioned.item, first!.settings))
      }
      after = page.next(endingAt: first!.last)
    } while after != nil
    guard let first, catalog.version > first.version else { return }
    // What was added, or deleted and added again, while the pages were read.
    var since = first.version
    while case .page(let page) = try await catalog.changes(
      since: since, limit: pageSize, visible: visible)
    {
      for change in page.changes {
        if let item = change.put, written.insert(item.id).inserted {
          try await write(line(item, first.settings))
        }
      }
      guard let next = page.next else { break }
      since = next
    }
  }

  /// Cells joined by commas, each quoted when it holds a comma, a quote or a line break — byte
  /// by byte: a quote followed by a joiner is one `Character`, which a `String` replacement of
  /// quotes would pass over.
  private static func csvLine(_ cells: [String]) -> String {
    var line: [UInt8] = []
    for (index, cell) in cells.enumerated() {
      if index > 0 { line.append(UInt8(ascii: ",")) }
      let bytes = cell.utf8
      guard bytes.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D })
      else {
        line.append(contentsOf: bytes)
        continue
      }
      line.append(0x22)
      for byte in bytes {
        line.append(byte)
        if byte == 0x22 { line.append(0x22) }
      }
      line.append(0x22)
    }
    return String(decoding: line, as: UTF8.self)
  }
}
