/// Why an import failed, with the place: `FILE:LINE: reason`. A failed import changes nothing.
public struct ImportError: Error, Hashable, Sendable, CustomStringConvertible {
  public var file: String
  /// 1-based; 0 when the problem is the file as a whole.
  public var line: Int
  public var reason: String

  public init(file: String, line: Int, reason: String) {
    self.file = file
    self.line = line
    self.reason = reason
  }

  public var description: String {
    line > 0 ? "\(file):\(line): \(reason)" : "\(file): \(reason)"
  }
}

/// Why an import did not happen; in both cases the catalog is as it was.
public enum ImportFailure: Error, Hashable, Sendable, CustomStringConvertible {
  /// The file: unreadable, or a record that does not fit (`FILE:LINE: reason`).
  case file(ImportError)
  /// The catalog: not a catalog, a schema that does not fit, a failed write.
  case catalog(StoreError)

  public var description: String {
    switch self {
    case .file(let error): error.description
    case .catalog(let error): error.description
    }
  }
}
