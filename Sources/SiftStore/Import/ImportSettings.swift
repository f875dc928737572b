import Foundation
import Sift

/// The settings line a JSON Lines export starts with (`CatalogExport`): an import that creates
/// the catalog takes its schema, so that the export imports back with no flag; every import
/// takes its id field, and skips the line.
public enum ImportSettings {
  /// How the line starts, exactly as an export writes it.
  static let prefix = Array("{\"\(CatalogExport.settingsKey)\":".utf8)

  /// The settings `file` starts with (after a byte order mark), or nil when its first line is
  /// not a settings line.
  ///
  /// - Throws: `ImportError` on line 1 for settings that do not read, or a file that cannot.
  public static func read(file: URL) throws(ImportError) -> CatalogExport.Settings? {
    let name = file.relativePath
    let line: [UInt8]
    do {
      let handle = try FileHandle(forReadingFrom: file)
      defer { try? handle.close() }
      var batches = BatchedFile(handle, name: name, start: [])
      batches.skip([0xEF, 0xBB, 0xBF])
      guard
        let first = try batches.next(
          size: 1 << 16, line: 1,
          end: { bytes, atEnd in
            // Only as much as shows whether the line is a settings line, then all of it.
            guard bytes.count >= prefix.count || atEnd else { return nil }
            guard bytes.starts(with: prefix) else { return min(bytes.count, prefix.count) }
            return bytes.firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 }
              ?? (atEnd ? bytes.count : nil)
          })
      else { return nil }
      line = first
    } catch let error as ImportError {
      throw error
    } catch {
      throw ImportError(
        file: name, line: 0, reason: "cannot read the file (\(error.localizedDescription))")
    }
    guard line.starts(with: prefix) else { return nil }
    func problem(_ reason: String) -> ImportError {
      ImportError(file: name, line: 1, reason: "the export's settings: \(reason)")
    }
    let value: JSONValue
    do {
      value = try JSONValue.parse(Data(line))
    } catch {
      throw problem("malformed JSON (\(error))")
    }
    guard case .object(let members) = value, members.count == 1, let inner = members.first?.1
    else {
      throw problem("the line holds more than \"\(CatalogExport.settingsKey)\"")
    }
    switch CatalogExport.Settings.read(Array(inner.text.utf8)) {
    case .success(let settings): return settings
    case .failure(let failure): throw problem(failure.reason)
    }
  }

  /// The settings in `file`, a file of their own (`sift export --format csv` writes one beside
  /// the CSV file).
  ///
  /// - Throws: `ImportError` naming the file for one that cannot be read or does not read.
  public static func read(settingsFile file: URL) throws(ImportError) -> CatalogExport.Settings {
    let bytes: Data
    do {
      bytes = try Data(contentsOf: file)
    } catch {
      throw ImportError(
        file: file.relativePath, line: 0,
        reason: "cannot read the settings (\(error.localizedDescription))")
    }
    switch CatalogExport.Settings.read(bytes) {
    case .success(let settings): return settings
    case .failure(let problem):
      throw ImportError(file: file.relativePath, line: 1, reason: problem.reason)
    }
  }

  /// The schema a catalog the import creates starts with: the exported one, under the new
  /// catalog's name.
  public static func schema(_ settings: CatalogExport.Settings, name: String) -> CatalogSchema {
    var schema = settings.schema
    schema.name = name
    return schema
  }

  /// `spec` for a file with `settings`, continuing `schema` (the catalog's, or the settings'
  /// for a catalog the import creates): the records' ids are where the settings say, unless a
  /// flag or the catalog names the id field.
  public static func spec(
    _ spec: ImportSpec, continuing schema: CatalogSchema, settings: CatalogExport.Settings
  ) -> ImportSpec {
    var spec = spec.continuing(schema)
    if spec.idField == nil { spec.idField = settings.idField }
    return spec
  }
}
