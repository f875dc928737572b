import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the end-to-end tests need of the machine: shell commands, the tools `Scripts/setup-tests`
/// installs, free loopback ports and plain HTTP requests.
enum Host {
  struct Failure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
  }

  /// Throws, naming the Debian package, when the shell command `check` fails: tests install
  /// nothing themselves (`Scripts/setup-tests` does, and the README's test command runs it).
  static func require(package: String, check: String) throws {
    if shell(check).status == 0 { return }
    throw Failure(
      message:
        "\(package) is missing: Scripts/setup-tests installs it (the README's test command runs it)"
    )
  }

  @discardableResult
  static func shell(_ command: String) -> (status: Int32, output: String) {
    // posix_spawn and waitpid rather than Foundation's Process: a tmux server started here
    // keeps inherited descriptors open, and Process would wait for it to exit. Output goes
    // through a file for the same reason.
    let output = FileManager.default.temporaryDirectory
      .appendingPathComponent("sift-sh-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: output) }
    let script = "(\(command)) >'\(output.path)' 2>&1 </dev/null"
    var pid: pid_t = 0
    let words: [String] = ["/bin/sh", "-c", script]
    let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    defer { arguments.forEach { free($0) } }
    guard posix_spawn(&pid, "/bin/sh", nil, nil, arguments, environ) == 0 else {
      return (127, "cannot run /bin/sh")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let data = (try? Data(contentsOf: output)) ?? Data()
    let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return (exitStatus, String(decoding: data, as: UTF8.self))
  }

  /// A loopback port nobody listens on now: the kernel's pick for a socket bound to port 0.
  static func freePort() throws -> Int {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw Failure(message: "cannot open a socket: errno \(errno)") }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
      }
    }
    guard bound else { throw Failure(message: "cannot bind a loopback socket: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// One HTTP request, waited for: the status (0 when nothing answered) and the body.
  static func request(
    _ method: String, _ url: URL, body: Data? = nil, headers: [String: String] = [:],
    timeout: TimeInterval = 60
  ) throws -> (status: Int, body: Data) {
    var request = URLRequest(url: url, timeoutInterval: timeout)
    request.httpMethod = method
    request.httpBody = body
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var answer: (Int, Data)?
    nonisolated(unsafe) var failure: (any Error)?
    URLSession.shared.dataTask(with: request) { data, response, error in
      if let error { failure = error }
      answer = ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data())
      done.signal()
    }.resume()
    done.wait()
    if let failure { throw failure }
    return answer ?? (0, Data())
  }
}
