import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// All of standard input as bytes. A regular file (`sift filter … < names.txt`) is mapped
/// rather than read: its pages come straight from the page cache instead of being copied into
/// fresh memory, which on this machine costs more than folding the text.
enum StandardInput {
  static func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows
    -> Result
  {
    var status = stat()
    if fstat(STDIN_FILENO, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0,
      let mapped = map(size: Int(status.st_size))
    {
      defer { munmap(mapped, Int(status.st_size)) }
      return try body(
        UnsafeBufferPointer(
          start: mapped.assumingMemoryBound(to: UInt8.self), count: Int(status.st_size)))
    }
    let data = FileHandle.standardInput.readDataToEndOfFile()
    return try data.withUnsafeBytes { try body($0.bindMemory(to: UInt8.self)) }
  }

  private static func map(size: Int) -> UnsafeMutableRawPointer? {
    #if canImport(Glibc)
    let flags = MAP_PRIVATE | MAP_POPULATE
    #else
    let flags = MAP_PRIVATE
    #endif
    let offset = lseek(STDIN_FILENO, 0, SEEK_CUR)
    guard offset == 0,
      let mapped = mmap(nil, size, PROT_READ, flags, STDIN_FILENO, 0), mapped != MAP_FAILED
    else { return nil }
    return mapped
  }
}
