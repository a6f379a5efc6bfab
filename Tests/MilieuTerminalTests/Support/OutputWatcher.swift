@_spi(MilieuInternal) import Milieu

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads what a program writes to a descriptor, keeping all of it, so that a test can wait for
/// one piece of output after another without losing what came in the same read.
final class OutputWatcher: Sendable {
  private let descriptor: Int32
  private let output = Lock<(bytes: [UInt8], searchFrom: Int)>(([], 0))

  init(_ descriptor: Int32) {
    self.descriptor = descriptor
  }

  /// Everything read so far.
  var text: String { String(decoding: output.withLock { $0.bytes }, as: UTF8.self) }

  /// Waits, in poll(2), until `text` is written after the previous match: 30 seconds at most,
  /// which only a loaded machine running a sanitizer ever comes near.
  func waitFor(_ text: String) -> Bool {
    let needle = Array(text.utf8)
    let deadline = ContinuousClock.now + .seconds(30)
    while true {
      let found = output.withLock { output -> Bool in
        guard let end = endOf(needle, in: output.bytes, from: output.searchFrom) else {
          return false
        }
        output.searchFrom = end
        return true
      }
      if found { return true }
      guard ContinuousClock.now < deadline else { return false }
      var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&ready, 1, 100) > 0 else { continue }
      var chunk = [UInt8](repeating: 0, count: 4096)
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { return false }
      output.withLock { $0.bytes += chunk[..<count] }
    }
  }
}
