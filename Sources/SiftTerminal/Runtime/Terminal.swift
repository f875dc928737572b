import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The controlling terminal in raw mode on the alternate screen, restored on every way out:
/// `restore()` on a normal exit or an error, signal handlers for SIGTERM, SIGINT and SIGHUP
/// (graceful, through the app's loop) and for crashes (SIGSEGV, SIGABRT, SIGILL, SIGTRAP,
/// SIGBUS, SIGFPE: restore, then die as the signal demands).
final class Terminal {
  let input: Int32 = STDIN_FILENO
  let output: Int32 = STDOUT_FILENO

  init() throws(TerminalError) {
    guard isatty(input) == 1, isatty(output) == 1 else { throw .notATerminal }
    var original = termios()
    guard tcgetattr(input, &original) == 0 else { throw .notATerminal }
    TerminalRestoration.original = original
    TerminalRestoration.isActive = true
    var raw = original
    // No echo, no line editing, no signals from keys (Ctrl-C, Ctrl-Q arrive as keys), no CR
    // translation; output processing stays on.
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
    raw.c_cflag |= tcflag_t(CS8)
    withUnsafeMutableBytes(of: &raw.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    tcsetattr(input, TCSAFLUSH, &raw)
    TerminalRestoration.installCrashHandlers()
    write("\u{1B}[?1049h\u{1B}[H\u{1B}[2J")
  }

  /// The window size; `COLUMNS`/`LINES` when the terminal does not say.
  var size: (width: Int, height: Int) {
    var window = winsize()
    if ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 {
      return (Int(window.ws_col), Int(window.ws_row))
    }
    let environment = ProcessInfo.processInfo.environment
    return (
      environment["COLUMNS"].flatMap(Int.init) ?? 80, environment["LINES"].flatMap(Int.init) ?? 24
    )
  }

  func write(_ text: String) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes {
        Foundation.write(output, $0.baseAddress! + offset, $0.count - offset)
      }
      if written < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        return
      }
      offset += written
    }
  }

  /// Leaves the alternate screen and puts the terminal back as it was. Safe to call twice.
  func restore() {
    TerminalRestoration.restore()
  }

  deinit { restore() }
}

public enum TerminalError: Error, CustomStringConvertible {
  case notATerminal

  public var description: String {
    "the terminal app needs a terminal on stdin and stdout; for scripts use `sift search` or `sift filter`"
  }
}

/// What the signal handlers need, kept where a C handler can reach it without allocating.
enum TerminalRestoration {
  // Written once before the handlers are installed, read by them and by restore().
  nonisolated(unsafe) static var original = termios()
  nonisolated(unsafe) static var isActive = false

  /// Show the cursor, reset styles, leave the alternate screen.
  static let resetSequence: [UInt8] = Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8)

  static func restore() {
    guard isActive else { return }
    isActive = false
    resetSequence.withUnsafeBytes { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
  }

  static func installCrashHandlers() {
    for signal in [SIGSEGV, SIGABRT, SIGILL, SIGTRAP, SIGBUS, SIGFPE] {
      _ = installSignalHandler(signal) { number in
        // Only async-signal-safe calls: write and tcsetattr, then die of the same signal.
        TerminalRestoration.restore()
        _ = installSignalHandler(number, SIG_DFL)
        raise(number)
      }
    }
  }
}

/// Installs a C signal handler.
@discardableResult
func installSignalHandler(
  _ number: Int32, _ handler: (@convention(c) (Int32) -> Void)?
) -> (@convention(c) (Int32) -> Void)? {
  signal(number, handler)
}
