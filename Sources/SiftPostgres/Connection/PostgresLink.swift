import Foundation
import Logging
import PostgresNIO

/// One connection to the server, made when first needed and made again after the server went
/// away (a restart): a request meanwhile fails with `PostgresError.unavailable`, the next one
/// reconnects. Queries from several tasks wait their turn on it.
final class PostgresLink: @unchecked Sendable {
  let address: PostgresAddress
  private let lock = NSLock()
  private var current: PostgresConnection?
  private var nextID = 1
  static let logger = Logger(label: "sift.postgres") { _ in SwiftLogNoOpLogHandler() }

  init(address: PostgresAddress) {
    self.address = address
  }

  /// The open connection, or a new one.
  func connection() async throws(PostgresError) -> PostgresConnection {
    let (existing, id) = lock.withLock { () -> (PostgresConnection?, Int) in
      if let current, !current.isClosed { return (current, 0) }
      nextID += 1
      return (nil, nextID)
    }
    if let existing { return existing }
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
    let made: PostgresConnection
    do {
      made = try await PostgresConnection.connect(
        configuration: configuration, id: id, logger: Self.logger)
    } catch {
      throw .unavailable(address.description, message: Self.message(error))
    }
    let (kept, extra) = lock.withLock { () -> (PostgresConnection, PostgresConnection?) in
      if let current, !current.isClosed { return (current, made) }
      current = made
      return (made, nil)
    }
    if let extra { try? await extra.close() }
    return kept
  }

  func close() async {
    let connection = lock.withLock { () -> PostgresConnection? in
      defer { current = nil }
      return current
    }
    try? await connection?.close()
  }

  /// Runs `body` on the connection; a failure becomes a `PostgresError` naming the catalog.
  func with<Result>(
    _ body: (PostgresConnection) async throws -> Result
  ) async throws(PostgresError) -> Result {
    let connection = try await connection()
    do {
      return try await body(connection)
    } catch let error as PostgresError {
      throw error
    } catch {
      if connection.isClosed || Self.isConnectionLoss(error) {
        throw .unavailable(address.description, message: Self.message(error))
      }
      throw .query(address.description, message: Self.message(error))
    }
  }

  /// Rows of `sql` decoded as `types`.
  func rows<each Column: PostgresDecodable & Sendable>(
    _ sql: String, _ binds: [SQLValue] = [], as types: (repeat each Column).Type
  ) async throws(PostgresError) -> [(repeat each Column)] {
    try await with { connection in
      let rows = try await connection.query(
        PostgresQuery(unsafeSQL: sql, binds: SQLValue.bindings(binds)), logger: Self.logger)
      var result: [(repeat each Column)] = []
      for try await row in rows.decode((repeat each Column).self) { result.append(row) }
      return result
    }
  }

  /// Runs statements that return nothing.
  func run(_ sql: String, _ binds: [SQLValue] = []) async throws(PostgresError) {
    try await with { connection in
      _ = try await connection.query(
        PostgresQuery(unsafeSQL: sql, binds: SQLValue.bindings(binds)), logger: Self.logger)
    }
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

/// A value bound to a statement's `$n`, kept plain so compiled queries can be compared in tests.
enum SQLValue: Hashable, Sendable {
  case text(String)
  case texts([String])
  case integers([Int])
  case integer(Int)
  case number(Double)

  static func bindings(_ values: [SQLValue]) -> PostgresBindings {
    var bindings = PostgresBindings(capacity: values.count)
    for value in values {
      switch value {
      case .text(let text): bindings.append(text)
      case .texts(let texts): bindings.append(texts)
      case .integers(let integers): bindings.append(integers)
      case .integer(let integer): bindings.append(integer)
      case .number(let number): bindings.append(number)
      }
    }
    return bindings
  }
}

/// Runs async work from synchronous code (the command line's commands) and waits for it.
/// Never call it from a task: it blocks the thread.
func waitFor<Result: Sendable>(
  _ body: @escaping @Sendable () async throws(PostgresError) -> Result
) throws(PostgresError) -> Result {
  let done = DispatchSemaphore(value: 0)
  let box = ResultBox<Result>()
  Task {
    do throws(PostgresError) {
      box.result = .success(try await body())
    } catch {
      box.result = .failure(error)
    }
    done.signal()
  }
  done.wait()
  return try box.result!.get()
}

private final class ResultBox<Value: Sendable>: @unchecked Sendable {
  var result: Result<Value, PostgresError>?
}
