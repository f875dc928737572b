#if Server
import Sift
import SiftStore

/// Runs async work one piece at a time, in the order it came: what keeps a node's changes in
/// version order when the follower and the node's own edits both apply them. (An actor would
/// let a second piece start while the first awaits.)
final class SerialGate: Sendable {
  /// The last piece queued: the next one starts when it ends.
  private let tail = Locked<Task<Void, Never>?>(nil)

  /// Runs `work` after every piece queued before it, and returns what it returns.
  func run<Value: Sendable>(_ work: @escaping @Sendable () async -> Value) async -> Value {
    let task = tail.withLock { tail -> Task<Value, Never> in
      let previous = tail
      let task = Task {
        await previous?.value
        return await work()
      }
      tail = Task { _ = await task.value }
      return task
    }
    return await task.value
  }
}
#endif
