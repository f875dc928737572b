#if Server
import Foundation
import Hummingbird
import HummingbirdTesting
import Sift
import SiftServer
import SiftStore
import Testing
import SiftTestSupport

/// Searches running while edits are written see the catalog before an edit or after it, never
/// half of one: in every answer the items found, the catalog's count and the rows agree.
@Suite("sift serve: searches during edits", .tags(.unit))
struct ConcurrencyTests {
  @Test("four searchers and one editor: every answer is one whole state of the catalog")
  func consistentDuringEdits() async throws {
    let (server, store, folder) = try EditEndpointTests.served()
    defer { try? FileManager.default.removeItem(at: folder) }
    let base = try store.itemCount()
    let markers = 40
    let app = Application(router: server.router())
    let seen = try await app.test(.router) { client in
      try await withThrowingTaskGroup(of: [(total: Int, matched: Int, titles: [String])].self) {
        group in
        // The editor: adds "Marker 1" … "Marker 40", then deletes them in the same order.
        group.addTask {
          var ids: [String] = []
          for number in 1...markers {
            let body = #"{"title": "Marker \#(number)", "year": 2030, "price": 1, "type": "Gifts"}"#
            let id = try await client.execute(
              uri: "/catalogs/products/items", method: .post,
              headers: [
                .authorization: "Bearer \(EditEndpointTests.token)",
                .contentType: "application/json",
              ],
              body: ByteBuffer(string: body)
            ) { response in
              #expect(response.status == .created)
              let json = try JSONSerialization.jsonObject(
                with: Data(response.body.readableBytesView))
              return (json as? [String: Any])?["id"] as? String ?? ""
            }
            ids.append(id)
          }
          for id in ids {
            try await client.execute(
              uri: "/catalogs/products/items/\(id)", method: .delete,
              headers: [.authorization: "Bearer \(EditEndpointTests.token)"]
            ) { response in #expect(response.status == .noContent) }
          }
          return []
        }
        for _ in 0..<4 {
          group.addTask {
            var answers: [(total: Int, matched: Int, titles: [String])] = []
            for _ in 0..<150 {
              let answer = try await client.execute(
                uri: "/catalogs/products/search?q=marker&limit=1000", method: .get
              ) { response in
                let json =
                  try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
                  as? [String: Any] ?? [:]
                let titles = (json["results"] as? [[String: Any]] ?? []).compactMap {
                  $0["title"] as? String
                }
                return (json["total"] as? Int ?? -1, json["matched"] as? Int ?? -1, titles)
              }
              answers.append(answer)
              await Task.yield()
            }
            return answers
          }
        }
        var all: [(total: Int, matched: Int, titles: [String])] = []
        for try await answers in group { all += answers }
        return all
      }
    }
    #expect(seen.count == 600)
    var states = Set<[Int]>()
    for answer in seen {
      // The markers present form one run: 1…k while adding, k…40 while deleting.
      let numbers = answer.titles.compactMap { Int($0.dropFirst("Marker ".count)) }.sorted()
      #expect(answer.matched == answer.titles.count)
      #expect(
        answer.total == base + answer.matched, "total \(answer.total), matched \(answer.matched)")
      let run = numbers.isEmpty ? [] : Array(numbers.first!...numbers.last!)
      #expect(numbers == run, "\(numbers)")
      #expect(numbers.isEmpty || numbers.first == 1 || numbers.last == markers, "\(numbers)")
      states.insert(numbers)
    }
    // The searchers ran while the catalog changed, not only before or after.
    print("searchers saw \(states.count) different states of \(2 * markers + 1)")
    #expect(states.count > 3)
  }
}
#endif
