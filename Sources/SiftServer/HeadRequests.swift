#if Server
import HTTPTypes
import Hummingbird

/// `HEAD` on any path that takes `GET` is answered as that `GET` would be — the same status and
/// headers, `Content-Length` included — without the body (RFC 9110 §9.3.2): each `GET` route is
/// also a `HEAD` route (`getOrHead`), and this drops the body of whatever answers a `HEAD`,
/// errors included.
struct HeadWithoutBodyMiddleware<Context: RequestContext>: RouterMiddleware {
  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard request.method == .head else { return try await next(request, context) }
    let response = try await next(request, context)
    guard response.body.contentLength == nil else { return response.createHeadResponse() }
    // A body of unknown length (an export, streamed): no Content-Length, as the GET has none
    // (an empty body would say "Content-Length: 0").
    return Response(
      status: response.status, headers: response.headers,
      body: ResponseBody(contentLength: nil) { writer in try await writer.finish(nil) })
  }
}
#endif
