#if Server
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Sift

/// What every route reads and answers with: the catalog a name names, the request's body, a
/// catalog's failure as its HTTP status, JSON as a response.
extension SiftServer {
  /// Runs `work` on a catalog; what it could not do as the HTTP status that says whose fault
  /// it was.
  static func answering<Result: Sendable>(
    _ work: () async throws(CatalogFailure) -> Result
  ) async throws(ServerError) -> Result {
    do {
      return try await work()
    } catch {
      let status: HTTPResponse.Status =
        switch error {
        case .notFound: .notFound
        case .conflict: .conflict
        case .invalid: .badRequest
        case .unavailable: .serviceUnavailable
        case .failed: .internalServerError
        }
      throw ServerError(status, error.description)
    }
  }

  /// `value` as a JSON response: every answer of the server, errors included, goes through it.
  static func json(
    _ value: JSONValue, status: HTTPResponse.Status = .ok, version: Int64? = nil
  ) -> Response {
    json(bytes: value.bytes, status: status, version: version)
  }

  /// JSON already written, with the catalog's version and (a feed's page) the next page's
  /// cursor in headers.
  static func json(
    bytes: [UInt8], status: HTTPResponse.Status = .ok, version: Int64? = nil, next: Int64? = nil
  ) -> Response {
    var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
    if let version { headers[.siftVersion] = "\(version)" }
    if let next { headers[.siftNext] = "\(next)" }
    return Response(
      status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
  }

  /// The request's body, refused with 413 past `limit` bytes (an item's, by default).
  static func body(
    _ request: Request, upTo limit: Int = ItemBody.maximumBytes
  ) async throws(ServerError) -> Data {
    do {
      let buffer = try await request.body.collect(upTo: limit)
      return Data(buffer.readableBytesView)
    } catch {
      throw ServerError(.contentTooLarge, "body: more than \(limit) bytes")
    }
  }

  func catalog(named name: String) throws(ServerError) -> any SearchCatalog {
    guard let catalog = catalogs[name] else {
      let known = catalogs.keys.sorted().joined(separator: ", ")
      throw .notFound("no catalog named \"\(name.prefix(100))\"; this server has \(known)")
    }
    return catalog
  }

  /// The path segment `name` stands for, percent-decoded once: an item made with the id `a b`
  /// or `x/y` is read back at `…/items/a%20b` and `…/items/x%2Fy`. A segment that is not valid
  /// percent-encoding is taken as written.
  static func pathParameter(_ name: String, _ context: SiftRequestContext) -> String {
    let raw = context.parameters.get(name) ?? ""
    return raw.removingPercentEncoding ?? raw
  }

  /// `GET /search`'s `catalog=` values, each a catalog this server has, none twice.
  func catalogs(named names: [String]) throws(ServerError) -> [any SearchCatalog] {
    guard !names.isEmpty else {
      throw .badRequest("catalog: name the catalogs to search (catalog=NAME, repeatable)")
    }
    var chosen: [any SearchCatalog] = []
    for name in names {
      guard !chosen.contains(where: { $0.name == name }) else {
        throw .badRequest("catalog: \"\(name.prefix(100))\" is named twice")
      }
      do throws(ServerError) {
        chosen.append(try catalog(named: name))
      } catch {
        throw ServerError(error.status, "catalog: " + error.message)
      }
    }
    return chosen
  }

  /// The token of `Authorization: Bearer TOKEN`; the scheme's case does not matter (RFC 9110:
  /// `bearer`, `BEARER`), nor the spaces around the token. Nil for another scheme or none.
  static func bearerToken(_ header: String?) -> String? {
    guard let header else { return nil }
    let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    let token = parts[1].trimmingCharacters(in: .whitespaces)
    return token.isEmpty ? nil : token
  }

  /// Compares without stopping at the first difference, so timing tells nothing of the token.
  static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let (x, y) = (Array(a.utf8), Array(b.utf8))
    var difference = x.count ^ y.count
    for index in 0..<max(x.count, y.count) {
      difference |= Int((index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0))
    }
    return difference == 0
  }

}

extension HTTPField.Name {
  /// The catalog's version an answer shows (an edit's: the version it made).
  static let siftVersion = HTTPField.Name("Sift-Version")!
  /// The cursor of a feed's next page (`ChangeFeedAnswers.swift`).
  static let siftNext = HTTPField.Name("Sift-Next")!
}

extension JSONValue {
  /// An object with `key` set to `version` (a member added last; other values unchanged).
  func adding(_ key: String, _ version: Int64) -> JSONValue {
    guard case .object(var members) = self else { return self }
    members.append((key, .number(Double(version))))
    return .object(members)
  }
}
#endif
