/// The version of Sift this library was built from: the newest entry of CHANGELOG.md.
///
/// `sift --version` prints it, and the server's API document carries it, so a report of a
/// problem can name the build it came from.
public enum SiftVersion {
  /// Semantic version, `MAJOR.MINOR.PATCH`.
  public static let current = "0.5.0"
}
