import Foundation

/// A value behind a lock, read and changed only inside `withLock`: what `Synchronization.Mutex`
/// gives, on the platforms the package declares (Mutex needs macOS 15 / iOS 18).
package final class Locked<Value>: @unchecked Sendable {
  // `@unchecked`: `value` is touched only while `lock` is held.
  private let lock = NSLock()
  private var value: Value

  package init(_ value: Value) { self.value = value }

  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
