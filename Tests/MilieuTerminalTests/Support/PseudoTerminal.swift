@_spi(MilieuInternal) import Milieu
import Synchronization

@testable import MilieuTerminal

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A pseudo-terminal pair for tests: `terminal` is what a program sees as its terminal,
/// `controller` is the other end, where the test types keys and reads what was drawn.
struct PseudoTerminal: Sendable {
  let controller: Int32
  let terminal: Int32

  struct SetupError: Error, CustomStringConvertible {
    var step: String
    var code: Int32
    var description: String { "\(step) failed (errno \(code))" }
  }

  init(columns: Int = 0, rows: Int = 0) throws {
    controller = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard controller >= 0 else { throw SetupError(step: "open /dev/ptmx", code: errno) }
    // unlockpt() and ptsname() are not imported into Swift, so use their ioctls directly.
    var unlock: Int32 = 0
    var number: UInt32 = 0
    let unlockRequest: UInt = 0x4004_5431  // TIOCSPTLCK
    let numberRequest: UInt = 0x8004_5430  // TIOCGPTN
    guard ioctl(controller, unlockRequest, &unlock) == 0,
      ioctl(controller, numberRequest, &number) == 0
    else {
      let code = errno
      _ = Glibc.close(controller)
      throw SetupError(step: "unlock pseudo-terminal", code: code)
    }
    terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard terminal >= 0 else {
      let code = errno
      _ = Glibc.close(controller)
      throw SetupError(step: "open /dev/pts/\(number)", code: code)
    }
    if columns > 0 { resize(columns: columns, rows: rows) }
  }

  func resize(columns: Int, rows: Int) {
    var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(controller, UInt(TIOCSWINSZ), &size)
  }

  func attributes() -> termios {
    var attributes = termios()
    _ = tcgetattr(terminal, &attributes)
    return attributes
  }

  func close() {
    _ = Glibc.close(terminal)
    _ = Glibc.close(controller)
  }

  /// A `Terminal` that draws on this pseudo-terminal without colour and returns an interrupt as
  /// an answer instead of raising it again, as the interactive tests need.
  func makeTerminal() -> Terminal {
    Terminal(
      input: terminal, output: terminal, colorPolicy: .never,
      interruptBehavior: .returnInterrupted)
  }
}

/// Plays the user's side of a pseudo-terminal on a thread of its own: waits for output, types
/// keys, resizes the window, always draining what the program writes so that it never blocks.
final class TerminalUser: Sendable {
  enum Step: Sendable {
    /// Wait until this text appears in the output after the previous wait's match.
    case waitFor(String)
    case type([UInt8])
    case resize(columns: Int)
    /// Send this signal to the process.
    case signal(Int32)
    /// Hang up: the controlling side is replaced by /dev/null, which closes it while keeping its
    /// descriptor number taken, so no other test can get it meanwhile.
    case hangUp
  }

  private let pseudoTerminal: PseudoTerminal
  private let steps: [Step]
  private let output = Lock<[UInt8]>([])
  private let finished = Atomic<Bool>(false)
  private let failures = Lock<[String]>([])

  init(_ pseudoTerminal: PseudoTerminal, steps: [Step]) {
    self.pseudoTerminal = pseudoTerminal
    self.steps = steps
  }

  /// Runs `program` on the calling thread while the user plays the steps on another; returns
  /// what `program` returned, everything written to the terminal, and any step that timed out.
  static func run<Result>(
    _ pseudoTerminal: PseudoTerminal, steps: [Step], program: () throws -> Result
  ) rethrows -> (result: Result, output: String, failures: [String]) {
    let user = TerminalUser(pseudoTerminal, steps: steps)
    let thread = startThread { user.play() }
    let result: Result
    do {
      result = try program()
    } catch {
      user.finished.store(true, ordering: .releasing)
      _ = thread.map { pthread_join($0, nil) }
      throw error
    }
    user.finished.store(true, ordering: .releasing)
    _ = thread.map { pthread_join($0, nil) }
    let bytes = user.output.withLock { $0 }
    return (result, String(decoding: bytes, as: UTF8.self), user.failures.withLock { $0 })
  }

  private func play() {
    var searchFrom = 0
    for step in steps {
      switch step {
      case .waitFor(let text):
        let needle = Array(text.utf8)
        var waited = 0
        while true {
          if let end = output.withLock({ endOf(needle, in: $0, from: searchFrom) }) {
            searchFrom = end
            break
          }
          if waited > 30_000 || finished.load(ordering: .acquiring) {
            failures.withLock { $0.append("timed out waiting for \(text.debugDescription)") }
            // Unblock the program: end of input makes every alert finish.
            type([0x04])
            drainUntilFinished()
            return
          }
          drain(waitingUpTo: 20)
          waited += 20
        }
      case .type(let bytes):
        type(bytes)
      case .hangUp:
        let null = open("/dev/null", O_RDWR)
        _ = dup2(null, pseudoTerminal.controller)
        _ = close(null)
      case .resize(let columns):
        pseudoTerminal.resize(columns: columns, rows: 24)
        kill(getpid(), SIGWINCH)
      case .signal(let signal):
        kill(getpid(), signal)
      }
    }
    drainUntilFinished()
  }

  private func type(_ bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes { write(pseudoTerminal.controller, $0.baseAddress, $0.count) }
  }

  private func drainUntilFinished() {
    while !finished.load(ordering: .acquiring) { drain(waitingUpTo: 10) }
    drain(waitingUpTo: 0)
  }

  private func drain(waitingUpTo milliseconds: Int32) {
    var descriptor = pollfd(fd: pseudoTerminal.controller, events: Int16(POLLIN), revents: 0)
    var timeout = milliseconds
    while poll(&descriptor, 1, timeout) > 0 {
      var buffer = [UInt8](repeating: 0, count: 4096)
      let count = buffer.withUnsafeMutableBytes {
        read(pseudoTerminal.controller, $0.baseAddress, $0.count)
      }
      guard count > 0 else { return }
      output.withLock { $0 += buffer[..<count] }
      timeout = 0
    }
  }
}

/// Starts a joinable POSIX thread running `body`.
func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
  final class Box {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }
  let context = Unmanaged.passRetained(Box(body)).toOpaque()
  var thread = pthread_t()
  let result = pthread_create(
    &thread, nil,
    { context in
      guard let context else { return nil }
      Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
      return nil
    }, context)
  guard result == 0 else {
    Unmanaged<Box>.fromOpaque(context).release()
    return nil
  }
  return thread
}

extension termios {
  /// The flags that raw mode changes, for comparing before and after.
  var modeFlags: [UInt32] { [UInt32(c_iflag), UInt32(c_oflag), UInt32(c_cflag), UInt32(c_lflag)] }
}

/// Where the first occurrence of `needle` at or after `start` in `haystack` ends, or `nil`.
func endOf(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
  guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
  var index = start
  while index + needle.count <= haystack.count {
    if haystack[index..<(index + needle.count)].elementsEqual(needle) {
      return index + needle.count
    }
    index += 1
  }
  return nil
}
