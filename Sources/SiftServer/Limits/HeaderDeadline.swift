#if Server
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request header is not whole within a time of the connection
/// opening or of the last answer: a client that sends a byte of header every few seconds
/// keeps an idle timeout waiting for ever, but not this.
final class HeaderDeadline: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let timeout: TimeAmount
  private var scheduled: Scheduled<Void>?

  init(timeout: TimeAmount) {
    self.timeout = timeout
  }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { arm(context) }
  }

  func channelActive(context: ChannelHandlerContext) {
    arm(context)
    context.fireChannelActive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    disarm()
  }

  func channelInactive(context: ChannelHandlerContext) {
    disarm()
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    // A whole header came: from here the request's own deadline governs.
    if case .head = unwrapInboundIn(data) { disarm() }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    // The answer is written: the next request's header has the same time to arrive.
    if case .end = unwrapOutboundIn(data) { arm(context) }
    context.write(data, promise: promise)
  }

  private func arm(_ context: ChannelHandlerContext) {
    disarm()
    let channel = context.channel
    scheduled = context.eventLoop.scheduleTask(in: timeout) {
      channel.close(promise: nil)
    }
  }

  private func disarm() {
    scheduled?.cancel()
    scheduled = nil
  }
}
#endif
