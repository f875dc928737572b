import Foundation
import Sift

/// Runs searches on a thread of its own so typing never waits for a scan. Only the newest
/// request matters: one that arrives while another runs replaces any still waiting, and the
/// app drops a result that no longer answers its state.
final class SearchWorker: @unchecked Sendable {
  // `@unchecked`: every stored property below is read and written under `condition`.
  private let condition = NSCondition()
  private var job: SearchJob<ItemID>?
  private var answer: SearchAnswer<ItemID>?
  private var stopped = false
  private let onResult: @Sendable () -> Void

  /// `onResult` is called on the worker's thread when a result is ready to `take()`.
  init(onResult: @escaping @Sendable () -> Void) {
    self.onResult = onResult
    let thread = Thread { [self] in run() }
    thread.name = "sift.search"
    thread.start()
  }

  func submit(_ job: SearchJob<ItemID>) {
    condition.lock()
    self.job = job
    condition.signal()
    condition.unlock()
  }

  /// The newest finished answer, if any.
  func take() -> SearchAnswer<ItemID>? {
    condition.lock()
    defer { condition.unlock() }
    let taken = answer
    answer = nil
    return taken
  }

  func stop() {
    condition.lock()
    stopped = true
    condition.signal()
    condition.unlock()
  }

  private func run() {
    while true {
      condition.lock()
      while job == nil && !stopped { condition.wait() }
      if stopped {
        condition.unlock()
        return
      }
      let next = job!
      job = nil
      condition.unlock()

      let found = next.run()

      condition.lock()
      answer = found
      condition.unlock()
      onResult()
    }
  }
}
