import Foundation

/// The threads that run searches, one per core, taking them in the order they came: the one
/// pool of the package (a served catalog's searches and reads, the terminal app's searches).
///
/// A search is one long stretch of work with no await in it. Run on Swift's shared pool, the
/// searches of 16 connections on 2 cores did not finish in the order they came: the mean
/// request took 20 ms but one in a hundred 150–200 ms, while none took more than 17 ms of work.
/// Here a search waits only for those that came before it.
///
/// The threads start with the first job and stop at `shutdown()` (a server that stops), once
/// the jobs given before are done; a job given after starts them again.
package final class SearchWorkers: @unchecked Sendable {
  // `@unchecked`: everything below is touched only while `condition` is locked — a condition
  // rather than `Locked`, because the threads sleep on it.
  private let condition = NSCondition()
  private var waiting: [@Sendable () -> Void] = []
  private var next = 0
  /// Jobs ever given (tests wait on it to know a job is queued).
  private var givenCount = 0
  /// How many threads to run, how many run now, and whether they are told to stop once the
  /// queue is empty.
  private let threads: Int
  private var running = 0
  private var stopping = false
  /// How many jobs were ever given: a test waits on it to know a job is queued.
  package var given: Int { condition.withLock { givenCount } }
  /// How many threads run now.
  package var runningThreads: Int { condition.withLock { running } }

  package static let shared = SearchWorkers(threads: ProcessInfo.processInfo.activeProcessorCount)

  package init(threads: Int) {
    self.threads = max(1, threads)
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
      // None running (never started, or stopped): start them; a shutdown in progress waits
      // for these too.
      if running == 0 {
        for index in 0..<threads {
          let thread = Thread { self.work() }
          thread.name = "sift search \(index + 1)"
          thread.start()
        }
        running = threads
      }
      waiting.append(job)
      givenCount += 1
      condition.signal()
    }
  }

  /// Lets the threads finish every job given so far, then stops them; returns once they have
  /// stopped. Blocks its caller: what a server does when it stops.
  package func shutdown() {
    condition.withLock {
      stopping = true
      condition.broadcast()
      while running > 0 { condition.wait() }
      stopping = false
    }
  }

  private func work() {
    while true {
      let job = condition.withLock { () -> (@Sendable () -> Void)? in
        while next == waiting.count {
          if stopping {
            running -= 1
            condition.broadcast()
            return nil
          }
          condition.wait()
        }
        let job = waiting[next]
        next += 1
        if next > 1024 {
          waiting.removeFirst(next)
          next = 0
        }
        return job
      }
      guard let job else { return }
      job()
    }
  }
}
