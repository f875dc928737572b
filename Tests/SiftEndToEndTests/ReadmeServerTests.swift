#if Server
import Foundation
import SiftTestSupport
import Testing

/// The README's server and offline paths, run as written against a `sift serve` of the built-in
/// products on a free port (the README's `127.0.0.1:8080` becomes that port): the search it
/// shows answers byte for byte what its comments say, and each `sift sync` and `sift search`
/// prints what its comments say, with the edits its comment in brackets describes made on the
/// server between them.
@Suite("README: a server and an offline copy", .serialized, .tags(.endToEnd))
struct ReadmeServerTests {
  static let admin = "readme-admin-token-0123456789"

  static func serve(_ sift: SiftProcess) throws -> ServeCommandTests.Server {
    let token = try sift.write("admin.key", admin + "\n")
    return try ServeCommandTests.Server(sift, ["--catalog", "products", "--token-file", token])
  }

  @Test("the search the README asks of the server answers what it shows")
  func curlSearch() throws {
    let heading = "## A server with its page"
    let block = try ReadmeExamplesTests.block("sh", under: heading, in: ReadmeExamplesTests.readme)
    let lines = block.split(separator: "\n")
    let curl = try #require(lines.first { $0.hasPrefix("curl '") })
    let url = try #require(curl.split(separator: "'").dropFirst().first)
    // The comments under it, one JSON text cut into lines at commas.
    let shown = lines.drop { $0 != curl }.dropFirst().prefix { $0.hasPrefix("#") }
      .map { $0.dropFirst().drop { $0 == " " } }.joined()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let server = try Self.serve(sift)
    defer { _ = server.stop() }
    let path = String(url.replacing("http://127.0.0.1:8080", with: ""))
    let (status, body) = try Host.request(
      "GET", URL(string: "http://127.0.0.1:\(server.port)\(path)")!, body: nil, headers: [:])
    #expect(status == 200)
    #expect(String(decoding: body, as: UTF8.self) == shown)
  }

  @Test("sift sync and the copy's search print what the README shows, the server edited between")
  func offlineCopy() throws {
    let heading = "## An offline copy that follows the server"
    let examples = ReadmeExamplesTests.examples(under: heading, in: try ReadmeExamplesTests.readme)
    #expect(examples.count == 3, "the README's block was read: \(examples)")
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let server = try Self.serve(sift)
    defer { _ = server.stop() }
    for example in examples {
      let arguments = example.arguments.map {
        $0.replacing("127.0.0.1:8080", with: "127.0.0.1:\(server.port)")
      }
      let run = try sift.run(arguments)
      #expect(run.status == 0, "\(example): \(run.stderr)")
      // A comment in brackets is what happens next on the server, not output.
      let edits = example.promised.filter { $0.hasPrefix("  (") }
      #expect(run.lines == example.promised.filter { !$0.hasPrefix("  (") }, "\(example)")
      if edits == ["  (someone adds \"Blue Rose\" and deletes White Rose on the server)"] {
        let added = try server.request(
          "POST", "/catalogs/products/items",
          body: #"{"title": "Blue Rose", "year": 2026, "price": 19.99, "type": "Birthdays"}"#,
          token: Self.admin)
        #expect(added.status == 201)
        let white = try server.request("GET", "/catalogs/products/search?q=white%20rose&limit=1")
        let id = try #require(ServeCommandTests.ids(white.json).first)
        #expect(
          try server.request("DELETE", "/catalogs/products/items/\(id)", token: Self.admin)
            .status == 204)
      } else {
        #expect(edits.isEmpty, "an edit this test does not know: \(edits)")
      }
    }
  }
}
#endif
