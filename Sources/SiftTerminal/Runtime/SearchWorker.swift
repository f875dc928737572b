import Foundation
import Sift

/// Runs the app's searches on the package's search threads (`SearchWorkers`), so typing never
/// waits for a scan. Only the newest request matters: one that arrives while another runs
/// replaces any still waiting, and the app drops a result that no longer answers its state.
final class SearchWorker: Sendable {
  private struct State {
    var job: SearchJob<ItemID>?
    var answer: SearchAnswer<ItemID>?
    /// Whether a turn on the threads is queued or running: one at a time, so answers come in
    /// the order jobs were given.
    var isRunning = false
    var stopped = false
  }

  private let state = Locked(State())
  private let onResult: @Sendable () -> Void
  private let workers: SearchWorkers

  /// `onResult` is called on a search thread when a result is ready to `take()`.
  init(workers: SearchWorkers = .shared, onResult: @escaping @Sendable () -> Void) {
    self.workers = workers
    self.onResult = onResult
  }

  func submit(_ job: SearchJob<ItemID>) {
    let starts = state.withLock { state -> Bool in
      state.job = job
      guard !state.isRunning, !state.stopped else { return false }
      state.isRunning = true
      return true
    }
    if starts { workers.enqueue { [self] in runJobs() } }
  }

  /// The newest finished answer, if any.
  func take() -> SearchAnswer<ItemID>? {
    state.withLock { state in
      defer { state.answer = nil }
      return state.answer
    }
  }

  func stop() {
    state.withLock { state in
      state.stopped = true
      state.job = nil
    }
  }

  /// Runs the newest job until none is left.
  private func runJobs() {
    while let next = state.withLock({ state -> SearchJob<ItemID>? in
      guard !state.stopped, let job = state.job else {
        state.isRunning = false
        return nil
      }
      state.job = nil
      return job
    }) {
      let found = next.run()
      state.withLock { $0.answer = found }
      onResult()
    }
  }
}
