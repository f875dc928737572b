import CHeapUsage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `sift bench` reads of the process's memory.
enum ProcessMemory {
  /// The bytes the allocator has handed out and not had back: small blocks in its arenas plus
  /// the large ones it maps on their own (big buffers are mapped, so both are needed). nil where
  /// the C library does not say (only glibc's `mallinfo2` is read).
  static func heapInUse() -> Int? {
    let bytes = sift_heap_in_use()
    return bytes < 0 ? nil : Int(bytes)
  }

  /// The most memory the process has held, in MB (`ru_maxrss` is KiB on Linux, bytes on macOS).
  static func peakResidentMegabytes() -> Double {
    var usage = rusage()
    #if canImport(Darwin)
    getrusage(RUSAGE_SELF, &usage)
    return Double(usage.ru_maxrss) / 1_048_576
    #else
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
    #endif
  }
}
