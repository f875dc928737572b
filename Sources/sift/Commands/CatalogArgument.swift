import Foundation
import SiftStore

/// A `--catalog` argument, read once into where the catalog is — a built-in catalog or a .sqlite
/// file (`CatalogLocation`), or a catalog in PostgreSQL, opened through a node in a build with
/// the Server trait (`OpenedCatalog`) — and opened from there. Commands switch on `place`; none
/// looks at the text again.
struct CatalogArgument {
  enum Place {
    case local(CatalogLocation)
    /// A `postgres://` or `postgresql://` address, `?catalog=NAME` naming the catalog.
    case postgres(address: String)
  }

  /// The argument as given, for messages.
  let text: String
  let place: Place

  /// Reads `text`; an unknown name is a usage error (exit 2) saying what it may be.
  init(_ text: String) throws {
    self.text = text
    if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
      place = .postgres(address: text)
      return
    }
    do {
      place = .local(try CatalogLocation(text))
    } catch {
      throw Failure.exit(error.description, status: 2)
    }
  }

  /// The name it is served under: a built-in catalog's name, a file's name without its folder
  /// and `.sqlite`, a PostgreSQL catalog's `?catalog=` name.
  func servedName() throws -> String {
    switch place {
    case .local(.builtIn(let catalog)): return catalog.rawValue
    case .local(.file(let url)):
      let file = url.lastPathComponent
      return file.hasSuffix(".sqlite") ? String(file.dropLast(".sqlite".count)) : file
    case .postgres(let address): return try PostgresCatalogs.name(of: address)
    }
  }

  /// The store of a built-in catalog or a .sqlite file; a PostgreSQL catalog is opened through
  /// a node instead (`OpenedCatalog`), and asking for its file is a usage error.
  func openStore(concurrentReads: Bool = false) throws -> CatalogStore {
    guard case .local(let location) = place else {
      throw Failure.exit("\(text): a catalog in PostgreSQL has no file to open", status: 2)
    }
    do {
      return try location.open(concurrentReads: concurrentReads)
    } catch {
      switch error {
      case .notFound(let path):
        throw Failure.exit("unknown catalog \"\(text)\": no file at \(path)", status: 2)
      case .isFolder, .notSQLite, .notACatalog, .newerFormat:
        throw Failure.exit(error.description, status: 2)
      default:
        throw Failure.exit(error.description, status: 1)
      }
    }
  }
}
