#if Server
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Sift

/// Answers a request the HTTP parser cannot read — a URL with raw UTF-8 or spaces, a request
/// line that is not HTTP, a header past the size the server reads — with `{"error": …}` saying
/// what to fix, as every other refusal, then closes the connection (what follows cannot be
/// read either). Without it the answer is a 400 with an empty body.
final class MalformedRequest: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundOut = HTTPResponsePart

  private var answered = false
  /// Told the message of each request answered here: the router never sees them, so the
  /// metrics and the access log hear of them this way.
  private let report: @Sendable (String) -> Void

  init(report: @escaping @Sendable (String) -> Void) {
    self.report = report
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    guard let parserError = error as? HTTPParserError else {
      context.fireErrorCaught(error)
      return
    }
    guard !answered else { return }
    answered = true
    let message = Self.message(parserError)
    report(message)
    // The same `{"error": …}` as every other refusal (`ServerError`), written by the same writer.
    let body = context.channel.allocator.buffer(
      bytes: JSONValue.object([("error", .string(message))]).bytes)
    let head = HTTPResponse(
      status: .badRequest,
      headerFields: [
        .contentType: "application/json; charset=utf-8", .connection: "close",
        .contentLength: String(body.readableBytes),
      ])
    context.write(wrapOutboundOut(.head(head)), promise: nil)
    context.write(wrapOutboundOut(.body(body)), promise: nil)
    let channel = context.channel
    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
      channel.close(promise: nil)
    }
  }

  /// What the client sent wrong, in words that say how to send it right.
  static func message(_ error: HTTPParserError) -> String {
    switch error {
    case .invalidURL, .invalidPath, .invalidQueryString, .invalidFragment,
      .invalidCharactersUsed:
      "request line: the URL holds characters that must be percent-encoded (é as %C3%A9, a space as %20)"
    case .headerOverflow:
      "request header: larger than this server reads"
    case .invalidMethod:
      "request line: not an HTTP method"
    case .invalidVersion:
      "request line: not HTTP/1.0 or HTTP/1.1"
    case .invalidConstant:
      "request line: METHOD URL HTTP/1.1 expected (a space in the URL is sent as %20)"
    case .invalidHeaderToken:
      "request header: a line that is not NAME: VALUE"
    case .invalidContentLength, .invalidChunkSize, .unexpectedContentLength:
      "request body: its length is not what Content-Length or the chunks say"
    default:
      "request: not HTTP that this server can read"
    }
  }
}
#endif
