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
  /// The wait blocks a thread of its own: on Linux, a blocked thread of Dispatch's global
  /// queues, which Swift's tasks run on too, would hold up the server's tasks until Dispatch
  /// noticed and added a thread, a second later.
  ///
  /// - Parameters:
  ///   - connections: The connections.
  ///   - limit: How long to wait at most.
  /// - Returns: What each connection received before its end, in order, and how many were still
  ///   open when the limit passed.
  static func waitUntilClosed(
    _ connections: [RawConnection], within limit: Duration
  ) async -> (received: [String], stillOpen: Int) {
    await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        continuation.resume(returning: readUntilClosed(connections, within: limit))
      }
    }
  }

  private static func readUntilClosed(
    _ connections: [RawConnection], within limit: Duration
  ) -> (received: [String], stillOpen: Int) {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: limit)
    var received = Array(repeating: [UInt8](), count: connections.count)
    var open = Set(connections.indices)
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while !open.isEmpty, clock.now < deadline {
      let waiting = open.sorted()
      var polled = waiting.map {
        pollfd(fd: connections[$0].descriptor, events: Int16(POLLIN), revents: 0)
      }
      let (seconds, attoseconds) = (deadline - clock.now).components
      let milliseconds = Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1)
      guard poll(&polled, nfds_t(polled.count), milliseconds) > 0 else { continue }
      for (slot, index) in waiting.enumerated() where polled[slot].revents != 0 {
        let count = buffer.withUnsafeMutableBytes {
          read(connections[index].descriptor, $0.baseAddress, $0.count)
        }
        if count > 0 {
          received[index] += buffer[..<count]
        } else {
          open.remove(index)  // the end, or an error such as a reset: closed either way
        }
      }
    }
    return (received.map { String(decoding: $0, as: UTF8.self) }, open.count)
  }
}
