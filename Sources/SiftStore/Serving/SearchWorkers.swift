import Foundation
import Sift

/// The threads that run searches, one per core, taking them in the order they came.
///
/// A search is one long stretch of work with no await in it. Run on Swift's shared pool, the
/// searches of 16 connections on 2 cores did not finish in the order they came: the mean
/// request took 20 ms but one in a hundred 150–200 ms, while none took more than 17 ms of work.
/// Here a search waits only for those that came before it.
final class SearchWorkers: @unchecked Sendable {
  // `@unchecked`: `waiting`, `next` and `givenCount` are touched only while `condition` is
  // locked.
  private let condition = NSCondition()
  private var waiting: [@Sendable () -> Void] = []
  private var next = 0
  /// Jobs ever given (tests wait on it to know a job is queued).
  private var givenCount = 0
  /// How many jobs were ever given: a test waits on it to know a job is queued.
  var given: Int { condition.withLock { givenCount } }

  static let shared = SearchWorkers(threads: ProcessInfo.processInfo.activeProcessorCount)

  init(threads: Int) {
    for index in 0..<max(1, threads) {
      let thread = Thread { [unowned self] in self.work() }
      thread.name = "sift search \(index + 1)"
      thread.start()
    }
  }

  /// `body`'s result, computed on one of the threads in turn.
  func run<Result: Sendable>(
    _ body: @escaping @Sendable () throws(CatalogFailure) -> Result
  ) async throws(CatalogFailure) -> Result {
    let outcome = await withCheckedContinuation { continuation in
      condition.withLock {
        waiting.append {
          continuation.resume(returning: Swift.Result { () throws(CatalogFailure) in try body() })
        }
        givenCount += 1
        condition.signal()
      }
    }
    return try outcome.get()
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
