import Foundation
import Sift
import SiftStore

/// The records `sift import --skip-invalid` passed over: each `FILE:LINE: reason` written to a
/// file as it comes (the whole list), and the first few kept for standard error, which the
/// import prints once its progress bar is gone.
final class RejectedRecords: Sendable {
  /// How many are shown on standard error; the file has them all.
  static let shownCount = 10

  let file: URL
  private let state = Locked(State())

  private struct State {
    var handle: FileHandle?
    var count = 0
    var shown: [String] = []
    var failure: String?
  }

  init(file: URL) {
    self.file = file
  }

  /// How many records were passed over so far.
  var count: Int { state.withLock { $0.count } }

  /// Where the list goes by default: beside the catalog (`movies.sqlite` →
  /// `movies.rejected.txt`), or in the current folder for a catalog elsewhere.
  static func defaultFile(besideCatalog catalog: URL?, name: String) -> URL {
    guard let catalog else {
      return URL(fileURLWithPath: "\(name).rejected.txt")
    }
    return catalog.deletingPathExtension().appendingPathExtension("rejected.txt")
  }

  func add(_ error: ImportError) {
    state.withLock { state in
      state.count += 1
      if state.shown.count < Self.shownCount { state.shown.append(error.description) }
      guard state.failure == nil else { return }
      do {
        if state.handle == nil {
          _ = FileManager.default.createFile(atPath: file.path, contents: nil)
          state.handle = try FileHandle(forWritingTo: file)
        }
        try state.handle?.write(contentsOf: Data((error.description + "\n").utf8))
      } catch {
        state.failure = "cannot write \(file.path) (\(error.localizedDescription))"
      }
    }
  }

  /// The lines for standard error once the import is done: the first rejected records and
  /// where the whole list is. Empty when none was.
  func report() -> [String] {
    state.withLock { state in
      try? state.handle?.close()
      state.handle = nil
      guard state.count > 0 else { return [] }
      var lines = state.shown.map { "skipped \($0)" }
      if state.count > state.shown.count {
        lines.append("… and \(state.count - state.shown.count) more")
      }
      lines.append(
        state.failure.map { "The list of skipped records could not be written: \($0)" }
          ?? "Each skipped record's line and reason: \(file.path)")
      return lines
    }
  }
}
