import Foundation

/// Why a sync did not finish. The local catalog is as it was before the sync began.
public enum SyncError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The URL is not `http(s)://HOST[:PORT]/catalogs/NAME`.
  case invalidURL(String)
  /// The server could not be reached, or the connection was cut off.
  case unreachable(String)
  /// The server refused the key or token, or it may not read this catalog (401 or 403).
  case unauthorized(String)
  /// The server has no catalog of that name.
  case notFound(String)
  /// What answered is not a Sift server (or not one that has a change feed).
  case notSift(String)
  /// The local file is not a copy of this catalog (another catalog, or one not made by a sync).
  case otherCatalog(String)
  /// The server answered with an error of its own (a 5xx, a 400).
  case server(String)
  /// The local file could not be read or written.
  case local(String)
  /// The task was cancelled (Ctrl-C).
  case cancelled

  public var description: String {
    switch self {
    case .invalidURL(let message), .unreachable(let message), .unauthorized(let message),
      .notFound(let message), .notSift(let message), .otherCatalog(let message),
      .server(let message), .local(let message):
      message
    case .cancelled: "cancelled"
    }
  }

  /// The exit status `sift sync` ends with: 2 for what the command line named wrong (the URL,
  /// the local file), 3 unreachable, 4 not allowed, 5 not a Sift server or no such catalog,
  /// 1 for the server's own errors and the local file, 130 interrupted.
  public var exitStatus: Int32 {
    switch self {
    case .invalidURL, .otherCatalog: 2
    case .unreachable: 3
    case .unauthorized: 4
    case .notSift, .notFound: 5
    case .server, .local: 1
    case .cancelled: 130
    }
  }
}
