/// A place in source code: file, line and column, as the call site's literals spell them.
///
/// Functions that report misuse take the location of their caller as default arguments:
///
/// ```swift
/// func configure(fileID: String = #fileID, filePath: String = #filePath,
///                line: UInt = #line, column: UInt = #column) {
///   let here = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
/// }
/// ```
public struct CallSite: Sendable, Hashable, CustomStringConvertible {
  /// The file, as `#fileID` spells it: `Module/File.swift`.
  public let fileID: String
  /// The file, as `#filePath` spells it; test runners point at it.
  public let filePath: String
  /// The line.
  public let line: UInt
  /// The column.
  public let column: UInt

  /// Creates a location.
  ///
  /// - Parameters:
  ///   - fileID: The `#fileID` of the place.
  ///   - filePath: The `#filePath` of the place.
  ///   - line: The line.
  ///   - column: The column.
  public init(fileID: String, filePath: String, line: UInt, column: UInt) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  /// `Module/File.swift:12`.
  public var description: String { "\(fileID):\(line)" }
}

/// A problem Milieu found in how it is used: what is wrong, what to do, and where.
///
/// Milieu reports misuse a caller can recover from — an alert shown with no host installed, an
/// alert whose buttons break a rule — instead of crashing. The reporter in force decides what a
/// report becomes: a test failure under a test runner, one line on standard error otherwise.
///
/// ```swift
/// let issue = EnvironmentIssue(
///   "showAlert was called, but no alert host is installed. Install one with installAlertHost().",
///   at: CallSite(fileID: #fileID, filePath: #filePath, line: #line, column: #column))
/// ```
public struct EnvironmentIssue: Sendable, Equatable, CustomStringConvertible {
  /// What went wrong and how to fix it.
  public let message: String
  /// The call site the issue is about.
  public let location: CallSite

  /// Creates an issue at a call site.
  ///
  /// - Parameters:
  ///   - message: What went wrong and how to fix it.
  ///   - location: The call site the issue is about.
  public init(_ message: String, at location: CallSite) {
    self.message = message
    self.location = location
  }

  /// `App/Main.swift:12: <message>`, the one line that standard error receives.
  public var description: String { "\(location): \(message)" }
}

/// Where ``EnvironmentIssue``s go.
///
/// The reporter is an environment value, so a subtree — a test's scope, say — can route its
/// issues elsewhere:
///
/// ```swift
/// let scope = EnvironmentNode.current.child {
///   $0.issueReporter = IssueReporter { issue in print("caught:", issue) }
/// }
/// ```
///
/// The default, ``automatic``, follows one rule: in a binary that links `MilieuTesting`, an issue
/// reported while a Swift Testing test or an XCTest case runs fails that test; anywhere else it
/// is one `warning:` line on standard error.
///
/// Link `MilieuTesting` into your test target and nothing else is needed: it connects itself
/// when the test binary is loaded, before any test runs, so the first issue of the process fails
/// its test as surely as the last. A production binary does not link it, and so links neither
/// Testing nor XCTest.
public struct IssueReporter: Sendable {
  private let body: @Sendable (EnvironmentIssue) -> Void

  /// Creates a reporter from a closure.
  ///
  /// ```swift
  /// let logging = IssueReporter { issue in logger.error("\(issue)") }
  /// ```
  ///
  /// - Parameter report: Receives each issue.
  public init(_ report: @escaping @Sendable (EnvironmentIssue) -> Void) {
    body = report
  }

  /// Reports an issue.
  ///
  /// - Parameter issue: The issue.
  public func report(_ issue: EnvironmentIssue) {
    LockAudit.assertNoneHeld("an issue is reported")
    body(issue)
  }

  /// Writes each issue as one line to standard error: `warning: File.swift:12: message`.
  public static let standardError = IssueReporter { issue in
    writeToStandardError(standardErrorLine(for: issue))
  }

  /// The line ``standardError`` writes: one line, with the control characters of any text the
  /// message quotes made visible and inert, so that a title cannot drive the terminal.
  static func standardErrorLine(for issue: EnvironmentIssue) -> String {
    "warning: " + DiagnosticText.neutralised("\(issue)", lineBreak: " ") + "\n"
  }

  /// Fails the running test in a binary that links `MilieuTesting`; else ``standardError``.
  ///
  /// ```swift
  /// let app = EnvironmentNode("app")
  /// let request = app.child { $0.issueReporter = .automatic }  // back to the default
  /// ```
  public static let automatic = IssueReporter { issue in
    (testRunner.withLock { $0 } ?? standardError).report(issue)
  }

  /// The reporter `MilieuTesting` connects for the whole process when its binary is loaded.
  private static let testRunner = Lock<IssueReporter?>(nil)

  /// Connects a test runner's reporter; ``automatic`` uses it from then on.
  package static func connectTestRunner(_ reporter: IssueReporter) {
    testRunner.withLock { $0 = reporter }
  }
}

extension EnvironmentValues {
  static let issueReporter = Entry(IssueReporter.automatic)
  /// Where Milieu reports misuse found in this subtree; ``IssueReporter/automatic`` by default.
  ///
  /// ```swift
  /// let quiet = app.child { $0.issueReporter = IssueReporter { _ in } }
  /// ```
  public var issueReporter: IssueReporter {
    get { self[Self.issueReporter] }
    set { self[Self.issueReporter] = newValue }
  }
}

/// Reports an issue through the current node's ``EnvironmentValues/issueReporter``.
///
/// ```swift
/// reportIssue("retries must be positive; got \(retries). Pass 1 or more.")
/// ```
///
/// - Parameters:
///   - message: What went wrong and how to fix it.
///   - fileID: The call site's file; leave the default.
///   - filePath: The call site's path; leave the default.
///   - line: The call site's line; leave the default.
///   - column: The call site's column; leave the default.
public func reportIssue(
  _ message: String, fileID: String = #fileID, filePath: String = #filePath,
  line: UInt = #line, column: UInt = #column
) {
  EnvironmentNode.current[\.issueReporter].report(
    EnvironmentIssue(
      message,
      at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)))
}
