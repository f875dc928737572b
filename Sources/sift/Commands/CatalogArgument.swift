import ArgumentParser
import Foundation
import SiftStore

/// A catalog named on the command line, read once into where it is — a built-in catalog or a
/// .sqlite file (`CatalogLocation`), a catalog in PostgreSQL (opened through a node in a build
/// with the Server trait, `OpenedCatalog`), or a catalog a Sift server serves (what `sift sync`
/// copies) — and opened from there. Commands switch on `place`; none looks at the text again.
struct CatalogArgument {
  enum Place {
    case local(CatalogLocation)
    /// A `postgres://` or `postgresql://` address, `?catalog=NAME` naming the catalog.
    case postgres(address: String)
    /// An `http://` or `https://` address of a catalog on a Sift server.
    case server(URL)
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
    if let url = try Self.serverURL(text) {
      place = .server(url)
      return
    }
    do {
      place = .local(try CatalogLocation(text))
    } catch {
      throw Failure.exit(error.description, status: 2)
    }
  }

  /// The address of a catalog on a Sift server, when `text` is an `http://` or `https://` one;
  /// nil for anything else.
  static func serverURL(_ text: String) throws -> URL? {
    guard text.hasPrefix("http://") || text.hasPrefix("https://") else { return nil }
    guard let url = URL(string: text) else {
      throw Failure.exit("\(text): not a URL (http(s)://HOST[:PORT]/catalogs/NAME)", status: 2)
    }
    return url
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
    case .server: throw served
    }
  }

  /// What a command that opens a catalog says of one on a server.
  var served: Error {
    Failure.exit(
      "\(text) is a catalog on a Sift server: copy it with sift sync \(text) --catalog FILE.sqlite, then search the copy",
      status: 2)
  }

  /// The store of a built-in catalog or a .sqlite file; a PostgreSQL catalog is opened through
  /// a node instead (`OpenedCatalog`), and asking for its file is a usage error.
  func openStore(concurrentReads: Bool = false) throws -> CatalogStore {
    let location: CatalogLocation
    switch place {
    case .local(let local): location = local
    case .postgres:
      throw Failure.exit("\(text): a catalog in PostgreSQL has no file to open", status: 2)
    case .server: throw served
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

/// `--catalog` for a command on one catalog of any kind: `sift synonyms`, `sift export`.
struct CatalogOption: ParsableArguments {
  @Option(
    help:
      "A built-in catalog (products, candies, media, meals), a .sqlite file or postgresql://[USER@]HOST[:PORT]/DB?catalog=NAME."
  )
  var catalog: String
}
