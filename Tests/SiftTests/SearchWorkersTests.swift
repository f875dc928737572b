import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// Searches run on a few threads of their own, in the order they came.
@Suite("The search threads", .tags(.unit))
struct SearchWorkersTests {
  @Test("jobs waiting for a busy thread start in the order they were given")
  func firstComeFirstServed() async throws {
    let workers = SearchWorkers(threads: 1)
    let gate = DispatchSemaphore(value: 0)
    let started = LockedList()
    // The one thread is held until every other job waits behind it.
    let blocker = Task { try await workers.run { () throws(CatalogFailure) in gate.wait() } }
    while workers.given < 1 { await Task.yield() }
    var jobs: [Task<Int, any Error>] = []
    for index in 0..<40 {
      jobs.append(
        Task {
          try await workers.run { () throws(CatalogFailure) in
            started.append(index)
            return index * 2
          }
        })
      // Each job is queued before the next is made (the queue is read by the test alone).
      while workers.given < index + 2 { await Task.yield() }
    }
    gate.signal()
    try await blocker.value
    var results: [Int] = []
    for job in jobs { results.append(try await job.value) }
    #expect(results == (0..<40).map { $0 * 2 })
    #expect(started.values == Array(0..<40))
  }

  @Test("an error thrown on a search thread reaches the request that asked")
  func errorsReachTheCaller() async throws {
    let workers = SearchWorkers(threads: 2)
    await #expect(throws: CatalogFailure.notFound("no such item")) {
      try await workers.run { () throws(CatalogFailure) -> Int in throw .notFound("no such item") }
    }
    #expect(try await workers.run { () throws(CatalogFailure) in 7 } == 7)
  }

  @Test("a shutdown lets the jobs given finish, then stops the threads; a later job starts them")
  func shutdownFinishesThenStops() async throws {
    let workers = SearchWorkers(threads: 2)
    #expect(workers.runningThreads == 0)
    let gate = DispatchSemaphore(value: 0)
    let finished = LockedList()
    for index in 0..<10 {
      workers.enqueue {
        if index == 0 { gate.wait() }
        finished.append(index)
      }
    }
    #expect(workers.runningThreads == 2)
    // The first job holds a thread until the shutdown has begun: the rest must still run.
    let stopped = Task.detached { workers.shutdown() }
    try await Task.sleep(for: .milliseconds(50))
    gate.signal()
    await stopped.value
    #expect(workers.runningThreads == 0)
    #expect(finished.values.sorted() == Array(0..<10))
    #expect(try await workers.run { () throws(CatalogFailure) in 7 } == 7)
    #expect(workers.runningThreads == 2)
    workers.shutdown()
    #expect(workers.runningThreads == 0)
  }
}

private final class LockedList: @unchecked Sendable {
  private let lock = NSLock()
  private var list: [Int] = []
  func append(_ value: Int) { lock.withLock { list.append(value) } }
  var values: [Int] { lock.withLock { list } }
}
