import Foundation

/// A request that the search running on a thread stop: a server whose deadline passed answers
/// 503 and gives the search's thread back, rather than leave it ranking for a client that has
/// gone. A search is one stretch of work with no await in it, so it looks at its stop between
/// its steps (each alternative matched or ranked, each round of ranking more rows); once stopped
/// its rows are not whole, and its caller drops them (`isRequested` tells it). A single match
/// of one term runs to its end.
package final class SearchStop: Sendable {
  private let requested = Locked(false)

  package init() {}

  /// Asks the search to stop at its next step.
  package func request() { requested.withLock { $0 = true } }

  package var isRequested: Bool { requested.withLock { $0 } }

  /// Runs `body` with `self` as the stop of the search on this thread.
  package func running<Result, Failure: Error>(
    _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let previous = pthread_getspecific(Self.key)
    pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
    defer { pthread_setspecific(Self.key, previous) }
    return try body()
  }

  /// Whether the search running on this thread was asked to stop (false outside `running`).
  package static var shouldStop: Bool {
    guard let current = pthread_getspecific(key) else { return false }
    return Unmanaged<SearchStop>.fromOpaque(current).takeUnretainedValue().isRequested
  }

  /// The thread's current stop, one key for the process.
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
  }()
}
