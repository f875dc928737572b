#if Server
import Foundation
import HTTPTypes
import Sift
import SiftServer
import SiftTestSupport
import Testing

/// The OpenAPI document at `GET /openapi.json` (`docs/openapi.json`) describes the server
/// that serves it: the same paths with the same methods, and this build's version. That real
/// answers fit its schemas is checked from outside, with a running `sift serve`
/// (`Scripts/check-openapi.py`, run by `APIDocumentCommandTests`).
@Suite("sift serve: the API document", .tags(.unit))
struct APIDocumentTests {
  /// The document as the server serves it, parsed.
  static func served() async throws -> (document: [String: Any], server: SiftServer) {
    let (server, _, folder) = try SearchEndpointTests.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (status, headers, body) = try await PageAndCORSTests.raw(server, "/openapi.json")
    #expect(status == .ok)
    #expect(headers[.contentType] == "application/json; charset=utf-8")
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
    return (document, server)
  }

  /// `/catalogs/{name}/items/{id}` as the router writes it: `catalogs/:name/items/:id`; the
  /// page's files keep their slash (`/page.js`), as they are registered.
  static func routerPath(_ documented: String) -> String {
    let path = documented.replacing(/\{([a-z_]+)\}/) { ":" + $0.output.1 }
    return path.contains(":")
      || ["/catalogs", "/search", "/keys", "/health", "/metrics"]
        .contains(path)
      ? String(path.dropFirst()) : path
  }

  @Test("every route the server registers is in the document with its methods, and nothing else")
  func sameRoutes() async throws {
    let (document, server) = try await Self.served()
    let paths = try #require(document["paths"] as? [String: [String: Any]])
    var documented: [String: Set<String>] = [:]
    let methods: Set<String> = ["get", "head", "put", "post", "delete", "patch", "options"]
    for (path, item) in paths {
      documented[Self.routerPath(path)] = Set(
        item.keys.filter(methods.contains).map { $0.uppercased() })
    }
    let registered = server.routeMethods
    for path in Set(registered.keys).union(documented.keys).sorted() {
      #expect(
        registered[path] == documented[path],
        "\(path): the server answers \(registered[path]?.sorted() ?? []), the document lists \(documented[path]?.sorted() ?? [])"
      )
    }
    #expect(registered.count >= 20, "the server's routes were read: \(registered.keys.sorted())")
  }

  @Test("the document is OpenAPI 3.1 of this version, and every operation says what it answers")
  func versionAndOperations() async throws {
    let (document, _) = try await Self.served()
    #expect(document["openapi"] as? String == "3.1.0")
    let info = try #require(document["info"] as? [String: Any])
    #expect(info["version"] as? String == SiftVersion.current)
    let schemes = try #require(
      (document["components"] as? [String: Any])?["securitySchemes"] as? [String: Any])
    #expect(schemes.keys.sorted() == ["bearer"])
    let paths = try #require(document["paths"] as? [String: [String: Any]])
    var operationIDs: [String] = []
    for (path, item) in paths {
      for (method, value) in item where method != "parameters" {
        let operation = try #require(value as? [String: Any], "\(method) \(path)")
        operationIDs.append(try #require(operation["operationId"] as? String))
        let responses = try #require(operation["responses"] as? [String: Any])
        #expect(responses.keys.contains { $0.hasPrefix("2") }, "\(method) \(path) answers")
        // A catalog's route can fail for a catalog that is not there; one with a body, on it.
        if path.contains("{name}") { #expect(responses["404"] != nil, "\(method) \(path)") }
        if operation["requestBody"] != nil { #expect(responses["400"] != nil, "\(method) \(path)") }
      }
    }
    #expect(Set(operationIDs).count == operationIDs.count, "operation ids are unique")
  }

  @Test("docs/openapi.json is the document the server serves")
  func docsCopy() async throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let file = try Data(contentsOf: root.appendingPathComponent("docs/openapi.json"))
    let (server, _, folder) = try SearchEndpointTests.server()
    defer { try? FileManager.default.removeItem(at: folder) }
    let body = try await PageAndCORSTests.raw(server, "/openapi.json").body
    #expect(String(decoding: file, as: UTF8.self) == body)
  }
}
#endif
