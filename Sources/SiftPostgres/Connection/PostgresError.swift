#if Server
import Foundation

/// What can go wrong with a catalog in PostgreSQL; each message names the place.
public enum PostgresError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The address itself is wrong (a usage error).
  case address(String, String)
  /// The server cannot be reached or refused the connection.
  case unavailable(String, message: String)
  /// No catalog of that name in the database.
  case notFound(String)
  /// The catalog was written by a newer Sift.
  case newerFormat(String, found: Int, supported: Int)
  /// The database cannot hold Sift's text: not UTF-8, or pg_trgm missing and not creatable.
  case unsuitable(String, reason: String)
  /// A statement failed.
  case query(String, message: String)
  /// Something this store does not do (yet).
  case unsupported(String)
  /// The connection was lost while a transaction was being committed: it may have been
  /// applied or not, and only reading it back can tell.
  case outcomeUnknown(String, message: String)

  public var description: String {
    switch self {
    case .address(let argument, let reason): "bad PostgreSQL address \"\(argument)\": \(reason)"
    case .unavailable(let address, let message):
      "cannot reach PostgreSQL at \(address): \(message)"
    case .notFound(let address):
      "no catalog at \(address): import one first (sift import FILE --catalog \(address) --title FIELD)"
    case .newerFormat(let address, let found, let supported):
      "catalog \(address) has format \(found), written by a newer Sift; this one reads formats up to \(supported)"
    case .unsuitable(let address, let reason): "catalog \(address): \(reason)"
    case .query(let address, let message): "catalog \(address): \(message)"
    case .unsupported(let what): what
    case .outcomeUnknown(let address, let message):
      "PostgreSQL at \(address) was lost while committing (\(message))"
    }
  }

  /// Whether the server was out of reach (HTTP 503), rather than the request being wrong.
  public var isUnavailable: Bool {
    switch self {
    case .unavailable, .outcomeUnknown: true
    default: false
    }
  }
}
#endif
