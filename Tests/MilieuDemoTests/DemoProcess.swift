import MilieuTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What one run of the built `milieu-demo` did.
struct DemoRun: CustomStringConvertible {
  /// The exit status, or 128 + the signal's number if a signal ended it.
  var status: Int32
  var standardOutput: String
  var standardError: String

  /// Standard output, line by line.
  var lines: [String] {
    standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  /// Standard output's lines that report an outcome, in order: those that end like one.
  var outcomeLines: [String] {
    lines.filter { line in
      line.hasSuffix(": dismissed") || line.hasSuffix(": expired")
        || line.contains(": tapped ") || line.contains(": dropped (")
    }
  }

  var description: String {
    "exit status \(status)\n--- standard output:\n\(standardOutput)"
      + "--- standard error:\n\(standardError)"
  }
}

/// Runs the demo binary that `swift build` put next to this test bundle.
enum Demo {
  /// Where the binary is: in the build products folder of the running test bundle.
  static let path: String = {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let bundle =
      count > 0
      ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      : CommandLine.arguments[0]
    let folder = bundle[..<(bundle.lastIndex(of: "/") ?? bundle.startIndex)]
    return folder + "/milieu-demo"
  }()

  /// Runs the demo with `arguments`, `input` on its standard input (then end of input), no
  /// colour and 80 columns, and waits for it to end — at most 60 seconds, after which it is
  /// killed and the test fails.
  ///
  /// - Parameters:
  ///   - arguments: The command line, without the program's name.
  ///   - input: What standard input reads.
  ///   - inputPath: A file to open as standard input instead of `input`.
  ///   - outputToFile: Whether standard output is a new file, read once the demo has ended,
  ///     instead of a pipe read while it runs.
  ///   - sourceLocation: Where failures are reported.
  /// - Returns: The exit status and everything written.
  /// - Throws: When the demo cannot be started; the test has failed with the reason.
  static func run(
    _ arguments: [String], input: String = "", inputPath: String? = nil,
    outputToFile: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> DemoRun {
    guard access(path, X_OK) == 0 else {
      Issue.record(
        """
        The demo binary is missing at \(path). These tests run the built `milieu-demo`: run \
        `swift build` (or `swift test`, which builds every product) first.
        """, sourceLocation: sourceLocation)
      throw MissingDemo()
    }
    let standardInput = try makePipe()
    let standardOutput = try makePipe()
    let standardError = try makePipe()

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let inputPath {
      posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
    } else {
      posix_spawn_file_actions_adddup2(&actions, standardInput.read, 0)
    }
    // The file, if any, is opened by the child alone: no descriptor of this process refers to it.
    let outputPath =
      outputToFile
      ? "/tmp/milieu-demo-output-\(getpid())-\(UInt64.random(in: 0...UInt64.max))" : nil
    if let outputPath {
      posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    } else {
      posix_spawn_file_actions_adddup2(&actions, standardOutput.write, 1)
    }
    posix_spawn_file_actions_adddup2(&actions, standardError.write, 2)
    // The pipes' own descriptors close on exec (see `makePipe`); the child keeps only the copies.

    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let overrides = ["NO_COLOR=1", "COLUMNS=80"]
    var environment = overrides
    var cursor = environ
    while let entry = cursor.pointee {
      let variable = String(cString: entry)
      if !variable.hasPrefix("NO_COLOR=") && !variable.hasPrefix("COLUMNS=") {
        environment.append(variable)
      }
      cursor += 1
    }
    let envp = environment.map { strdup($0) } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }

    var pid = pid_t()
    let spawned = spawnProcess(&pid, path, &actions, argv, envp)
    for descriptor in [standardInput.read, standardOutput.write, standardError.write] {
      close(descriptor)
    }
    guard spawned == 0 else {
      for descriptor in [standardInput.write, standardOutput.read, standardError.read] {
        close(descriptor)
      }
      Issue.record("could not start \(path): errno \(spawned)", sourceLocation: sourceLocation)
      throw MissingDemo()
    }

    _ = Array(input.utf8).withUnsafeBytes {
      write(standardInput.write, $0.baseAddress, $0.count)
    }
    close(standardInput.write)
    let (output, error, finished) = readBoth(standardOutput.read, standardError.read)
    close(standardOutput.read)
    close(standardError.read)
    if !finished {
      kill(pid, SIGKILL)
      Issue.record(
        "milieu-demo \(arguments.joined(separator: " ")) did not end within 60 seconds",
        sourceLocation: sourceLocation)
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    guard let outputPath else {
      return DemoRun(status: exitStatus, standardOutput: output, standardError: error)
    }
    defer { unlink(outputPath) }
    let file = open(outputPath, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else {
      Issue.record("the demo wrote no output file: errno \(errno)", sourceLocation: sourceLocation)
      return DemoRun(status: exitStatus, standardOutput: "", standardError: error)
    }
    defer { close(file) }
    return DemoRun(status: exitStatus, standardOutput: readAll(file), standardError: error)
  }

  struct MissingDemo: Error {}

  /// Reads two descriptors to their ends, waiting in poll(2), for 60 seconds at most.
  private static func readBoth(
    _ first: Int32, _ second: Int32
  ) -> (String, String, finished: Bool) {
    var buffers: [[UInt8]] = [[], []]
    var open = [true, true]
    let deadline = ContinuousClock.now + .seconds(60)
    while open.contains(true) && ContinuousClock.now < deadline {
      var descriptors = [first, second].enumerated().map { index, descriptor in
        pollfd(fd: open[index] ? descriptor : -1, events: Int16(POLLIN), revents: 0)
      }
      guard poll(&descriptors, 2, 1_000) > 0 else { continue }
      for index in 0..<2 where descriptors[index].revents != 0 {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes {
          read(descriptors[index].fd, $0.baseAddress, $0.count)
        }
        if count > 0 {
          buffers[index] += chunk[..<count]
        } else if count == 0 || errno != EINTR {
          open[index] = false
        }
      }
    }
    return (
      String(decoding: buffers[0], as: UTF8.self), String(decoding: buffers[1], as: UTF8.self),
      !open.contains(true)
    )
  }
}
