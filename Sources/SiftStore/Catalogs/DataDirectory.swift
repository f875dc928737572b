import Foundation

/// Where Sift keeps writable catalogs and saved search state: `SIFT_DATA_DIR`, else
/// `$XDG_DATA_HOME/sift`, else `~/.local/share/sift` (docs/command-line.md).
public enum DataDirectory {
  /// The folder for this environment; empty variables count as unset.
  public static func resolve(environment: [String: String] = ProcessInfo.processInfo.environment)
    -> URL
  {
    if let explicit = environment["SIFT_DATA_DIR"], !explicit.isEmpty {
      return URL(fileURLWithPath: explicit, isDirectory: true)
    }
    if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
      return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("sift")
    }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    return URL(fileURLWithPath: home, isDirectory: true)
      .appendingPathComponent(".local/share/sift", isDirectory: true)
  }
}
