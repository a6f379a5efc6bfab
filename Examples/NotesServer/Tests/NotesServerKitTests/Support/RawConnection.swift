import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A TCP connection to a port on 127.0.0.1, made with the C socket API, so that a test decides
/// every byte it sends and when it stops sending: what an HTTP client would never do.
final class RawConnection: Sendable {
  /// What went wrong with a socket call, and its `errno`.
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  private let descriptor: Int32

  /// Connects.
  ///
  /// - Parameter port: The port on 127.0.0.1.
  /// - Throws: ``Failure`` when the socket cannot be made or connected.
  init(port: Int) throws {
    #if canImport(Glibc)
      descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #else
      descriptor = socket(AF_INET, SOCK_STREAM, 0)
      if descriptor >= 0 { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    #endif
    guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
    #if canImport(Darwin)
      // Writing to a connection the server has closed fails with EPIPE instead of a signal
      // that would stop the test process; Linux asks for that at each write instead.
      var on: Int32 = 1
      _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    #endif
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      let error = errno
      close(descriptor)
      throw Failure(description: "connect to port \(port): errno \(error)")
    }
  }

  deinit {
    close(descriptor)
  }

  /// Sends text, all of it.
  ///
  /// - Parameter text: The bytes to send, as UTF-8.
  /// - Throws: ``Failure`` when the socket refuses them.
  func send(_ text: String) throws {
    let bytes = Array(text.utf8)
    var sent = 0
    while sent < bytes.count {
      let count = send(bytes[sent...], flags: 0)
      guard count > 0 else { throw Failure(description: "write: errno \(errno)") }
      sent += count
    }
  }

  /// Sends what it can of `bytes`, with no signal if the server has closed the connection.
  private func send(_ bytes: ArraySlice<UInt8>, flags: Int32) -> Int {
    #if canImport(Glibc)
      bytes.withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress, $0.count, flags | Int32(MSG_NOSIGNAL))
      }
    #else
      bytes.withUnsafeBytes { Darwin.send(descriptor, $0.baseAddress, $0.count, flags) }
    #endif
  }

  /// What became of a request sent on a connection.
  enum Exchange: Sendable, Equatable {
    /// A whole response came back: its status and body.
    case answered(status: Int, body: String)
    /// The connection closed, or could not be written to, before any byte of a response.
    case closedBeforeAnswer
    /// The connection closed in the middle of a response: what had arrived.
    case cutOff(String)
  }

  /// Sends a request and reads its whole response, as an HTTP/1.1 client on a kept-alive
  /// connection does, waiting at most `limit`.
  ///
  /// - Parameters:
  ///   - request: The request, head and body.
  ///   - limit: How long to wait for the response.
  /// - Returns: The response, or how the connection ended without one.
  func exchange(_ request: String, within limit: Duration) -> Exchange {
    let bytes = Array(request.utf8)
    var sent = 0
    while sent < bytes.count {
      let count = send(bytes[sent...], flags: 0)
      guard count > 0 else { return .closedBeforeAnswer }
      sent += count
    }
    let deadline = ContinuousClock.now.advanced(by: limit)
    var received = [UInt8]()
    var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    while ContinuousClock.now < deadline {
      if let response = Self.wholeResponse(received) { return response }
      guard poll(&polled, 1, (deadline - .now).pollTimeout) > 0 else { continue }
      if !readSome(into: &received) {
        return received.isEmpty
          ? .closedBeforeAnswer
          : Self.wholeResponse(received) ?? .cutOff(String(decoding: received, as: UTF8.self))
      }
    }
    return .cutOff(String(decoding: received, as: UTF8.self))
  }

  /// The response `bytes` hold, once its head and all the body its `Content-Length` announces
  /// have arrived.
  private static func wholeResponse(_ bytes: [UInt8]) -> Exchange? {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let end = text.range(of: "\r\n\r\n") else { return nil }
    let head = text[..<end.lowerBound].lowercased()
    let length =
      head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
      .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
      ?? 0
    let body = text[end.upperBound...]
    guard body.utf8.count >= length,
      let status = Int(head.split(separator: " ").dropFirst().first ?? "")
    else { return nil }
    return .answered(status: status, body: String(body))
  }

  /// Sends `text` a byte at a time, after each byte waiting up to `pause` for the server to
  /// close the connection, and reads what the server answers meanwhile.
  ///
  /// - Parameters:
  ///   - text: What to send.
  ///   - pause: How long to wait after each byte.
  ///   - limit: How long to go on at most.
  /// - Returns: What the server sent, and whether it closed the connection within `limit`
  ///   (before `text` ran out).
  func trickle(
    _ text: String, pause: Duration, within limit: Duration
  ) async -> (received: String, closed: Bool) {
    await onThreadOfItsOwn { [self] in
      let deadline = ContinuousClock.now.advanced(by: limit)
      var received = [UInt8]()
      for byte in text.utf8 {
        guard ContinuousClock.now < deadline else { break }
        _ = send([byte], flags: 0)
        let pauseEnds = ContinuousClock.now.advanced(by: pause)
        var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while ContinuousClock.now < pauseEnds {
          if poll(&polled, 1, (pauseEnds - .now).pollTimeout) > 0, !readSome(into: &received) {
            return (String(decoding: received, as: UTF8.self), true)
          }
        }
      }
      return (String(decoding: received, as: UTF8.self), false)
    }
  }

  /// Sends `text` over and over without ever reading, as a client that never reads its
  /// responses, until the server resets the connection or `limit` passes.
  ///
  /// - Parameters:
  ///   - text: What to send, again and again: a request.
  ///   - limit: How long to go on at most.
  /// - Returns: Whether the server reset the connection within `limit`.
  func sendWithoutReading(_ text: String, within limit: Duration) async -> Bool {
    let bytes = Array(String(repeating: text, count: 64).utf8)
    return await onThreadOfItsOwn { [self] in
      let deadline = ContinuousClock.now.advanced(by: limit)
      while ContinuousClock.now < deadline {
        if send(bytes[...], flags: Int32(MSG_DONTWAIT)) < 0 {
          guard errno == EAGAIN || errno == EWOULDBLOCK else { return true }  // reset
          // Full: wait until the server reads, or resets the connection (POLLERR, POLLHUP).
          var polled = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
          if poll(&polled, 1, (deadline - .now).pollTimeout) > 0,
            polled.revents & Int16(POLLERR | POLLHUP) != 0
          {
            return true
          }
        }
      }
      return false
    }
  }

  /// Waits, at most `limit`, until the server has closed every connection, reading what each
  /// was sent.
  ///
  /// - Parameters:
  ///   - connections: The connections.
  ///   - limit: How long to wait at most.
  /// - Returns: What each connection received before its end, in order, and how many were still
  ///   open when the limit passed.
  static func waitUntilClosed(
    _ connections: [RawConnection], within limit: Duration
  ) async -> (received: [String], stillOpen: Int) {
    await collect(connections, within: limit) { _, open in open.isEmpty }
  }

  /// Waits, at most `limit`, until `count` of the connections have received something, reading
  /// what each was sent.
  ///
  /// - Parameters:
  ///   - connections: The connections.
  ///   - count: How many answered connections to wait for.
  ///   - limit: How long to wait at most.
  /// - Returns: What each connection received, in order.
  static func waitUntilAnswered(
    _ connections: [RawConnection], count: Int, within limit: Duration
  ) async -> [String] {
    await collect(connections, within: limit) { received, _ in
      received.count(where: { !$0.isEmpty }) >= count
    }.received
  }

  private static func collect(
    _ connections: [RawConnection], within limit: Duration,
    until isDone: @escaping @Sendable (_ received: [[UInt8]], _ open: Set<Int>) -> Bool
  ) async -> (received: [String], stillOpen: Int) {
    await onThreadOfItsOwn {
      let deadline = ContinuousClock.now.advanced(by: limit)
      var received = Array(repeating: [UInt8](), count: connections.count)
      var open = Set(connections.indices)
      while !isDone(received, open), ContinuousClock.now < deadline {
        let waiting = open.sorted()
        var polled = waiting.map {
          pollfd(fd: connections[$0].descriptor, events: Int16(POLLIN), revents: 0)
        }
        let timeout = (deadline - .now).pollTimeout
        guard poll(&polled, nfds_t(polled.count), timeout) > 0 else { continue }
        for (slot, index) in waiting.enumerated() where polled[slot].revents != 0 {
          if !connections[index].readSome(into: &received[index]) {
            open.remove(index)
          }
        }
      }
      return (received.map { String(decoding: $0, as: UTF8.self) }, open.count)
    }
  }

  /// Reads what has arrived, once `poll` has said something did; returns `false` at the end of
  /// the connection, or at an error such as a reset: closed either way.
  private func readSome(into received: inout [UInt8]) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 4_096)
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0 else { return false }
    received += buffer[..<count]
    return true
  }
}

/// Runs `body` on a thread of its own and waits for its result.
///
/// On Linux, a blocked thread of Dispatch's global queues, which Swift's tasks run on too,
/// would hold up the server's tasks until Dispatch noticed and added a thread, a second later;
/// so whatever blocks waiting for the server runs here.
///
/// - Parameter body: What blocks.
/// - Returns: What `body` returns.
func onThreadOfItsOwn<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
  await withCheckedContinuation { continuation in
    Thread.detachNewThread { continuation.resume(returning: body()) }
  }
}

extension Duration {
  /// The duration in whole milliseconds, rounded up, as `poll` takes it; 0 for none left.
  var pollTimeout: Int32 {
    guard self > .zero else { return 0 }
    let (seconds, attoseconds) = components
    return Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1)
  }
}
