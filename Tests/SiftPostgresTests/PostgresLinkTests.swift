#if Server
import Foundation
import Sift
import SiftTestSupport
import Testing

@testable import SiftPostgres

@Suite("The connections to PostgreSQL", .tags(.postgres), .needs("psql"))
struct PostgresLinkTests {
  @Test("a request cancelled while every connection is busy stops waiting; the others finish")
  func cancelledWhileWaiting() async throws {
    let cluster = try PostgresCluster.shared()
    let document = try SeedCatalog.products.load()
    let address = try PostgresAddress(cluster.address(catalog: "link_cancel"))
    try await PostgresCatalog.replace(address, with: document)
    let catalog = try await PostgresCatalog.open(address)
    let link = catalog.link
    let limit = PostgresLink.connectionLimit
    // Every connection held until the test lets go: each waits for a lock that a second
    // catalog's connection holds (a state, not a time, so a starved machine cannot end the
    // hold before the waiter comes).
    let blocker = try await PostgresCatalog.open(address)
    let (released, release) = AsyncStream<Void>.makeStream()
    let (held, holding) = AsyncStream<Void>.makeStream()
    let lock = Task {
      try await blocker.link.with { connection in
        try await connection.execute("SELECT pg_advisory_lock(50050)")
        holding.yield()
        for await _ in released { break }
        try await connection.execute("SELECT pg_advisory_unlock(50050)")
      }
    }
    for await _ in held { break }
    let holders = Task {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<limit {
          group.addTask {
            try await link.run(
              "SELECT pg_advisory_lock_shared(50050), pg_advisory_unlock_shared(50050)")
          }
        }
        try await group.waitForAll()
      }
    }
    // Until all of them are out (a state, not a time: at most 10 s of polling).
    for _ in 0..<200 where link.peakConnections < limit {
      try await Task.sleep(for: .milliseconds(50))
    }
    #expect(link.peakConnections == limit)
    let waiter = Task { try await link.rows("SELECT 1", as: Int.self) }
    try await Task.sleep(for: .milliseconds(100))
    waiter.cancel()
    // Should the waiter ignore its cancellation, the holders are let go after 5 s: it then has
    // its row, and the test says so rather than wait for ever.
    let letGo = Task {
      try? await Task.sleep(for: .seconds(5))
      release.yield()
    }
    // Had the waiter ignored its cancellation, it would have its row once a holder is done.
    switch await waiter.result {
    case .success(let rows): Issue.record("the cancelled request still ran: \(rows)")
    case .failure(let error):
      #expect("\(error)".contains("cancelled while it waited for a connection"), "\(error)")
    }
    letGo.cancel()
    release.yield()
    try await lock.value
    try await holders.value
    await blocker.close()
    // Nothing was lost: a request after them has a connection at once.
    #expect(try await link.rows("SELECT 2", as: Int.self) == [2])
    #expect(link.peakConnections == limit)
    await catalog.close()
  }
}
#endif
