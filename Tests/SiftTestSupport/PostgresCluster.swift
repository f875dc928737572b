import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server of the tests' own: `initdb` into a temporary folder (as the `postgres`
/// user when the tests run as root, since the server refuses root), started on a free port of
/// 127.0.0.1 and stopped when the test process exits. `Scripts/setup-tests` installs PostgreSQL;
/// when it is missing or cannot be started, `shared()` throws saying why — never a silent skip
/// (a suite that needs it says `.needs("psql")`, which skips it only on a machine that cannot
/// install it).
public final class PostgresCluster: Sendable {
  public let port: Int
  public let folder: String
  let binaries: String

  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// One cluster for the whole test process.
  public static func shared() throws -> PostgresCluster {
    try lock.withLock {
      if let cluster = started { return cluster }
      if let failure { throw failure }
      do {
        let cluster = try PostgresCluster()
        started = cluster
        atexit { PostgresCluster.stopShared() }
        return cluster
      } catch let error as Failure {
        failure = error
        throw error
      }
    }
  }

  /// A cluster of the caller's own, to stop and start at will (a restart would break the
  /// tests sharing `shared()`); `remove()` it when done.
  public static func own() throws -> PostgresCluster {
    try PostgresCluster()
  }

  /// Stops the server and deletes its folder.
  public func remove() {
    stop()
    try? FileManager.default.removeItem(atPath: folder)
  }

  /// `postgresql://postgres@127.0.0.1:PORT/postgres?catalog=NAME`.
  public func address(catalog: String, database: String = "postgres") -> String {
    "postgresql://postgres@127.0.0.1:\(port)/\(database)?catalog=\(catalog)"
  }

  /// Runs SQL through psql; returns its output.
  @discardableResult
  public func psql(_ sql: String, database: String = "postgres") throws -> String {
    let result = Self.run(
      "psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p \(port) -U postgres -d \(database) -c \(Self.quoted(sql))"
    )
    guard result.status == 0 else { throw Failure(description: "psql failed: \(result.output)") }
    return result.output
  }

  /// Stops the server (fast shutdown, like a restart's first half); `immediately`: as a crash
  /// does (`-m immediate`: no checkpoint, recovery from the log at the next start).
  public func stop(immediately: Bool = false) {
    let mode = immediately ? "immediate" : "fast"
    _ = Self.run(asOwner("\(binaries)/pg_ctl -D \(folder)/data -m \(mode) -w stop"))
  }

  /// Freezes the server and every session of it (SIGSTOP): a database that stops answering
  /// without closing a connection, as a hung machine or a cut network does. `resume()` thaws it.
  public func pause() { signalAll("STOP") }

  public func resume() { signalAll("CONT") }

  private func signalAll(_ signal: String) {
    guard
      let text = try? String(contentsOfFile: "\(folder)/data/postmaster.pid", encoding: .utf8),
      let pid = text.split(separator: "\n").first.flatMap({ Int32($0) })
    else { return }
    _ = Self.run("pkill -\(signal) -P \(pid); kill -\(signal) \(pid)")
  }

  /// Starts it again on the same port.
  public func start() throws {
    let result = Self.run(
      asOwner(
        "\(binaries)/pg_ctl -D \(folder)/data -w -l \(folder)/server.log -o \(Self.quoted("-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off")) start"
      ))
    guard result.status == 0 else {
      throw Failure(
        description:
          "cannot start PostgreSQL: \(result.output) \((try? String(contentsOfFile: "\(folder)/server.log", encoding: .utf8)) ?? "")"
      )
    }
  }

  private init() throws {
    guard let binaries = Self.findBinaries() else {
      throw Failure(
        description:
          "PostgreSQL is not installed (the PostgreSQL tests need initdb and pg_ctl): Scripts/setup-tests installs it"
      )
    }
    guard Self.run("command -v psql").status == 0 else {
      throw Failure(description: "psql is missing (postgresql-client)")
    }
    self.binaries = binaries
    folder = "/tmp/sift-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    port = try Self.freePort()
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    if getuid() == 0 {
      guard Self.run("id postgres").status == 0 else {
        throw Failure(
          description: "running as root and there is no postgres user to run the server")
      }
      _ = Self.run("chown postgres \(folder)")
    }
    let initdb = Self.run(
      asOwner("\(binaries)/initdb -D \(folder)/data -E UTF8 --locale=C -A trust -U postgres"))
    guard initdb.status == 0 else {
      throw Failure(description: "initdb failed: \(initdb.output)")
    }
    try start()
  }

  static func stopShared() {
    guard let cluster = started else { return }
    cluster.stop()
    try? FileManager.default.removeItem(atPath: cluster.folder)
  }

  private func asOwner(_ command: String) -> String {
    getuid() == 0 ? "su postgres -s /bin/sh -c \(Self.quoted(command))" : command
  }

  private static func findBinaries() -> String? {
    let root = "/usr/lib/postgresql"
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
    return versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
      .map { "\(root)/\($0)/bin" }
      .first { FileManager.default.isExecutableFile(atPath: "\($0)/initdb") }
  }

  private static func quoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  private static func freePort() throws -> Int {
    // The kernel's pick for a socket bound to port 0, read through Python's standard library
    // (this target has no networking code of its own).
    let result = run(
      "python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])'"
    )
    guard result.status == 0,
      let port = Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines))
    else { throw Failure(description: "cannot find a free port: \(result.output)") }
    return port
  }

  /// A shell command's status and output (stdout and stderr), through a file and with
  /// posix_spawn: Foundation's Process would wait for the server it starts, which inherits the
  /// descriptors.
  static func run(_ command: String) -> (status: Int32, output: String) {
    let output = "/tmp/sift-pg-run-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: output) }
    let words = ["/bin/sh", "-c", "(\(command)) >\(output) 2>&1 </dev/null"]
    let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    defer { arguments.forEach { free($0) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, "/bin/sh", nil, nil, arguments, environ) == 0 else {
      return (127, "cannot run /bin/sh")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return (exitStatus, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
  }

  nonisolated(unsafe) private static var started: PostgresCluster?
  nonisolated(unsafe) private static var failure: Failure?
  private static let lock = NSLock()
}
