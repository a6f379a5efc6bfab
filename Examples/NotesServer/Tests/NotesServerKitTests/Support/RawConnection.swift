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
      let count = bytes[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { throw Failure(description: "write: errno \(errno)") }
      sent += count
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
