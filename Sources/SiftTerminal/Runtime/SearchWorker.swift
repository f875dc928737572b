import Foundation
import Sift

/// Runs searches on a thread of its own so typing never waits for a scan. Only the newest
/// request matters: one that arrives while another runs replaces any still waiting, and the
/// app drops a result that no longer answers its state.
final class SearchWorker: @unchecked Sendable {
  // `@unchecked`: every stored property below is read and written under `condition`.
  private let condition = NSCondition()
  private var request: (collection: FilteredCollection, criteria: SearchCriteria)?
  private var result: FilteredCollection?
  private var stopped = false
  private let onResult: @Sendable () -> Void

  /// `onResult` is called on the worker's thread when a result is ready to `take()`.
  init(onResult: @escaping @Sendable () -> Void) {
    self.onResult = onResult
    let thread = Thread { [self] in run() }
    thread.name = "sift.search"
    thread.start()
  }

  func submit(_ collection: FilteredCollection, _ criteria: SearchCriteria) {
    condition.lock()
    request = (collection, criteria)
    condition.signal()
    condition.unlock()
  }

  /// The newest finished result, if any.
  func take() -> FilteredCollection? {
    condition.lock()
    defer { condition.unlock() }
    let taken = result
    result = nil
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
      while request == nil && !stopped { condition.wait() }
      if stopped {
        condition.unlock()
        return
      }
      var (collection, criteria) = request!
      request = nil
      condition.unlock()

      collection.filter(by: criteria)

      condition.lock()
      result = collection
      condition.unlock()
      onResult()
    }
  }
}
