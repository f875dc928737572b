import Foundation
import Sift

/// What a command is waiting for, on standard error: one line rewritten in place as the work
/// moves on ("sift: reading catalog products from PostgreSQL…"), shown on a terminal only and
/// only once the wait has lasted a second — a quick command prints nothing — then taken away
/// before the command's own output.
final class StatusLine: Sendable {
  private struct State {
    var text: String?
    /// Past the delay: each new text is written at once.
    var revealed = false
    /// Something is on the line now.
    var shown = false
    var finished = false
  }

  private let state = Locked(State())
  private let enabled: Bool

  init(enabled: Bool = StandardStreams.isErrorTerminal, after delay: Duration = .seconds(1)) {
    self.enabled = enabled
    guard enabled else { return }
    Task { [weak self] in
      try? await Task.sleep(for: delay)
      self?.reveal()
    }
  }

  /// Says that the command now does `text`.
  func show(_ text: String) {
    guard enabled else { return }
    let write = state.withLock { state -> Bool in
      guard !state.finished else { return false }
      state.text = text
      if state.revealed { state.shown = true }
      return state.revealed
    }
    if write { Self.write(text) }
  }

  /// Takes the line away; nothing is shown after.
  func clear() {
    guard enabled else { return }
    let shown = state.withLock { state -> Bool in
      state.finished = true
      return state.shown
    }
    if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
  }

  private func reveal() {
    let text = state.withLock { state -> String? in
      guard !state.finished else { return nil }
      state.revealed = true
      if state.text != nil { state.shown = true }
      return state.text
    }
    if let text { Self.write(text) }
  }

  private static func write(_ text: String) {
    FileHandle.standardError.write(Data("\r\u{1B}[Ksift: \(text)…".utf8))
  }
}
