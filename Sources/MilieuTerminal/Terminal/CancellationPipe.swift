#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A pipe whose read end becomes readable when a task is cancelled, waking a thread blocked in
/// `poll(2)` on it.
struct CancellationPipe: Sendable {
  /// The end to poll.
  let readEnd: Int32
  private let writeEnd: Int32

  /// Opens the pipe.
  ///
  /// - Throws: ``TerminalError`` if the pipe cannot be created.
  init() throws(TerminalError) {
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else { throw .fromErrno("pipe") }
    for descriptor in descriptors {
      _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }
    readEnd = descriptors[0]
    writeEnd = descriptors[1]
  }

  /// Makes the read end readable.
  ///
  /// Safe to call from any thread, more than once.
  func signal() {
    var byte: UInt8 = 1
    _ = write(writeEnd, &byte, 1)
  }

  /// Whether the read end is readable: the pipe was signalled.
  var isSignalled: Bool {
    var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
    return poll(&descriptor, 1, 0) > 0
  }

  /// Closes both ends; call once nothing polls or signals any more.
  func close() {
    _ = closeDescriptor(readEnd)
    _ = closeDescriptor(writeEnd)
  }
}

private func closeDescriptor(_ descriptor: Int32) -> Int32 {
  close(descriptor)
}
