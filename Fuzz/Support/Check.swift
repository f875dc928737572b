#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `precondition` that prints its message in optimized builds too, then aborts so libFuzzer
/// saves the input as a finding.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  guard !condition else { return }
  fputs("fuzz check failed: \(message())\n", stderr)
  abort()
}
