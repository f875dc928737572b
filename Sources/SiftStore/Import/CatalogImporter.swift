import Foundation
import GRDB
import Sift

/// Imports a JSON Lines or CSV file into a catalog, creating the catalog if needed.
///
/// The file is read a batch of records at a time, each batch checked and written as it comes,
/// all in one transaction: memory holds a batch and the index being built, never the whole
/// file. Any bad line fails the import with `FILE:LINE: reason` and leaves the catalog as it
/// was (a catalog the import created is removed). Records whose id is already in the catalog
/// update that item (it keeps its place).
public enum CatalogImporter {
  public enum Format: String, Sendable {
    case jsonLines, csv

    /// By extension (`.csv`; `.jsonl`, `.ndjson`, `.json`), else by content: a file whose first
    /// character is `{` is JSON Lines, anything else CSV.
    public static func detect(path: String, data: Data) -> Format {
      let lowered = path.lowercased()
      if lowered.hasSuffix(".csv") { return .csv }
      if [".jsonl", ".ndjson", ".json"].contains(where: lowered.hasSuffix) { return .jsonLines }
      let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
      let text = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
      return text.first { !whitespace.contains($0) } == UInt8(ascii: "{") ? .jsonLines : .csv
    }
  }

  public typealias Summary = CatalogImport.Summary

  /// Reads and checks `file` a batch of records at a time, handing each batch to `batch` in
  /// file order as it is read: what a catalog in PostgreSQL imports from.
  ///
  /// - Parameters:
  ///   - spec: the fields to read by name; every other field of a record is kept as it is
  ///     (a CSV column of numbers only, as numbers).
  ///   - delimiter: what separates CSV fields (`--delimiter`).
  ///   - settings: an export's settings, for a CSV file an export wrote (`CatalogExport`).
  ///   - progress: called as the file is read, with the share of it read and the records.
  /// - Throws: `ImportError` for the file (`FILE:LINE: reason`), or what `batch` throws.
  ///   - reject: given each record that does not fit, in file order, to take the good ones
  ///     (`--skip-invalid`); nil: the first one fails the import.
  public static func readBatches(
    file: URL, spec: ImportSpec, delimiter: UInt8 = UInt8(ascii: ","),
    settings: CatalogExport.Settings? = nil,
    progress: (ImportProgress) -> Void = { _ in },
    reject: ((ImportError) throws -> Void)? = nil,
    _ batch: ([ImportRecord]) throws -> Void
  ) throws {
    try ImportFileReader.read(
      file: file, spec: spec, delimiter: delimiter, settings: settings,
      progress: { progress($2 ? .scanning($0, items: $1) : .reading($0, items: $1)) },
      reject: reject, batch)
  }

  /// The text fields of `spec` that hold each item's other names, told by the first records of
  /// `file`: a field one of whose values equals the record's title (folded) in more than half
  /// of the records that have it, and in three at least — a list of names that includes the
  /// item's own (the cities' `alternates`), never a field that describes it (genres, breeds).
  /// Fields `spec.otherNameFields` names already are left out; empty when the file cannot be
  /// read (the import then says why).
  public static func otherNameFields(
    in file: URL, spec: ImportSpec, delimiter: UInt8 = UInt8(ascii: ",")
  ) -> [String] {
    let candidates = spec.textFields.filter {
      $0 != spec.titleField && !spec.otherNameFields.contains($0)
    }
    guard !spec.titleField.isEmpty, !candidates.isEmpty else { return [] }
    struct Enough: Error {}
    var first: [ImportRecord] = []
    do {
      try readBatches(file: file, spec: spec, delimiter: delimiter, reject: { _ in }) {
        first += $0
        if first.count >= 1_000 { throw Enough() }
      }
    } catch is Enough {
    } catch {
      return []
    }
    return candidates.filter { field in
      var holding = 0
      var holdingTitle = 0
      for record in first.prefix(1_000) {
        guard let values = record.fields[field]?.strings, !values.isEmpty else { continue }
        holding += 1
        guard let title = record.fields[spec.titleField]?.strings.first else { continue }
        let folded = TextFolding.fold(title)
        if values.contains(where: { TextFolding.fold($0) == folded }) { holdingTitle += 1 }
      }
      return holdingTitle >= 3 && holdingTitle * 2 > holding
    }
  }

  /// Every record of `file`, read and checked, all at once (`readBatches(file:spec:)`).
  public static func readRecords(
    file: URL, spec: ImportSpec, delimiter: UInt8 = UInt8(ascii: ","),
    progress: (ImportProgress) -> Void = { _ in }
  ) throws(ImportError) -> [ImportRecord] {
    var records: [ImportRecord] = []
    do {
      try readBatches(file: file, spec: spec, delimiter: delimiter, progress: progress) {
        records += $0
      }
    } catch let error as ImportError {
      throw error
    } catch {
      // Collecting the records throws nothing else.
      throw ImportError(file: file.relativePath, line: 0, reason: "\(error)")
    }
    return records
  }

  /// Imports `file` into the catalog at `location`, creating it when it does not exist.
  ///
  /// A catalog that exists imports as it did before (`ImportSpec.continuing(_:)`): `spec`
  /// needs to name only what is new. An export's settings — `settings`, or the first line of a
  /// JSON Lines export — make a new catalog's schema and say where the records' ids are.
  ///
  /// With `reject`, a record that does not fit is handed to it (`FILE:LINE: reason`, in file
  /// order) and the others are imported; the summary counts them (`Summary.skipped`). Without,
  /// the first one fails the import.
  public static func run(
    file: URL, into catalog: URL, spec: ImportSpec, delimiter: UInt8 = UInt8(ascii: ","),
    settings given: CatalogExport.Settings? = nil,
    progress: (ImportProgress) -> Void = { _ in },
    reject: ((ImportError) -> Void)? = nil
  ) throws(ImportFailure) -> Summary {
    let exists = FileManager.default.fileExists(atPath: catalog.path)
    let name = catalog.deletingPathExtension().lastPathComponent
    var settings = given
    if settings == nil {
      do {
        settings = try ImportSettings.read(file: file)
      } catch {
        throw .file(error)
      }
    }
    var spec = spec
    if exists {
      do {
        let store = try CatalogStore.open(at: catalog)
        defer { try? store.close() }
        let schema = try store.loadSchema()
        spec =
          settings.map { ImportSettings.spec(spec, continuing: schema, settings: $0) }
          ?? spec.continuing(schema)
      } catch {
        throw .catalog(error)
      }
    } else if let settings {
      spec = ImportSettings.spec(
        spec, continuing: ImportSettings.schema(settings, name: name), settings: settings)
    }
    // What is wrong with the flags is told before a new catalog is made.
    if let problem = ImportFileReader.specProblem(spec, file: file.relativePath) {
      throw .file(problem)
    }
    let store: CatalogStore
    do {
      if exists {
        store = try CatalogStore.open(at: catalog)
      } else {
        let schema =
          settings.map { ImportSettings.schema($0, name: name) }
          ?? CatalogImport.newSchema(name: name, spec: spec)
        store = try CatalogStore.create(
          at: catalog, document: CatalogDocument(schema: schema, items: []))
      }
    } catch {
      throw .catalog(error)
    }
    do {
      defer { try? store.close() }
      var skipped = 0
      var summary = try store.importRecords(spec: spec, progress: progress) { write in
        try ImportFileReader.read(
          file: file, spec: spec, delimiter: delimiter, settings: settings,
          progress: { progress($2 ? .scanning($0, items: $1) : .writing($0, items: $1)) },
          reject: reject.map { reject in
            { error in
              skipped += 1
              reject(error)
            }
          }, write)
      }
      summary.skipped = skipped
      return summary
    } catch {
      // A catalog the import made is not left behind, empty or half-written.
      if !exists { CatalogStore.remove(at: catalog) }
      switch error {
      case .catalog(.untitledRecord(let line, let field)):
        throw .file(
          ImportError(
            file: file.relativePath, line: line,
            reason: ImportSchemaError.untitledReason(field: field)))
      case .catalog(.invalidRecord(let line, let reason)):
        throw .file(ImportError(file: file.relativePath, line: line, reason: reason))
      default: throw error
      }
    }
  }
}
