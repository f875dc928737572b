#if Server
import Foundation
import NIOCore
import NIOPosix
import Sift

extension SiftServer {
  /// Runs `work`, answering 503 when it takes longer than `requestTimeout`: the client hears in
  /// time, and the connection is free for its next request. Work that cannot stop at once (a
  /// search in the middle of a large catalog) finishes in the background, and its answer is
  /// dropped.
  ///
  /// An edit (`isEdit`) gets the same deadline — a store that stopped answering (PostgreSQL
  /// down mid-statement) must not hold a client and the server's shutdown for minutes — and a
  /// late edit is told that it may still be saved.
  func withinDeadline<Value: Sendable>(
    isEdit: Bool = false, _ work: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    guard let requestTimeout else { return try await work() }
    let seconds = FieldValue.format(
      Double(requestTimeout.components.seconds)
        + Double(requestTimeout.components.attoseconds) / 1e18)
    return try await Self.first(work, orAfter: requestTimeout) {
      throw ServerError(
        .serviceUnavailable,
        isEdit
          ? "the edit took longer than \(seconds) s (--request-timeout): it may have been saved; read the item to know"
          : "the request took longer than \(seconds) s (--request-timeout): try a narrower search"
      )
    }
  }

  /// Why `catalog` cannot answer now — its count failed, or took longer than `patience` (a
  /// store that stopped answering) — or nil when it answers: what `/health` reports.
  static func problem(
    reaching catalog: any SearchCatalog, patience: Duration = .seconds(2)
  ) async -> String? {
    let seconds = FieldValue.format(Double(patience.components.seconds))
    let problem: String?? = try? await first(
      {
        do {
          _ = try await catalog.count()
          return nil
        } catch {
          return "\(error)"
        }
      }, orAfter: patience, late: { "no answer within \(seconds) s" })
    return problem ?? nil
  }

  /// What `work` gives, or what `late` gives once `limit` has passed first; `work` is then
  /// cancelled and its answer dropped. The timer is a callback on one of NIO's event loops, not
  /// a task that sleeps: it costs a scheduled callback, not a task hop, on every request (4 % of
  /// searches a second, measured).
  static func first<Value: Sendable>(
    _ work: @escaping @Sendable () async throws -> Value, orAfter limit: Duration,
    late: @escaping @Sendable () throws -> Value
  ) async throws -> Value {
    let race = Race<Value>()
    return try await withCheckedThrowingContinuation { continuation in
      race.start(continuation)
      let worker = Task {
        do {
          race.finish(.success(try await work()))
        } catch {
          race.finish(.failure(error))
        }
      }
      let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: TimeAmount(limit)) {
        if race.finish(Result(catching: late)) { worker.cancel() }
      }
      race.whenDone { timer.cancel() }
    }
  }
}

/// One continuation resumed once, by whichever of the work and the timer ends first.
private final class Race<Value: Sendable>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<Value, any Error>?
    var done = false
    var onDone: (@Sendable () -> Void)?
  }

  private let state = Locked(State())

  func start(_ continuation: CheckedContinuation<Value, any Error>) {
    state.withLock { $0.continuation = continuation }
  }

  /// Resumes with `result` unless the other came first; whether this one did.
  @discardableResult
  func finish(_ result: Result<Value, any Error>) -> Bool {
    let (continuation, onDone) = state.withLock {
      state -> (CheckedContinuation<Value, any Error>?, (@Sendable () -> Void)?) in
      guard !state.done else { return (nil, nil) }
      state.done = true
      defer { state.continuation = nil }
      return (state.continuation, state.onDone)
    }
    guard let continuation else { return false }
    continuation.resume(with: result)
    onDone?()
    return true
  }

  /// Runs `action` when the race is decided (at once if it is).
  func whenDone(_ action: @escaping @Sendable () -> Void) {
    let already = state.withLock { state -> Bool in
      if state.done { return true }
      state.onDone = action
      return false
    }
    if already { action() }
  }
}
#endif
