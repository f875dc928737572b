import Foundation
import SiftStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Buffered writes to stdout and stderr, and whether each is a terminal.
enum StandardStreams {
  static var isErrorTerminal: Bool { isatty(STDERR_FILENO) == 1 }
  static var isOutputTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
  static var isInputTerminal: Bool { isatty(STDIN_FILENO) == 1 }

  static func error(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }

  /// Collects output and writes it in large blocks: a million lines are one write each 64 KiB.
  final class Output {
    private var buffer: [UInt8] = []

    init() { buffer.reserveCapacity(1 << 16) }

    func write(_ text: String) {
      buffer.append(contentsOf: text.utf8)
      if buffer.count >= 1 << 16 { flush() }
    }

    func write(bytes: some Collection<UInt8>) {
      buffer.append(contentsOf: bytes)
      if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
      guard !buffer.isEmpty else { return }
      buffer.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
          let written = Foundation.write(
            STDOUT_FILENO, raw.baseAddress! + offset, raw.count - offset)
          if written <= 0 {
            if written < 0 && errno == EINTR { continue }
            return  // stdout closed (a pipe into `head`): stop quietly
          }
          offset += written
        }
      }
      buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
  }
}

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
struct ProgressBar {
  let label: String
  private let enabled = StandardStreams.isErrorTerminal
  private var lastPercent = -1
  private var lastPhase: ImportProgress.Phase?
  private let started = ContinuousClock.now
  private var phaseStarted = ContinuousClock.now

  init(label: String) { self.label = label }

  /// The bar, then the import's items, their rate and the time left
  /// (`ImportProgress.summary`); redrawn when the percentage or the phase changes.
  mutating func update(_ progress: ImportProgress) {
    guard enabled else { return }
    let now = ContinuousClock.now
    if progress.phase != lastPhase {
      lastPhase = progress.phase
      phaseStarted = now
      lastPercent = -1
    }
    guard progress.percent != lastPercent else { return }
    lastPercent = progress.percent
    draw(
      percent: progress.percent,
      progress.summary(
        elapsed: Self.seconds(now - started), inPhase: Self.seconds(now - phaseStarted)))
  }

  private func draw(percent: Int, _ text: String) {
    let width = 30
    let filled = width * percent / 100
    let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    // Erased to the end of the line: a shorter line leaves nothing of a longer one.
    FileHandle.standardError.write(Data("\r\(label) \(bar) \(text)\u{1B}[K".utf8))
  }

  private static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  func finish() {
    guard enabled, lastPercent >= 0 else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
  }
}
