#if Server
import Dispatch

/// Runs async work from the terminal app and waits for it: the one bridge between the app —
/// whose input loop runs on a thread of its own and saves each edit before showing it — and
/// the PostgreSQL client, which is async. The other commands are async. Never call it from a
/// task: it blocks the thread.
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

/// The result `waiting` hands from the task to the waiting thread. `@unchecked`: the task
/// writes it once before it signals, and the thread reads it only after the signal.
private final class WaitedResult<Value: Sendable, Failure: Error>: @unchecked Sendable {
  var result: Result<Value, Failure>?
}
#endif
