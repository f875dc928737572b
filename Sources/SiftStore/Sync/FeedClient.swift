import Foundation
import Sift

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The requests a copy makes of the server it follows: the snapshot's pages and the changes,
/// each answer read into the feed's types or into the `SyncError` that says whose fault it was.
struct FeedClient: Sendable {
  /// `http(s)://HOST:PORT/catalogs/NAME`.
  let catalogURL: URL
  let token: String?
  let session: URLSession
  /// Bytes read so far, over every request.
  let received = Counter()

  /// What the changes request answered.
  enum ChangesAnswer {
    case page(ChangeFeedPage)
    case startOver(reason: String)
  }

  /// A snapshot page as it came: its bytes, read by `read(_:)`, and the cursor of the page
  /// after it (the `Sift-Next` header), so that the next request can go out meanwhile.
  struct Fetched: Sendable {
    var data: Data
    var response: HTTPURLResponse
    var next: Int64? { response.value(forHTTPHeaderField: "Sift-Next").flatMap { Int64($0) } }
  }

  func fetchSnapshot(after position: Int64?, limit: Int) async throws(SyncError) -> Fetched {
    var query = [URLQueryItem(name: "limit", value: "\(limit)")]
    if let position { query.append(URLQueryItem(name: "after", value: "\(position)")) }
    let (data, response) = try await get("snapshot", query)
    guard response.statusCode == 200 else { throw failure(response, data) }
    return Fetched(data: data, response: response)
  }

  func read(_ fetched: Fetched) throws(SyncError) -> CatalogSnapshotPage {
    try decode(fetched.data, fetched.response) { json throws(FeedReadingError) in
      try CatalogSnapshotPage(json: json)
    }
  }

  func changes(since version: Int64, limit: Int) async throws(SyncError) -> ChangesAnswer {
    let (data, response) = try await get(
      "changes",
      [
        URLQueryItem(name: "since", value: "\(version)"),
        URLQueryItem(name: "limit", value: "\(limit)"),
      ])
    switch response.statusCode {
    case 200:
      return .page(
        try decode(data, response) { json throws(FeedReadingError) in
          try ChangeFeedPage(json: json)
        })
    case 410:
      let body = try decode(StartOver.self, data, response)
      guard body.start_over else { throw failure(response, data) }
      return .startOver(reason: body.reason ?? body.error)
    default:
      throw failure(response, data)
    }
  }

  /// The 410 answer's body.
  private struct StartOver: Decodable {
    var error: String
    /// Why, without what to do about it (a Sift server sends it since the feed began).
    var reason: String?
    var start_over: Bool
  }

  /// An error answer's body (`{"error": "…"}`): every answer of a Sift server has one.
  private struct ErrorBody: Decodable {
    var error: String
  }

  private var place: String {
    let host = catalogURL.host ?? "?"
    return catalogURL.port.map { "\(host):\($0)" } ?? host
  }

  private func get(
    _ resource: String, _ query: [URLQueryItem]
  ) async throws(SyncError) -> (Data, HTTPURLResponse) {
    var components = URLComponents(
      url: catalogURL.appendingPathComponent(resource), resolvingAgainstBaseURL: false)!
    components.queryItems = query
    var request = URLRequest(url: components.url!)
    request.timeoutInterval = 60
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    let data: Data
    let response: URLResponse
    do {
      (data, response) = try await session.data(for: request)
    } catch {
      if Task.isCancelled || (error as? URLError)?.code == .cancelled { throw .cancelled }
      let reason = (error as? URLError).map(Self.describe) ?? "\(error)"
      throw .unreachable("cannot reach \(place): \(reason)")
    }
    try Task.checkCancellation(orThrow: SyncError.cancelled)
    guard let http = response as? HTTPURLResponse else {
      throw .notSift("\(place) did not answer in HTTP")
    }
    received.add(data.count)
    return (data, http)
  }

  /// A URL error as a person reads it.
  private static func describe(_ error: URLError) -> String {
    switch error.code {
    case .cannotConnectToHost: "nothing is listening there (connection refused)"
    case .cannotFindHost: "no such host"
    case .timedOut: "no answer in time"
    case .networkConnectionLost: "the connection was cut off"
    case .notConnectedToInternet: "not connected to a network"
    case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
      .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
      "the TLS connection failed (\(error.localizedDescription))"
    default: error.localizedDescription
    }
  }

  private func decode<Value: Decodable>(
    _ type: Value.Type, _ data: Data, _ response: HTTPURLResponse
  ) throws(SyncError) -> Value {
    do {
      return try JSONDecoder().decode(type, from: data)
    } catch {
      throw .notSift(
        "\(place) answered \(response.statusCode) with what is not a Sift catalog's feed (\(contentType(response)))"
      )
    }
  }

  /// The page `data` holds, read straight from its bytes (`JSONValue.parse`).
  private func decode<Value>(
    _ data: Data, _ response: HTTPURLResponse,
    _ read: (JSONValue) throws(FeedReadingError) -> Value
  ) throws(SyncError) -> Value {
    do {
      return try read(try JSONValue.parse(data))
    } catch {
      throw .notSift(
        "\(place) answered \(response.statusCode) with what is not a Sift catalog's feed (\(contentType(response)))"
      )
    }
  }

  private func contentType(_ response: HTTPURLResponse) -> String {
    response.value(forHTTPHeaderField: "Content-Type") ?? "no content type"
  }

  /// A failed answer as the error it means: a Sift server says why in `{"error": …}`.
  private func failure(_ response: HTTPURLResponse, _ data: Data) -> SyncError {
    guard let body = try? JSONDecoder().decode(ErrorBody.self, from: data) else {
      return .notSift(
        "\(place) answered \(response.statusCode) (\(contentType(response))), not as a Sift server does"
      )
    }
    let message = "\(place) answered \(response.statusCode): \(body.error)"
    switch response.statusCode {
    case 401: return .unauthorized(message)
    case 403: return .unauthorized(message)
    case 404: return .notFound(message)
    default: return .server(message)
    }
  }
}

/// A count any task may add to.
final class Counter: Sendable {
  private let value = Locked(0)
  func add(_ amount: Int) { value.withLock { $0 += amount } }
  var total: Int { value.withLock { $0 } }
}

extension Task where Success == Never, Failure == Never {
  /// Throws `error` when the current task is cancelled.
  static func checkCancellation<E: Error>(orThrow error: E) throws(E) {
    if Task.isCancelled { throw error }
  }
}
