#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Blocking reads and writes on raw file descriptors, retrying interrupted calls.
enum FileDescriptorIO {
  /// What waiting for input found.
  enum Readiness {
    case ready
    case timedOut
    case interrupted
    case cancelled
  }

  /// What reading a line found.
  enum LineResult {
    case line(String)
    case endOfInput
    case cancelled
  }

  /// Writes all of `text` to `fileDescriptor`.
  static func write(_ text: String, to fileDescriptor: Int32) throws(TerminalError) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { buffer in
        systemWrite(fileDescriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
      }
      if written > 0 {
        offset += written
      } else if written < 0 && errno == EINTR {
        continue
      } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
        var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLOUT), revents: 0)
        _ = poll(&descriptor, 1, 100)
      } else {
        throw .fromErrno("write")
      }
    }
  }

  /// Waits up to `timeout` milliseconds (-1: forever) for `fileDescriptor` to have input, end
  /// of input or an error to report, or for `cancellation` to become readable.
  static func waitForInput(
    _ fileDescriptor: Int32, cancellation: Int32?, timeout: Int32
  ) throws(TerminalError) -> Readiness {
    // poll(2) skips negative descriptors, and would then wait for nothing.
    guard fileDescriptor >= 0 else { throw TerminalError(operation: "poll", code: EBADF) }
    var descriptors = [pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)]
    if let cancellation {
      descriptors.append(pollfd(fd: cancellation, events: Int16(POLLIN), revents: 0))
    }
    let result = poll(&descriptors, nfds_t(descriptors.count), timeout)
    if result > 0 {
      return descriptors.count > 1 && descriptors[1].revents != 0 ? .cancelled : .ready
    }
    if result == 0 { return .timedOut }
    if errno == EINTR || errno == EAGAIN { return .interrupted }
    throw .fromErrno("poll")
  }

  /// Reads up to `maximum` bytes: `nil` at end of input, an empty array when interrupted.
  static func read(_ fileDescriptor: Int32, maximum: Int) throws(TerminalError) -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: maximum)
    let count = buffer.withUnsafeMutableBytes {
      systemRead(fileDescriptor, $0.baseAddress, maximum)
    }
    if count > 0 { return Array(buffer[..<count]) }
    if count == 0 { return nil }
    if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { return [] }
    if errno == EIO { return nil }  // the terminal went away: treat as end of input
    throw .fromErrno("read")
  }

  /// Reads one line, a byte at a time so that nothing after it is consumed.
  ///
  /// Returns the line without its terminator (the last line may lack one), or end of input, or
  /// cancellation once `cancellation` becomes readable. Bytes past `limit` are read and dropped.
  static func readLine(
    _ fileDescriptor: Int32, limit: Int, cancellation: Int32?
  ) throws(TerminalError) -> LineResult {
    var line: [UInt8] = []
    var byte: UInt8 = 0
    var sawAnything = false
    while true {
      if cancellation != nil {
        switch try waitForInput(fileDescriptor, cancellation: cancellation, timeout: -1) {
        case .cancelled: return .cancelled
        case .interrupted, .timedOut: continue
        case .ready: break
        }
      }
      let count = systemRead(fileDescriptor, &byte, 1)
      if count == 1 {
        sawAnything = true
        if byte == UInt8(ascii: "\n") { break }
        if line.count < limit { line.append(byte) }
      } else if count == 0 {
        if !sawAnything { return .endOfInput }
        break
      } else if errno == EINTR {
        continue
      } else if errno == EAGAIN || errno == EWOULDBLOCK {
        _ = try waitForInput(fileDescriptor, cancellation: nil, timeout: -1)
      } else {
        throw .fromErrno("read")
      }
    }
    return .line(String(decoding: line, as: UTF8.self))
  }
}

private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
  write(fd, bytes, count)
}

private func systemRead(_ fd: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
  read(fd, bytes, count)
}
