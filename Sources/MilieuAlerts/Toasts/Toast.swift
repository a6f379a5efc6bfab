import Milieu

/// A short message that shows for a while and goes away on its own.
///
/// Toasts are the second kind of item a ``PresentationHost`` presents: several queue, each is
/// shown in turn, and each expires after its ``duration`` on the host's clock.
///
/// ```swift
/// showToast("Saved 3 notes", style: .success)
/// ```
public struct Toast: Presentable, CallSiteProviding {
  /// How a toast looks.
  public enum Style: String, Sendable, CaseIterable {
    /// Neutral news.
    case info
    /// Something worked.
    case success
    /// Something needs attention.
    case warning
    /// Something failed.
    case error
  }

  /// How a toast ended on its own.
  public enum Ending: Sendable, Equatable, CustomStringConvertible {
    /// Its duration ran out.
    case expired

    /// `expired`.
    public var description: String { "expired" }
  }

  /// How long a toast shows unless told otherwise: three seconds.
  public static let defaultDuration = Duration.seconds(3)

  /// The duration of a toast that stays until it is dismissed, replaced or withdrawn: it has no
  /// ``lifetime`` and never expires.
  ///
  /// ```swift
  /// let offline = Toast("You are offline", style: .warning, duration: Toast.forever)
  /// toasts.show(offline)
  /// // later, when the connection is back:
  /// try toasts.dismiss(offline)
  /// ```
  ///
  /// Its value is the largest `.seconds(Int64.max)`; every duration at least that long means
  /// forever too. A toast that stays blocks the toasts queued behind it until it goes.
  public static let forever = Duration.seconds(Int64.max)

  /// The longest duration a toast is timed for: 100 years.
  ///
  /// A clock cannot time every `Duration` (`ContinuousClock` traps past a few hundred billion
  /// years), so a longer duration, short of ``forever``, is reported and the toast shows until it
  /// is dismissed, as with ``forever``.
  public static let longestTimedDuration = presentableLongestLifetime

  /// The toast's identity, unique in the process.
  public let id: PresentationID
  /// The text.
  public let message: String
  /// How the toast looks.
  public let style: Style
  /// How long the toast shows once presented.
  public let duration: Duration
  /// Toasts with the same key are duplicates: a deduplicating host shows only the first.
  public let deduplicationKey: String?
  /// Where the toast was made.
  public let callSite: CallSite

  /// Makes a toast. A duration that is not positive is reported and replaced by
  /// ``defaultDuration``; one longer than ``longestTimedDuration`` is reported and replaced by
  /// ``forever``, unless it is at least ``forever`` already.
  ///
  /// ```swift
  /// let toast = Toast("Copied", style: .info, duration: .seconds(1))
  /// ```
  ///
  /// - Parameters:
  ///   - message: The text.
  ///   - style: How the toast looks.
  ///   - duration: How long it shows once presented.
  ///   - deduplicationKey: Toasts with the same key are duplicates.
  ///   - fileID: The call site; leave the default.
  ///   - filePath: The call site; leave the default.
  ///   - line: The call site; leave the default.
  ///   - column: The call site; leave the default.
  public init(
    _ message: String, style: Style = .info, duration: Duration = Toast.defaultDuration,
    deduplicationKey: String? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    let callSite = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    id = PresentationID()
    self.message = message
    self.style = style
    self.deduplicationKey = deduplicationKey
    self.callSite = callSite
    if duration >= Self.forever {
      self.duration = Self.forever
    } else if duration > Self.longestTimedDuration {
      self.duration = Self.forever
      EnvironmentNode.current[\.issueReporter].report(
        EnvironmentIssue(
          "a toast made at \(callSite) has the duration \(duration), longer than the longest a "
            + "toast is timed for (\(Self.longestTimedDuration)); it shows until it is dismissed. "
            + "Fix: pass `Toast.forever` for a toast that stays, or a shorter duration.",
          at: callSite))
    } else if duration > .zero {
      self.duration = duration
    } else {
      self.duration = Self.defaultDuration
      EnvironmentNode.current[\.issueReporter].report(
        EnvironmentIssue(
          "a toast made at \(callSite) has the duration \(duration), which is not positive; it "
            + "shows for \(Self.defaultDuration) instead. Fix: pass a positive duration.",
          at: callSite))
    }
  }

  /// The message.
  public var title: String { message }
  /// A toast lasts its ``duration``; a toast shown ``forever`` has no lifetime.
  public var lifetime: Duration? { duration < Self.forever ? duration : nil }
  /// A toast ends as ``Ending/expired``.
  public var expiryAnswer: Ending? { .expired }

  /// Every ending belongs to every toast.
  ///
  /// - Parameter answer: The ending.
  /// - Returns: `true`.
  public func isValid(_ answer: Ending) -> Bool { true }

  /// Toasts run no action.
  ///
  /// - Parameter answer: The ending.
  /// - Returns: `nil`.
  public func action(for answer: Ending?) -> (@Sendable () async -> Void)? { nil }
}

/// The host that shows toasts one after the other, each for its duration.
public typealias ToastHost = PresentationHost<Toast>

/// How a toast was resolved: expired, dismissed, or dropped with a reason.
public typealias ToastOutcome = PresentationOutcome<Toast.Ending>
