import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Opens a pipe: what is written to `write` is read from `read`.
///
/// Both ends close on exec, so that a process another test starts meanwhile does not inherit
/// them: tests run in parallel, and a child holding a pipe's write end keeps the reader from ever
/// seeing the end of it. A child that should have an end gets it with
/// `posix_spawn_file_actions_adddup2`, which makes a copy that stays open.
///
/// ```swift
/// let (read, write) = try makePipe()
/// ```
public func makePipe() throws -> (read: Int32, write: Int32) {
  var descriptors: [Int32] = [0, 0]
  // Glibc's module does not offer pipe2(2), which would make and mark them at once; the lock
  // keeps `spawnProcess` from starting a child between the two steps.
  let failure: Int32? = withDescriptorLock {
    guard pipe(&descriptors) == 0 else { return errno }
    for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    return nil
  }
  try #require(failure == nil, "pipe(2) failed with errno \(failure ?? 0)")
  return (descriptors[0], descriptors[1])
}

/// Starts a process, as `posix_spawn(3)` does, at a moment when no test is making a pipe: see
/// ``makePipe()``.
public func spawnProcess(
  _ pid: inout pid_t, _ path: String, _ actions: inout posix_spawn_file_actions_t,
  _ argv: [UnsafeMutablePointer<CChar>?], _ envp: [UnsafeMutablePointer<CChar>?]
) -> Int32 {
  withDescriptorLock { posix_spawn(&pid, path, &actions, nil, argv, envp) }
}

/// Guards the moment between making a descriptor and marking it close-on-exec.
nonisolated(unsafe) private let descriptorLock: UnsafeMutablePointer<pthread_mutex_t> = {
  let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  pthread_mutex_init(lock, nil)
  return lock
}()

private func withDescriptorLock<Result>(_ body: () -> Result) -> Result {
  pthread_mutex_lock(descriptorLock)
  defer { pthread_mutex_unlock(descriptorLock) }
  return body()
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
