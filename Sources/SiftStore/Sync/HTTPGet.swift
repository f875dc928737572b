import Foundation

#if os(Linux)
import CCurlLoader
#endif

/// What one GET answered: its status, headers (names in lower case) and body.
struct HTTPAnswer: Sendable {
  var status: Int
  var headers: [String: String]
  var body: Data

  func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why a GET had no answer.
enum HTTPGetFailure: Error {
  /// The server could not be reached, or the connection failed: why, as a person reads it.
  case unreachable(String)
  case cancelled
  /// Nothing here can make requests (Linux without libcurl).
  case unavailable(String)
}

/// How a copy's requests are made: `URLSession` on Apple's platforms; on Linux, the system's
/// libcurl, loaded when the first request is made. Through FoundationNetworking (which is
/// URLSession on libcurl too) every `sift` process loaded libcurl and the thirty libraries it
/// needs at start: 5–7 ms more for every command, for the one that syncs.
struct HTTPGet: Sendable {
  #if os(Linux)
  init() {}
  #else
  let session: URLSession
  init(session: URLSession) { self.session = session }
  #endif

  /// Requests waiting longer than this for an answer fail (a page is read in well under it).
  static let timeout: TimeInterval = 60

  func callAsFunction(_ url: URL, authorization: String?) async throws(HTTPGetFailure)
    -> HTTPAnswer
  {
    #if os(Linux)
    try await Self.curl(url, authorization: authorization)
    #else
    try await urlSession(url, authorization: authorization)
    #endif
  }

  #if os(Linux)
  /// The flag libcurl's progress callback reads to stop a transfer: set from the task's
  /// cancellation handler while the request runs on a thread of its own. @unchecked: the one
  /// write and the reads are of an aligned Int32, and a late read only stops the transfer later.
  private final class Cancellation: @unchecked Sendable {
    let flag = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    init() { flag.initialize(to: 0) }
    deinit { flag.deallocate() }
    func cancel() { flag.pointee = 1 }
  }

  private static func curl(
    _ url: URL, authorization: String?
  ) async throws(HTTPGetFailure) -> HTTPAnswer {
    let cancellation = Cancellation()
    let outcome: Result<HTTPAnswer, HTTPGetFailure> = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        // libcurl blocks: a thread of its own, never one of Swift's shared pool.
        Thread.detachNewThread {
          var response = sift_http_response()
          sift_http_get(
            url.absoluteString, authorization, Int(timeout), cancellation.flag, &response)
          defer { sift_http_free(&response) }
          continuation.resume(
            returning: answer(response, cancelled: cancellation.flag.pointee != 0))
        }
      }
    } onCancel: {
      cancellation.cancel()
    }
    return try outcome.get()
  }

  /// The C response as an answer, or why there is none.
  private static func answer(
    _ response: sift_http_response, cancelled: Bool
  ) -> Result<HTTPAnswer, HTTPGetFailure> {
    let error = withUnsafeBytes(of: response.error) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
    switch response.curl_code {
    case 0:
      let body =
        response.body.map { Data(bytes: $0, count: response.body_length) } ?? Data()
      let text =
        response.headers.map {
          String(
            decoding: UnsafeRawBufferPointer(start: $0, count: response.headers_length),
            as: UTF8.self)
        } ?? ""
      return .success(
        HTTPAnswer(status: response.status, headers: headers(text), body: body))
    case 42 where cancelled: return .failure(.cancelled)
    case -1: return .failure(.unavailable(error))
    case 7 where error.contains("refused") || error.contains("Couldn't connect"):
      return .failure(.unreachable("nothing is listening there (connection refused)"))
    case 6: return .failure(.unreachable("no such host"))
    case 28: return .failure(.unreachable("no answer in time"))
    case 52, 56: return .failure(.unreachable("the connection was cut off"))
    case 35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91:
      return .failure(.unreachable("the TLS connection failed (\(error))"))
    default: return .failure(.unreachable(error))
    }
  }

  /// The last response's headers (a redirect or `100 Continue` may come before it).
  private static func headers(_ text: String) -> [String: String] {
    var headers: [String: String] = [:]
    for line in text.split(separator: "\r\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("HTTP/") {
        headers = [:]
      } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].lowercased()
        headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      }
    }
    return headers
  }
  #else
  private func urlSession(
    _ url: URL, authorization: String?
  ) async throws(HTTPGetFailure) -> HTTPAnswer {
    var request = URLRequest(url: url)
    request.timeoutInterval = Self.timeout
    if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
    let data: Data
    let response: URLResponse
    do {
      (data, response) = try await session.data(for: request)
    } catch {
      if Task.isCancelled || (error as? URLError)?.code == .cancelled { throw .cancelled }
      throw .unreachable((error as? URLError).map(Self.describe) ?? "\(error)")
    }
    guard let http = response as? HTTPURLResponse else {
      throw .unreachable("it did not answer in HTTP")
    }
    var headers: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
      if let name = name as? String, let value = value as? String {
        headers[name.lowercased()] = value
      }
    }
    return HTTPAnswer(status: http.statusCode, headers: headers, body: data)
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
  #endif
}
