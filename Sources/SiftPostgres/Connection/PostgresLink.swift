#if Server
import Foundation
import Sift
import Logging
import PostgresNIO

/// Connections to the server, made when needed and made again after the server went away (a
/// restart): a request meanwhile fails with `PostgresError.unavailable`, the next one
/// reconnects. Each `with` has a connection to itself for its whole body — a transaction never
/// sees another task's statements — and gives it back for the next. At most `connectionLimit`
/// are open: past that, requests wait their turn rather than exhaust the server's
/// `max_connections`, and one cancelled meanwhile (a client gone) leaves the queue.
///
/// Not postgres-nio's `PostgresClient`: while the server is down, its pool keeps a request
/// waiting until its circuit breaker trips (66.9 s, measured against a closed port) and then
/// reconnects on a backoff of up to a minute; here a request fails at once (503 from
/// `sift serve`) and the first one after a restart reconnects (Benchmarks/README.md, issue 30).
final class PostgresLink: Sendable {
  let address: PostgresAddress
  private struct Pool {
    var idle: [PostgresConnection] = []
    /// Connections open or being opened.
    var open = 0
    /// The most that were open at once.
    var peak = 0
    /// Requests waiting for a connection, first come first served, by ticket.
    var waiters: [(ticket: Int, continuation: CheckedContinuation<Grant, Never>)] = []
    var nextTicket = 0
    var nextID = 1
  }

  private let pool = Locked(Pool())
  static let connectionLimit = 16
  /// How many open connections wait for the next request; more are closed when given back.
  static let idleLimit = 8
  static let logger = Logger(label: "sift.postgres") { _ in SwiftLogNoOpLogHandler() }

  /// What a request waiting for a connection is given: one to use, leave to open one, or word
  /// that it was cancelled.
  private enum Grant {
    case connection(PostgresConnection)
    case open(id: Int)
    case cancelled
  }

  init(address: PostgresAddress) {
    self.address = address
  }

  /// An idle connection, a new one while fewer than the limit are open, or the next one given
  /// back. A request cancelled while it waits leaves the queue at once.
  private func checkOut() async throws(PostgresError) -> PostgresConnection {
    let ticket = pool.withLock { pool -> Int in
      pool.nextTicket += 1
      return pool.nextTicket
    }
    let grant = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Grant, Never>) in
        pool.withLock { pool in
          while let last = pool.idle.popLast() {
            if !last.isClosed { return continuation.resume(returning: .connection(last)) }
            pool.open -= 1
          }
          if pool.open < Self.connectionLimit {
            pool.open += 1
            pool.peak = max(pool.peak, pool.open)
            pool.nextID += 1
            return continuation.resume(returning: .open(id: pool.nextID))
          }
          // Cancelled before it could queue (the handler found nothing to take out): it does
          // not wait.
          if Task.isCancelled { return continuation.resume(returning: .cancelled) }
          pool.waiters.append((ticket, continuation))
        }
      }
    } onCancel: {
      let waiter = pool.withLock { pool -> CheckedContinuation<Grant, Never>? in
        pool.waiters.firstIndex { $0.ticket == ticket }.map {
          pool.waiters.remove(at: $0).continuation
        }
      }
      waiter?.resume(returning: .cancelled)
    }
    let id: Int
    switch grant {
    case .connection(let connection): return connection
    case .open(let given): id = given
    case .cancelled:
      throw .unavailable(
        address.description, message: "the request was cancelled while it waited for a connection")
    }
    var configuration: PostgresConnection.Configuration
    if let folder = address.socketFolder {
      configuration = .init(
        unixSocketPath: "\(folder)/.s.PGSQL.\(address.port)", username: address.user,
        password: address.password, database: address.database)
    } else {
      configuration = .init(
        host: address.host, port: address.port, username: address.user,
        password: address.password, database: address.database, tls: .disable)
    }
    configuration.options.connectTimeout = .seconds(5)
    // Compiling a plan to machine code costs ~30 ms per search and pays only for scans of
    // millions of rows, which the searches avoid.
    configuration.options.additionalStartupParameters = [("jit", "off")]
    do {
      return try await PostgresConnection.connect(
        configuration: configuration, id: id, logger: Self.logger)
    } catch {
      release()
      throw .unavailable(address.description, message: Self.message(error))
    }
  }

  /// Gives `connection` to the next waiting request, or keeps it idle, or closes it.
  private func checkIn(_ connection: PostgresConnection) async {
    guard !connection.isClosed else { return release() }
    let (waiter, kept) = pool.withLock { pool -> (CheckedContinuation<Grant, Never>?, Bool) in
      if !pool.waiters.isEmpty { return (pool.waiters.removeFirst().continuation, true) }
      guard pool.idle.count < Self.idleLimit else {
        pool.open -= 1
        return (nil, false)
      }
      pool.idle.append(connection)
      return (nil, true)
    }
    if let waiter { waiter.resume(returning: .connection(connection)) }
    if !kept { try? await connection.close() }
  }

  /// A connection closed or never made: the next waiting request may open one.
  private func release() {
    let waiter = pool.withLock { pool -> (CheckedContinuation<Grant, Never>, Int)? in
      guard !pool.waiters.isEmpty else {
        pool.open -= 1
        return nil
      }
      pool.nextID += 1
      return (pool.waiters.removeFirst().continuation, pool.nextID)
    }
    if let (continuation, id) = waiter { continuation.resume(returning: .open(id: id)) }
  }

  /// The most connections that were open at once.
  var peakConnections: Int { pool.withLock { $0.peak } }

  func close() async {
    let connections = pool.withLock { pool -> [PostgresConnection] in
      defer {
        pool.open -= pool.idle.count
        pool.idle = []
      }
      return pool.idle
    }
    for connection in connections { try? await connection.close() }
  }

  /// Runs `body` on a connection of its own; a failure becomes a `PostgresError` naming the
  /// catalog. A connection that failed mid-statement is closed rather than given back.
  func with<Result>(
    _ body: (PostgresConnection) async throws -> Result
  ) async throws(PostgresError) -> Result {
    let connection = try await checkOut()
    do {
      let result = try await body(connection)
      await checkIn(connection)
      return result
    } catch {
      let lost = connection.isClosed || Self.isConnectionLoss(error)
      if lost {
        try? await connection.close()
        release()
      } else {
        await checkIn(connection)
      }
      if let error = error as? PostgresError { throw error }
      throw lost
        ? .unavailable(address.description, message: Self.message(error))
        : .query(address.description, message: Self.message(error))
    }
  }

  /// Runs `body` in one transaction on one connection: committed when it returns a value,
  /// rolled back when it returns nil (nothing to keep) or throws.
  func transaction<Result>(
    _ body: (PostgresConnection) async throws -> Result?
  ) async throws(PostgresError) -> Result? {
    try await with { connection in
      try await connection.execute("BEGIN")
      do {
        guard let result = try await body(connection) else {
          try await connection.execute("ROLLBACK")
          return nil
        }
        do {
          try await connection.execute("COMMIT")
        } catch  where connection.isClosed || Self.isConnectionLoss(error) {
          // The COMMIT was sent, its answer never came: applied or not, nobody here knows.
          try? await connection.close()
          throw PostgresError.outcomeUnknown(address.description, message: Self.message(error))
        }
        return result
      } catch let error as PostgresError {
        throw error
      } catch {
        _ = try? await connection.execute("ROLLBACK")
        throw error
      }
    }
  }

  /// Rows of `sql` decoded as `types`.
  func rows<each Column: PostgresDecodable & Sendable>(
    _ sql: String, _ binds: [SQLValue] = [], as types: (repeat each Column).Type
  ) async throws(PostgresError) -> [(repeat each Column)] {
    try await with { connection in
      let rows = try await connection.execute(sql, binds)
      var result: [(repeat each Column)] = []
      for try await row in rows.decode((repeat each Column).self) { result.append(row) }
      return result
    }
  }

  /// Runs statements that return nothing.
  func run(_ sql: String, _ binds: [SQLValue] = []) async throws(PostgresError) {
    try await with { connection in _ = try await connection.execute(sql, binds) }
  }

  /// What a server error says (its message and detail), or the error itself.
  static func message(_ error: any Error) -> String {
    if let error = error as? PSQLError {
      if let server = error.serverInfo {
        let message = server[.message] ?? "error"
        let detail = server[.detail].map { " (\($0))" } ?? ""
        return message + detail
      }
      if error.code == .connectionError || error.code == .serverClosedConnection
        || error.code == .uncleanShutdown
      {
        return "the connection was lost"
      }
      return "\(error.code)"
    }
    if let error = error as? IOError { return error.description }
    return String(describing: error)
  }

  /// Errors that say the server went away rather than that the statement was wrong.
  static func isConnectionLoss(_ error: any Error) -> Bool {
    if let error = error as? PSQLError {
      if error.code == .connectionError || error.code == .serverClosedConnection
        || error.code == .uncleanShutdown || error.code == .clientClosedConnection
      {
        return true
      }
      // admin_shutdown, crash_shutdown, cannot_connect_now
      if let state = error.serverInfo?[.sqlState], ["57P01", "57P02", "57P03"].contains(state) {
        return true
      }
      return false
    }
    return error is IOError || error is ChannelError
  }
}

extension PostgresConnection {
  /// Runs one statement with its binds; its rows to read or to leave.
  @discardableResult
  func execute(_ sql: String, _ binds: [SQLValue] = []) async throws -> PostgresRowSequence {
    try await query(
      PostgresQuery(unsafeSQL: sql, binds: SQLValue.bindings(binds)), logger: PostgresLink.logger)
  }
}

/// A value bound to a statement's `$n`, kept plain so compiled queries can be compared in tests.
enum SQLValue: Hashable, Sendable {
  case text(String)
  case texts([String])
  case integers([Int])
  case integer(Int)
  case number(Double)
  /// A `bytea`; nil for SQL NULL.
  case bytes([UInt8]?)
  /// SQL NULL, of a text column.
  case null

  static func bindings(_ values: [SQLValue]) -> PostgresBindings {
    var bindings = PostgresBindings(capacity: values.count)
    for value in values {
      switch value {
      case .text(let text): bindings.append(text)
      case .texts(let texts): bindings.append(texts)
      case .integers(let integers): bindings.append(integers)
      case .integer(let integer): bindings.append(integer)
      case .number(let number): bindings.append(number)
      case .bytes(let bytes): bindings.append(bytes.map { ByteBuffer(bytes: $0) })
      case .null: bindings.append(String?.none)
      }
    }
    return bindings
  }
}
#endif
