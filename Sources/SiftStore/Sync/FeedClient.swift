import Foundation
import Sift

/// The requests a copy makes of the server it follows: the snapshot's pages and the changes,
/// each answer read into the feed's types or into the `SyncError` that says whose fault it was.
struct FeedClient: Sendable {
  /// `http(s)://HOST:PORT/catalogs/NAME`.
  let catalogURL: URL
  let token: String?
  let http: HTTPGet
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
    var answer: HTTPAnswer
    var next: Int64? { answer.header("Sift-Next").flatMap { Int64($0) } }
  }

  func fetchSnapshot(after position: Int64?, limit: Int) async throws(SyncError) -> Fetched {
    var query = [URLQueryItem(name: "limit", value: "\(limit)")]
    if let position { query.append(URLQueryItem(name: "after", value: "\(position)")) }
    let answer = try await get("snapshot", query)
    guard answer.status == 200 else { throw failure(answer) }
    return Fetched(answer: answer)
  }

  func read(_ fetched: Fetched) throws(SyncError) -> CatalogSnapshotPage {
    try decode(fetched.answer) { json throws(FeedReadingError) in
      try CatalogSnapshotPage(json: json)
    }
  }

  func changes(since version: Int64, limit: Int) async throws(SyncError) -> ChangesAnswer {
    let answer = try await get(
      "changes",
      [
        URLQueryItem(name: "since", value: "\(version)"),
        URLQueryItem(name: "limit", value: "\(limit)"),
      ])
    switch answer.status {
    case 200:
      return .page(
        try decode(answer) { json throws(FeedReadingError) in
          try ChangeFeedPage(json: json)
        })
    case 410:
      let body = try decode(StartOver.self, answer)
      guard body.start_over else { throw failure(answer) }
      return .startOver(reason: body.reason ?? body.error)
    default:
      throw failure(answer)
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
  ) async throws(SyncError) -> HTTPAnswer {
    var components = URLComponents(
      url: catalogURL.appendingPathComponent(resource), resolvingAgainstBaseURL: false)!
    components.queryItems = query
    let answer: HTTPAnswer
    do {
      answer = try await http(components.url!, authorization: token.map { "Bearer \($0)" })
    } catch {
      switch error {
      case .cancelled: throw .cancelled
      case .unreachable(let reason): throw .unreachable("cannot reach \(place): \(reason)")
      case .unavailable(let reason): throw .local("sift sync cannot make requests: \(reason)")
      }
    }
    try Task.checkCancellation(orThrow: SyncError.cancelled)
    received.add(answer.body.count)
    return answer
  }

  private func decode<Value: Decodable>(
    _ type: Value.Type, _ answer: HTTPAnswer
  ) throws(SyncError) -> Value {
    do {
      return try JSONDecoder().decode(type, from: answer.body)
    } catch {
      throw .notSift(
        "\(place) answered \(answer.status) with what is not a Sift catalog's feed (\(contentType(answer)))"
      )
    }
  }

  /// The page `data` holds, read straight from its bytes (`JSONValue.parse`).
  private func decode<Value>(
    _ answer: HTTPAnswer, _ read: (JSONValue) throws(FeedReadingError) -> Value
  ) throws(SyncError) -> Value {
    do {
      return try read(try JSONValue.parse(answer.body))
    } catch {
      throw .notSift(
        "\(place) answered \(answer.status) with what is not a Sift catalog's feed (\(contentType(answer)))"
      )
    }
  }

  private func contentType(_ answer: HTTPAnswer) -> String {
    answer.header("Content-Type") ?? "no content type"
  }

  /// A failed answer as the error it means: a Sift server says why in `{"error": …}`.
  private func failure(_ answer: HTTPAnswer) -> SyncError {
    guard let body = try? JSONDecoder().decode(ErrorBody.self, from: answer.body) else {
      return .notSift(
        "\(place) answered \(answer.status) (\(contentType(answer))), not as a Sift server does"
      )
    }
    let message = "\(place) answered \(answer.status): \(body.error)"
    switch answer.status {
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
