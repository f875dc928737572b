import Foundation

#if os(Linux)
import Synchronization
#endif

/// A value behind a lock, read and changed only inside `withLock`: the package's one lock. The
/// lock is `Synchronization.Mutex` where the platforms the package declares have it (Linux; on
/// Apple's platforms Mutex needs macOS 15 / iOS 18, so there it is an `NSLock`).
package final class Locked<Value>: @unchecked Sendable {
  // `@unchecked`: `value` is touched only while the lock is held.
  #if os(Linux)
  private let lock = Mutex(())
  #else
  private let lock = NSLock()
  #endif
  private var value: Value

  package init(_ value: Value) { self.value = value }

  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    #if os(Linux)
    // The value is reached only through this lock (what `@unchecked` vouches for): Mutex's own
    // region checks, made for a value it holds, are not asked to see that.
    nonisolated(unsafe) var result: Result?
    try withoutActuallyEscaping(body) { body in
      nonisolated(unsafe) let body = body
      try lock.withLock { _ in result = try body(&value) }
    }
    return result!
    #else
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
    #endif
  }
}
