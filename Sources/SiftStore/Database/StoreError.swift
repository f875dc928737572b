import Foundation
import GRDB
import Sift

/// Why a catalog file could not be opened, created or changed. Nothing is written when one is
/// thrown: every change is one transaction, and files that are not Sift catalogs are only read.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
  case notFound(String)
  /// A folder where a catalog file was expected.
  case isFolder(String)
  /// The file is not an SQLite database at all.
  case notSQLite(String)
  /// An SQLite database, but not a Sift catalog (another application's file).
  case notACatalog(String)
  /// Written by a newer Sift whose format this one cannot read.
  case newerFormat(String)
  case alreadyExists(String)
  case invalidSchema(String, CatalogSchemaError)
  /// The schema of an import does not fit the catalog it goes into.
  case incompatibleSchema(String, reason: String)
  case edit(CatalogEditError)
  /// The record on `line` of an import would add an item without a title (`--merge` leaves
  /// the title out only of an item the catalog has); the importer names the file.
  case untitledRecord(line: Int, field: String)
  /// The record on `line` of an import cannot be written (a vector of another length than the
  /// records before it); the importer names the file.
  case invalidRecord(line: Int, reason: String)
  /// A value holds a NUL character, which SQLite would give back cut short.
  case unstorableText(field: String)
  /// The database reported a failure (disk full, permission, corruption), with SQLite's
  /// extended result code when it came from SQLite (`SQLITE_FULL`, `SQLITE_READONLY`…).
  case database(String, message: String, resultCode: Int32? = nil)

  public var description: String {
    switch self {
    case .notFound(let path): "\(path): no such catalog file"
    case .isFolder(let path):
      "\(path): a folder, not a catalog file (give a .sqlite file or a built-in catalog's name)"
    case .notSQLite(let path):
      "\(path): not a Sift catalog (not an SQLite database); left untouched"
    case .notACatalog(let path):
      "\(path): not a Sift catalog (an SQLite database of another application); left untouched"
    case .newerFormat(let path):
      "\(path): written by a newer version of Sift; upgrade Sift to open it (left untouched)"
    case .alreadyExists(let path): "\(path): a file already exists there"
    case .invalidSchema(let path, let error): "\(path): invalid catalog schema: \(error)"
    case .incompatibleSchema(let path, let reason): "\(path): \(reason)"
    case .edit(let error): error.description
    case .untitledRecord(let line, let field):
      ImportSchemaError.untitled(line: line, field: field).description
    case .invalidRecord(let line, let reason): "line \(line): \(reason)"
    case .unstorableText(let field):
      "field \"\(field)\" contains a NUL character (U+0000), which a catalog cannot store"
    case .database(let path, let message, _): "\(path): \(message)"
    }
  }
}

extension StoreError {
  /// A failure of the database layer as a `StoreError` of the catalog at `path`, keeping
  /// SQLite's own message and result code.
  static func failure(_ path: String, _ error: any Error) -> StoreError {
    if let error = error as? StoreError { return error }
    if let error = error as? DatabaseError {
      return .database(
        path, message: error.message ?? "SQLite error \(error.resultCode.rawValue)",
        resultCode: error.extendedResultCode.rawValue)
    }
    return .database(path, message: (error as NSError).localizedDescription)
  }
}
