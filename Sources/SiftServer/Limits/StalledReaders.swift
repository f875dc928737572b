#if Server
import Hummingbird
import Sift

/// A streamed answer's writes, watched: a reader that stops reading leaves a write waiting for
/// ever (the connection is busy, so no idle timeout closes it), and a hundred such readers hold
/// a hundred connections and their buffers. When no write has gone through for the stall
/// timeout, the writing is cancelled and the answer ends in an error, which closes the
/// connection.
enum StalledReaders {
  /// What ended a stalled answer.
  struct Stalled: Error, CustomStringConvertible {
    var timeout: Duration
    var description: String { "the reader took nothing for \(timeout): the answer was cut off" }
  }

  /// Runs `body`, which writes through the function it is given, and cuts it off once a write
  /// has waited `timeout` without going through.
  static func writing(
    to writer: any ResponseBodyWriter, cutAfter timeout: Duration,
    _ body:
      @escaping @Sendable (_ write: @Sendable (ByteBuffer) async throws -> Void) async throws
      -> Void
  ) async throws {
    // The writer is used by one task at a time: the body's, while the watchdog only reads the
    // clock (`nonisolated(unsafe)`: it crosses into the body's task, and nowhere else).
    nonisolated(unsafe) var output = writer
    let lastProgress = Locked(ContinuousClock.now)
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask {
        try await body { buffer in
          try await output.write(buffer)
          lastProgress.withLock { $0 = .now }
        }
      }
      group.addTask {
        let check = min(timeout / 4, .seconds(1))
        while true {
          try await Task.sleep(for: check)
          if lastProgress.withLock({ ContinuousClock.now - $0 }) > timeout {
            throw Stalled(timeout: timeout)
          }
        }
      }
      defer { group.cancelAll() }
      // The first to end: the body, done (the watchdog is then cancelled), or the watchdog,
      // which cancels the waiting write.
      try await group.next()
    }
  }
}
#endif
