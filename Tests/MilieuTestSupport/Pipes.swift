import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Opens a pipe: what is written to `write` is read from `read`.
///
/// ```swift
/// let (read, write) = try makePipe()
/// ```
public func makePipe() throws -> (read: Int32, write: Int32) {
  var descriptors: [Int32] = [0, 0]
  try #require(pipe(&descriptors) == 0)
  return (descriptors[0], descriptors[1])
}

/// Reads `descriptor` to its end.
public func readAll(_ descriptor: Int32) -> String {
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 4096)
  while true {
    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    if count <= 0 { break }
    bytes += chunk[..<count]
  }
  return String(decoding: bytes, as: UTF8.self)
}

/// Reads `descriptor` until `text` appears, waiting in poll(2): 30 seconds at most, which only
/// a loaded machine running a sanitizer ever comes near.
public func waitForOutput(_ descriptor: Int32, containing text: String) -> Bool {
  var output: [UInt8] = []
  let deadline = ContinuousClock.now + .seconds(30)
  while ContinuousClock.now < deadline {
    var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    let left = deadline - ContinuousClock.now
    let milliseconds = max(1, Int32(left.components.seconds * 1_000 + 1))
    guard poll(&ready, 1, milliseconds) > 0 else { continue }
    var chunk = [UInt8](repeating: 0, count: 4096)
    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0 else { return false }
    output += chunk[..<count]
    if String(decoding: output, as: UTF8.self).contains(text) { return true }
  }
  return false
}
