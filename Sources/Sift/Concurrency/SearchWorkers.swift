import Foundation

/// The threads that run searches, one per core, taking them in the order they came: the one
/// pool of the package (a served catalog's searches and reads, the terminal app's searches).
///
/// A search is one long stretch of work with no await in it. Run on Swift's shared pool, the
/// searches of 16 connections on 2 cores did not finish in the order they came: the mean
/// request took 20 ms but one in a hundred 150–200 ms, while none took more than 17 ms of work.
/// Here a search waits only for those that came before it.
package final class SearchWorkers: @unchecked Sendable {
  // `@unchecked`: `waiting`, `next` and `givenCount` are touched only while `condition` is
  // locked — a condition rather than `Locked`, because the threads sleep on it.
  private let condition = NSCondition()
  private var waiting: [@Sendable () -> Void] = []
  private var next = 0
  /// Jobs ever given (tests wait on it to know a job is queued).
  private var givenCount = 0
  /// How many jobs were ever given: a test waits on it to know a job is queued.
  package var given: Int { condition.withLock { givenCount } }

  package static let shared = SearchWorkers(threads: ProcessInfo.processInfo.activeProcessorCount)

  package init(threads: Int) {
    for index in 0..<max(1, threads) {
      let thread = Thread { [unowned self] in self.work() }
      thread.name = "sift search \(index + 1)"
      thread.start()
    }
  }

  /// `body`'s result, computed on one of the threads in turn.
  package func run<Result: Sendable, Failure: Error>(
    _ body: @escaping @Sendable () throws(Failure) -> Result
  ) async throws(Failure) -> Result {
    let outcome = await withCheckedContinuation { continuation in
      enqueue {
        continuation.resume(returning: Swift.Result { () throws(Failure) in try body() })
      }
    }
    return try outcome.get()
  }

  /// Runs `job` on one of the threads in turn, without waiting for it.
  package func enqueue(_ job: @escaping @Sendable () -> Void) {
    condition.withLock {
      waiting.append(job)
      givenCount += 1
      condition.signal()
    }
  }

  private func work() {
    while true {
      let job = condition.withLock { () -> @Sendable () -> Void in
        while next == waiting.count { condition.wait() }
        let job = waiting[next]
        next += 1
        if next > 1024 {
          waiting.removeFirst(next)
          next = 0
        }
        return job
      }
      job()
    }
  }
}
