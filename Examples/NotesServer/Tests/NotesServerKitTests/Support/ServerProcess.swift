import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `NotesServer` executable, running in a process of its own under an open-file limit the
/// test chooses: a limit lowered inside the test process would be every parallel test's too.
///
/// `swift build --build-tests` and `swift test` build the executable beside the tests.
final class ServerProcess {
  private let process = Process()
  private let output = Pipe()
  /// What the server has printed so far (its log), as far as a wait has read it.
  private(set) var printed = ""

  /// Starts the server on a free port of 127.0.0.1.
  ///
  /// - Parameters:
  ///   - store: Where it keeps its notes: an SQLite file's path or a PostgreSQL URL
  ///     (``TestDatabase/location``).
  ///   - openFiles: The open-file limit (`ulimit -n`) it starts with; the test process's own
  ///     unless given.
  ///   - raisable: Whether only the soft limit is lowered, so that the server may raise it
  ///     again, or the hard limit too.
  ///   - arguments: More command-line arguments.
  ///   - environment: Environment variables to set, beside the test process's own.
  /// - Throws: ``RawConnection/Failure`` when the executable is not built; what starting a
  ///   process throws.
  init(
    store: String, openFiles: Int? = nil, raisable: Bool = false, arguments: [String] = [],
    environment: [String: String] = [:]
  ) throws {
    let executable = Self.productsDirectory.appendingPathComponent("NotesServer").path
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw RawConnection.Failure(description: "no \(executable): run swift build first")
    }
    let ulimit = openFiles.map { "ulimit \(raisable ? "-S " : "")-n \($0) && " } ?? ""
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments =
      ["-c", "\(ulimit)exec \"$0\" \"$@\"", executable, "--port", "0", "--store", store]
      + arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = output
    process.standardError = output
    try process.run()
  }

  deinit {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  }

  /// Whether the server is still running.
  var isRunning: Bool { process.isRunning }

  /// Waits, at most `limit`, until the server says which port it listens on.
  ///
  /// - Parameter limit: How long to wait at most.
  /// - Returns: The port.
  /// - Throws: ``RawConnection/Failure`` when the server has not said it within `limit`.
  func port(within limit: Duration = .seconds(30)) async throws -> Int {
    let marker = "listening on 127.0.0.1:"
    let rest = { @Sendable (printed: String) in
      printed.range(of: marker).map { printed[$0.upperBound...] }
    }
    await read(within: limit) { rest($0)?.contains("\n") == true }
    guard let port = rest(printed).flatMap({ Int($0.prefix { $0.isNumber }) }) else {
      throw RawConnection.Failure(description: "the server named no port; it printed: \(printed)")
    }
    return port
  }

  /// How many files the server has open now below a descriptor number, from `/proc` (Linux
  /// only).
  ///
  /// The server may have inherited files of the test process that are not closed on exec
  /// (SQLite's, of tests running beside this one); those numbered at or past its limit take
  /// none of its room, so only the ones below `limit` are counted.
  ///
  /// - Parameter limit: The server's open-file limit.
  /// - Returns: The number of its open file descriptors below `limit`.
  /// - Throws: What listing `/proc/PID/fd` throws.
  func openFiles(below limit: Int) throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd")
      .count { (Int($0) ?? .max) < limit }
  }

  /// Sends the server a signal.
  ///
  /// - Parameter signal: The signal, such as `SIGTERM`.
  func send(_ signal: Int32) {
    kill(process.processIdentifier, signal)
  }

  /// Waits, at most `limit`, until the server has printed a line that contains `text`.
  ///
  /// - Returns: Whether it did in time.
  func waitForOutput(containing text: String, within limit: Duration = .seconds(30)) async -> Bool {
    await read(within: limit) { $0.contains(text) }
    return printed.contains(text)
  }

  /// Waits, at most `limit`, until the server exits, reading all it prints.
  ///
  /// - Returns: Its exit status, or `nil` if it was still running when `limit` passed or was
  ///   ended by a signal it did not handle.
  func exitStatus(within limit: Duration) async -> Int32? {
    await read(within: limit) { _ in false }
    let process = process
    let exited = await onThreadOfItsOwn {
      let deadline = ContinuousClock.now.advanced(by: .seconds(1))
      while process.isRunning, ContinuousClock.now < deadline { usleep(1_000) }
      return !process.isRunning
    }
    guard exited, process.terminationReason == .exit else { return nil }
    return process.terminationStatus
  }

  /// Stops the server, as an operator's SIGTERM does, and reads all it printed until it exited,
  /// waiting at most `limit`.
  ///
  /// - Parameter limit: How long to wait at most.
  /// - Returns: All the server printed.
  func stop(within limit: Duration = .seconds(30)) async -> String {
    process.terminate()
    await read(within: limit) { _ in false }
    return printed
  }

  /// Reads what the server prints until `isEnough` holds for all it printed, its output ends
  /// (it exited), or `limit` passes.
  private func read(within limit: Duration, until isEnough: @escaping @Sendable (String) -> Bool)
    async
  {
    let descriptor = output.fileHandleForReading.fileDescriptor
    let before = printed
    printed = await onThreadOfItsOwn {
      let deadline = ContinuousClock.now.advanced(by: limit)
      var printed = Array(before.utf8)
      var buffer = [UInt8](repeating: 0, count: 4_096)
      var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      while !isEnough(String(decoding: printed, as: UTF8.self)), ContinuousClock.now < deadline {
        guard poll(&polled, 1, (deadline - .now).pollTimeout) > 0 else { continue }
        let count = buffer.withUnsafeMutableBytes { Self.read(descriptor, $0) }
        guard count > 0 else { break }  // the end: the server has exited
        printed += buffer[..<count]
      }
      return String(decoding: printed, as: UTF8.self)
    }
  }

  private static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    #if canImport(Glibc)
      Glibc.read(descriptor, buffer.baseAddress, buffer.count)
    #else
      Darwin.read(descriptor, buffer.baseAddress, buffer.count)
    #endif
  }

  /// Where SwiftPM puts the package's executables: beside the tests.
  private static var productsDirectory: URL {
    #if os(macOS)
      Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL
        .deletingLastPathComponent() ?? Bundle.main.bundleURL
    #else
      Bundle.main.bundleURL
    #endif
  }
}
