#if Server
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Sift
import SiftServer
import SiftStore
import Testing
import SiftTestSupport

/// The search page's files and the browser rules: the page, its script and style served with a
/// policy that lets nothing but this server's own script run; CORS headers only for the origin
/// given with `--cors`, on answers and errors alike.
@Suite("sift serve: the page's files and CORS", .tags(.unit))
struct PageAndCORSTests {
  static func raw(
    _ server: SiftServer, _ uri: String, method: HTTPRequest.Method = .get,
    headers: HTTPFields = [:]
  ) async throws -> (status: HTTPResponse.Status, headers: HTTPFields, body: String) {
    let app = Application(router: server.router())
    return try await app.test(.router) { client in
      try await client.execute(uri: uri, method: method, headers: headers) { response in
        (
          response.status, response.headers,
          String(decoding: response.body.readableBytesView, as: UTF8.self)
        )
      }
    }
  }

  @Test(
    "the page, its script and its style, each with its type and a strict content policy",
    arguments: [
      ("/", "text/html; charset=utf-8", "<input id=\"q\""),
      ("/page.js", "text/javascript; charset=utf-8", "new AbortController()"),
      ("/page.css", "text/css; charset=utf-8", "@media (max-width: 720px)"),
    ])
  func pageFiles(_ path: String, _ type: String, _ excerpt: String) async throws {
    let (server, _, folder) = try SearchEndpointTests.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (status, headers, body) = try await Self.raw(server, path)
    #expect(status == .ok)
    #expect(headers[.contentType] == type)
    #expect(headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
    #expect(headers[.contentSecurityPolicy]?.contains("unsafe-inline") == false)
    #expect(headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
    #expect(body.contains(excerpt))
  }

  @Test("the page puts catalog text in text nodes only: no innerHTML, no inline script")
  func pageWritesNoMarkup() async throws {
    let (server, _, folder) = try SearchEndpointTests.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let script = try await Self.raw(server, "/page.js").body
    for unsafe in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("] {
      #expect(!script.contains(unsafe), "\(unsafe)")
    }
    let html = try await Self.raw(server, "/").body
    #expect(!html.contains("<script>") && !html.contains("style=") && !html.contains("onclick"))
  }

  @Test("without --cors no browser origin is allowed")
  func corsOff() async throws {
    let (server, _, folder) = try SearchEndpointTests.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (_, headers, _) = try await Self.raw(
      server, "/catalogs/products/search?q=rose", headers: [.origin: "https://shop.example"])
    #expect(headers[.accessControlAllowOrigin] == nil)
  }

  @Test("--cors ORIGIN: answers, errors and preflights carry it")
  func corsOn() async throws {
    let (plain, _, folder) = try SearchEndpointTests.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = SiftServer(
      catalogs: plain.catalogs.values.sorted { $0.name < $1.name },
      corsOrigin: "https://shop.example")
    let origin: HTTPFields = [.origin: "https://shop.example"]
    let answer = try await Self.raw(server, "/catalogs/products/search?q=rose", headers: origin)
    #expect(answer.status == .ok)
    #expect(answer.headers[.accessControlAllowOrigin] == "https://shop.example")
    let error = try await Self.raw(server, "/catalogs/nope/search", headers: origin)
    #expect(error.status == .notFound)
    #expect(error.headers[.accessControlAllowOrigin] == "https://shop.example")
    var preflight = origin
    preflight[.accessControlRequestMethod] = "PUT"
    preflight[.accessControlRequestHeaders] = "authorization, content-type"
    let options = try await Self.raw(
      server, "/catalogs/products/items/1", method: .options, headers: preflight)
    #expect(options.status == .ok || options.status == .noContent)
    #expect(options.headers[.accessControlAllowOrigin] == "https://shop.example")
    #expect(options.headers[.accessControlAllowMethods]?.contains("PUT") == true)
    #expect(
      options.headers[.accessControlAllowHeaders]?.lowercased().contains("authorization") == true)
  }
}
#endif
