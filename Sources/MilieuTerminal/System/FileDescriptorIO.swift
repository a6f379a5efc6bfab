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
  enum LineResult: Equatable {
    case line(String)
    /// A line longer than the limit, whose bytes were read and dropped.
    case tooLong(byteCount: Int)
    case endOfInput
    case cancelled
  }

  /// The most bytes taken from a descriptor in one read while reading a line.
  static let lineBlockSize = 64 * 1024

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

  /// Reads one line, in blocks.
  ///
  /// Returns the line without its terminator (the last line may lack one), a line longer than
  /// `limit` bytes as ``LineResult/tooLong(byteCount:)`` (read to its end and dropped, never
  /// kept whole), end of input, or cancellation once `cancellation` becomes readable.
  ///
  /// Nothing after the line is lost: the bytes read past it are given back to a file by seeking,
  /// and kept for the next call on the descriptor otherwise (see ``ReadAhead``), so that answers
  /// queued in a pipe are read one per alert.
  static func readLine(
    _ fileDescriptor: Int32, limit: Int, cancellation: Int32?
  ) throws(TerminalError) -> LineResult {
    var line: [UInt8] = []
    var length = 0
    var sawAnything = false
    var block = ReadAhead.take(fileDescriptor)
    while true {
      if !block.isEmpty {
        sawAnything = true
        let end = block.firstIndex(of: UInt8(ascii: "\n"))
        let content = block[..<(end ?? block.endIndex)]
        length += content.count
        if line.count <= limit { line += content.prefix(limit + 1 - line.count) }
        if let end {
          ReadAhead.giveBack(block[(end + 1)...], to: fileDescriptor)
          break
        }
      }
      if cancellation != nil {
        switch try waitForInput(fileDescriptor, cancellation: cancellation, timeout: -1) {
        case .cancelled:
          block = []
          return .cancelled
        case .interrupted, .timedOut:
          block = []
          continue
        case .ready: break
        }
      }
      block = [UInt8](repeating: 0, count: lineBlockSize)
      let count = block.withUnsafeMutableBytes {
        systemRead(fileDescriptor, $0.baseAddress, $0.count)
      }
      if count > 0 {
        block.removeSubrange(count...)
      } else if count == 0 {
        if !sawAnything { return .endOfInput }
        break
      } else if errno == EINTR {
        block = []
      } else if errno == EAGAIN || errno == EWOULDBLOCK {
        block = []
        _ = try waitForInput(fileDescriptor, cancellation: nil, timeout: -1)
      } else {
        throw .fromErrno("read")
      }
    }
    if length > limit { return .tooLong(byteCount: length) }
    return .line(String(decoding: line, as: UTF8.self))
  }
}

private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
  write(fd, bytes, count)
}

private func systemRead(_ fd: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
  read(fd, bytes, count)
}
