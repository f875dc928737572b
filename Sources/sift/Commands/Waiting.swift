#if Server
import Dispatch

/// Runs async work from a synchronous command and waits for it: the one bridge between the
/// command line — whose commands, and the terminal app's input loop, run on threads of their
/// own — and the PostgreSQL client, which is async. Never call it from a task: it blocks the
/// thread.
func waiting<Value: Sendable, Failure: Error>(
  _ body: @escaping @Sendable () async throws(Failure) -> Value
) throws(Failure) -> Value {
  let done = DispatchSemaphore(value: 0)
  let box = WaitedResult<Value, Failure>()
  Task {
    do throws(Failure) {
      box.result = .success(try await body())
    } catch {
      box.result = .failure(error)
    }
    done.signal()
  }
  done.wait()
  return try box.result!.get()
}

/// The result `waiting` hands from the task to the waiting thread, which reads it only after
/// the task signalled.
private final class WaitedResult<Value: Sendable, Failure: Error>: @unchecked Sendable {
  var result: Result<Value, Failure>?
}
#endif
