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
