import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Closes the connection of a client too slow to send its request or to read its response.
///
/// Hummingbird's idle timeout cannot do either. Its clock restarts at every part of a request,
/// so a body that trickles in a byte a second would hold its connection forever; and it stops
/// while a response is being written, so would a client that never reads. This handler, added
/// with `HTTP1Channel.Configuration`'s `additionalChannelHandlers`, gives:
///
/// - **each request a deadline to arrive whole**, from its head to the end of its body. A request
///   still arriving at its deadline fails with ``APIError`` 408: the route reading its body
///   answers that, and the connection closes after the answer. A route that answered without
///   reading the body has nothing more to say, and the connection just closes.
/// - **each connection a deadline to take its responses**: once the server cannot write to the
///   connection (the client reads nothing, and NIO's buffer for it is full), the client has
///   `writeTimeout` to start reading again before the connection closes.
///
/// ```swift
/// HTTP1Channel.Configuration(
///   additionalChannelHandlers: [SlowClientHandler(requestTimeout: .seconds(30), writeTimeout: .seconds(30))])
/// ```
final class SlowClientHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let requestTimeout: Duration
  private let writeTimeout: Duration
  /// When the head of the request being read arrived; `nil` between requests.
  private var requestStart: NIODeadline?
  /// One timer for the requests of a connection, rescheduled only when it fires early, so that
  /// a connection's many quick requests do not schedule one each.
  private var requestTimer: Scheduled<Void>?
  private var writeTimer: Scheduled<Void>?
  /// A request has missed its deadline: its answer closes the connection.
  private var closesAfterResponse = false

  /// Creates the handler for one connection.
  ///
  /// - Parameters:
  ///   - requestTimeout: How long a request may take to arrive whole, from its head.
  ///   - writeTimeout: How long the client may leave the server unable to write to it.
  init(requestTimeout: Duration, writeTimeout: Duration) {
    self.requestTimeout = requestTimeout
    self.writeTimeout = writeTimeout
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head:
      let start = NIODeadline.now()
      requestStart = start
      if requestTimer == nil {
        scheduleRequestTimer(context: context, deadline: start + TimeAmount(requestTimeout))
      }
    case .end:
      requestStart = nil
    case .body:
      break
    }
    context.fireChannelRead(data)
  }

  private func scheduleRequestTimer(context: ChannelHandlerContext, deadline: NIODeadline) {
    requestTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
      self.requestTimer = nil
      guard let start = self.requestStart else { return }
      let deadline = start + TimeAmount(self.requestTimeout)
      guard deadline <= .now() else {
        // A later request than the one the timer was set for.
        return self.scheduleRequestTimer(context: context, deadline: deadline)
      }
      self.requestStart = nil
      self.closesAfterResponse = true
      // Ends the request's body with the error: whoever reads it next gets it.
      context.fireErrorCaught(
        APIError.requestTimeout(
          "the request did not arrive whole within \(self.requestTimeout) of its head"))
    }
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    guard closesAfterResponse else { return context.write(data, promise: promise) }
    switch unwrapOutboundIn(data) {
    case .head(var head):
      head.headerFields[.connection] = "close"
      context.write(wrapOutboundOut(.head(head)), promise: promise)
    case .body:
      context.write(data, promise: promise)
    case .end:
      context.writeAndFlush(data, promise: promise)
      context.close(promise: nil)
    }
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable {
      writeTimer?.cancel()
      writeTimer = nil
    } else if writeTimer == nil {
      writeTimer = context.eventLoop.assumeIsolated().scheduleTask(
        in: TimeAmount(writeTimeout)
      ) {
        context.close(promise: nil)
      }
    }
    context.fireChannelWritabilityChanged()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    requestTimer?.cancel()
    writeTimer?.cancel()
  }
}
