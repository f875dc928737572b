import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A text file named on the command line, read whole from whatever it is: a regular file, a
/// pipe, `/dev/stdin`, a shell's process substitution (`<(printf …)`), or `-` for standard
/// input. Foundation's `String(contentsOfFile:)` refuses what has no size; this reads until the
/// end and, when it cannot, says why in the system's words.
enum TextFileReader {
  /// The text of `path`; `what` names it in the error ("the queries file").
  static func text(of path: String, what: String) throws(ExitCode) -> String {
    let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY)
    guard descriptor >= 0 else { throw cannotRead(path, what, errno) }
    defer { if descriptor != STDIN_FILENO { close(descriptor) } }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count == 0 { break }
      if count < 0 {
        if errno == EINTR { continue }
        throw cannotRead(path, what, errno)
      }
      bytes += chunk[..<count]
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw Failure.exit("cannot read \(what) \(path): it is not UTF-8 text", status: 2)
    }
    return text
  }

  private static func cannotRead(_ path: String, _ what: String, _ code: Int32) -> ExitCode {
    Failure.exit("cannot read \(what) \(path): \(String(cString: strerror(code)))", status: 2)
  }
}
