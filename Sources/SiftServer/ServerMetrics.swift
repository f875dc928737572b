#if Server
import Foundation
import HTTPTypes
import Hummingbird
import Sift

/// What `GET /metrics` reports, in Prometheus's text format: requests by route, method and
/// status, their latency as a histogram by route, and searches and edits per catalog. Routes
/// are the router's patterns (`catalogs/:name/search`), never raw paths, so the series stay few
/// whatever clients ask for.
final class ServerMetrics: Sendable {
  private struct Counts {
    var requests: [RequestKey: Int] = [:]
    var latencies: [String: Histogram] = [:]
    var searches: [String: Int] = [:]
    var edits: [String: Int] = [:]
  }

  private let counts = Locked(Counts())

  struct RequestKey: Hashable {
    var route: String
    var method: String
    var status: Int
  }

  /// Upper bounds of the latency buckets, in seconds.
  static let buckets: [Double] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

  struct Histogram {
    var counts = [Int](repeating: 0, count: ServerMetrics.buckets.count)
    var sum = 0.0
    var count = 0
  }

  func recordRequest(route: String, method: String, status: Int, seconds: Double) {
    counts.withLock { counts in
      counts.requests[RequestKey(route: route, method: method, status: status), default: 0] += 1
      var histogram = counts.latencies[route] ?? Histogram()
      for (index, bound) in Self.buckets.enumerated() where seconds <= bound {
        histogram.counts[index] += 1
      }
      histogram.sum += seconds
      histogram.count += 1
      counts.latencies[route] = histogram
    }
  }

  func recordSearch(catalog: String) {
    counts.withLock { $0.searches[catalog, default: 0] += 1 }
  }

  func recordEdit(catalog: String) {
    counts.withLock { $0.edits[catalog, default: 0] += 1 }
  }

  /// The exposition text: each family with its HELP and TYPE, series in a stable order.
  func exposition() -> String {
    // Written from a copy: requests are counted meanwhile.
    let (requests, latencies, searches, edits) = counts.withLock {
      ($0.requests, $0.latencies, $0.searches, $0.edits)
    }
    var lines: [String] = []
    lines += [
      "# HELP sift_http_requests_total HTTP requests answered, by route, method and status.",
      "# TYPE sift_http_requests_total counter",
    ]
    for (key, count) in requests.sorted(by: {
      ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status)
    }) {
      lines.append(
        "sift_http_requests_total{route=\"\(Self.escaped(key.route))\",method=\"\(key.method)\",status=\"\(key.status)\"} \(count)"
      )
    }
    lines += [
      "# HELP sift_http_request_duration_seconds Time to answer a request, by route.",
      "# TYPE sift_http_request_duration_seconds histogram",
    ]
    for (route, histogram) in latencies.sorted(by: { $0.key < $1.key }) {
      let label = "route=\"\(Self.escaped(route))\""
      for (index, bound) in Self.buckets.enumerated() {
        lines.append(
          "sift_http_request_duration_seconds_bucket{\(label),le=\"\(bound)\"} \(histogram.counts[index])"
        )
      }
      lines.append(
        "sift_http_request_duration_seconds_bucket{\(label),le=\"+Inf\"} \(histogram.count)")
      lines.append("sift_http_request_duration_seconds_sum{\(label)} \(histogram.sum)")
      lines.append("sift_http_request_duration_seconds_count{\(label)} \(histogram.count)")
    }
    for (name, help, counts) in [
      ("sift_searches_total", "Searches answered, by catalog.", searches),
      ("sift_edits_total", "Edits saved (adds, updates, deletes, synonyms), by catalog.", edits),
    ] {
      lines += ["# HELP \(name) \(help)", "# TYPE \(name) counter"]
      for (catalog, count) in counts.sorted(by: { $0.key < $1.key }) {
        lines.append("\(name){catalog=\"\(Self.escaped(catalog))\"} \(count)")
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// A label value as the text format wants it: backslash, quote and line break escaped.
  static func escaped(_ value: String) -> String {
    value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "\n", with: "\\n")
  }
}

/// How `sift serve` writes its access log: one line per request, on standard error.
public enum AccessLogFormat: String, Sendable, CaseIterable {
  /// `GET /catalogs/products/search?q=rose 200 3.1 ms`
  case text
  /// `{"method":"GET","path":"/catalogs/products/search","query":"q=rose","status":200,"ms":3.1}`
  case json

  /// The line for one request; `error`: why one the router never saw was refused.
  func line(
    method: String, path: String, query: String, status: Int, milliseconds: Double,
    error: String? = nil
  ) -> String {
    switch self {
    case .text:
      let target = path + (query.isEmpty ? "" : "?" + query)
      return "\(method) \(target) \(status) \(milliseconds) ms"
        + (error.map { ": \($0)" } ?? "")
    case .json:
      return JSONValue.object(
        [
          ("method", .string(method)), ("path", .string(path)), ("query", .string(query)),
          ("status", .number(Double(status))), ("ms", .number(milliseconds)),
        ] + (error.map { [("error", JSONValue.string($0))] } ?? [])
      ).text
    }
  }
}

/// Times every request and counts it by route (`ServerMetrics`); with a log format, writes a
/// line for it. The outermost middleware, so it sees the status every error was given. A line
/// holds the method, the path and query, the status and the time: never a header, so never a
/// key.
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
  let metrics: ServerMetrics
  let routes: [RouteMethods]
  let log: AccessLogFormat?
  let write: @Sendable (String) -> Void

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let started = ContinuousClock.now
    let response: Response
    do {
      response = try await next(request, context)
    } catch {
      record(request, status: 500, since: started)
      throw error
    }
    record(request, status: Int(response.status.code), since: started)
    return response
  }

  private func record(_ request: Request, status: Int, since started: ContinuousClock.Instant) {
    let elapsed = ContinuousClock.now - started
    let seconds =
      Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let path = request.uri.path
    let route = routes.route(for: path)?.pattern ?? "other"
    metrics.recordRequest(
      route: route, method: request.method.rawValue, status: status, seconds: seconds)
    guard let log else { return }
    write(
      log.line(
        method: request.method.rawValue, path: path, query: request.uri.query ?? "",
        status: status, milliseconds: (seconds * 10_000).rounded() / 10))
  }
}
#endif
