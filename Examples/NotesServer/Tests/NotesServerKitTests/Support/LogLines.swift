import Logging
import Synchronization

/// What the server's default log handler writes, kept as text: the lines a terminal or a log
/// file would get, control characters and all.
///
/// Its loggers use swift-log's `StreamLogHandler`, the handler `Logger(label:)` uses unless the
/// process bootstraps another, writing here instead of to standard output.
final class LogLines: Sendable {
  private let written = Mutex("")

  /// A logger that writes here as the live server's logger writes to standard output.
  ///
  /// - Parameter level: The lowest level logged.
  /// - Returns: The logger.
  func logger(level: Logger.Level = .info) -> Logger {
    var logger = Logger(label: "NotesServerTests") { label in
      StreamLogHandler(label: label, stream: Stream(lines: self), metadataProvider: .notesRequest)
    }
    logger.logLevel = level
    return logger
  }

  /// Everything written so far.
  var text: String { written.withLock { $0 } }

  /// The lines written so far, without their line breaks.
  var lines: [Substring] { text.split(separator: "\n") }

  private struct Stream: TextOutputStream, Sendable {
    let lines: LogLines

    mutating func write(_ string: String) {
      lines.written.withLock { $0 += string }
    }
  }
}
