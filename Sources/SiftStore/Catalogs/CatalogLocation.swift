import Foundation
import Sift

/// Where a catalog named on the command line lives: a built-in catalog's writable copy in the
/// data folder, or a `.sqlite` file given by path.
public enum CatalogLocation: Hashable, Sendable, CustomStringConvertible {
  case builtIn(BuiltInCatalog)
  case file(URL)

  /// Reads `--catalog NAME|PATH`: a built-in name, or anything that looks like a path
  /// (has a `/` or a file extension, or exists).
  public init(_ argument: String) throws(CatalogLocationError) {
    if let builtIn = BuiltInCatalog(rawValue: argument) {
      self = .builtIn(builtIn)
      return
    }
    let looksLikePath =
      argument.contains("/") || argument.contains(".")
      || FileManager.default.fileExists(atPath: argument)
    guard looksLikePath, !argument.isEmpty else { throw .unknownCatalog(argument) }
    self = .file(URL(fileURLWithPath: argument))
  }

  /// The file that holds the catalog.
  public func url(dataDirectory: URL) -> URL {
    switch self {
    case .builtIn(let catalog): dataDirectory.appendingPathComponent("\(catalog.rawValue).sqlite")
    case .file(let url): url
    }
  }

  /// Opens the catalog. A built-in catalog is copied from the shipped data into the data folder
  /// on first use, so edits persist and the shipped data never changes.
  public func open(
    dataDirectory: URL = DataDirectory.resolve(), concurrentReads: Bool = false
  ) throws(StoreError) -> CatalogStore {
    let url = url(dataDirectory: dataDirectory)
    if case .builtIn(let catalog) = self, !FileManager.default.fileExists(atPath: url.path) {
      let document: CatalogDocument
      do {
        document = try catalog.load()
      } catch {
        throw .database(url.path, message: "\(error)")
      }
      do {
        let created = try CatalogStore.create(at: url, document: document)
        guard concurrentReads else { return created }
        try created.close()
      } catch .alreadyExists {
        // Another sift created it meanwhile: use theirs.
      }
    }
    return try CatalogStore.open(at: url, concurrentReads: concurrentReads)
  }

  public var description: String {
    switch self {
    case .builtIn(let catalog): catalog.rawValue
    case .file(let url): url.path
    }
  }
}

public enum CatalogLocationError: Error, Hashable, Sendable, CustomStringConvertible {
  case unknownCatalog(String)

  public var description: String {
    switch self {
    case .unknownCatalog(let name):
      let names = BuiltInCatalog.allCases.map(\.rawValue).joined(separator: ", ")
      return
        "unknown catalog \"\(name)\": use a built-in catalog (\(names)) or the path of a .sqlite file"
    }
  }
}
