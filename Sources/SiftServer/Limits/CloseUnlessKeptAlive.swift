#if Server
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Closes a connection after its answer when the request did not ask to keep it open: an
/// HTTP/1.0 request without `Connection: keep-alive` (or any with `Connection: close`). The
/// version is lost when a request becomes an `HTTPRequest`, so this reads it before: it marks
/// such a request `Connection: close`, which the server honours after answering.
///
/// Added among the handlers after the conversion, it puts its reader in front of it.
final class CloseUnlessKeptAlive: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = NIOAny

  func handlerAdded(context: ChannelHandlerContext) {
    let pipeline = context.pipeline.syncOperations
    guard let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) else { return }
    try? pipeline.addHandler(KeepAliveReader(), position: .before(codec))
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    context.fireChannelRead(data)
  }

  /// Reads each request head as HTTP/1 wrote it.
  final class KeepAliveReader: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      guard case .head(var head) = unwrapInboundIn(data), !head.isKeepAlive else {
        return context.fireChannelRead(data)
      }
      head.headers.replaceOrAdd(name: "connection", value: "close")
      context.fireChannelRead(wrapInboundOut(.head(head)))
    }
  }
}
#endif
