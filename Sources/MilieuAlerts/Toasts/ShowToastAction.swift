import Milieu

/// Shows a toast from anywhere: the callable value at `EnvironmentValues.showToast`.
///
/// ```swift
/// struct Exporter {
///   @Environment(\.showToast) var showToast
///   func export() { showToast("Exported 12 notes", style: .success) }
/// }
/// ```
///
/// With no host installed, the default action reports the call site and drops the toast as
/// ``DropReason/noHost``. Read through `@Environment`, the action reports to the node it was
/// read from, whichever node is current when it is called.
public struct ShowToastAction: Sendable {
  package let engine: PresentationAction<Toast>

  package init(engine: PresentationAction<Toast>) {
    self.engine = engine
  }

  /// An action that hands every toast to a closure, which resolves it by calling `resolve`.
  ///
  /// - Parameter handler: Receives each toast and a function that resolves it.
  public init(
    _ handler:
      @escaping @Sendable (
        _ toast: Toast, _ resolve: @escaping @Sendable (ToastOutcome) -> Void
      ) -> Void
  ) {
    engine = PresentationAction(handler: handler)
  }

  /// An action that shows toasts in a host, which it holds weakly.
  ///
  /// - Parameter host: The host.
  public init(host: ToastHost) {
    engine = PresentationAction(host: host)
  }

  /// The action in force where no host is installed: it reports the call site and drops the
  /// toast as ``DropReason/noHost``.
  public static let noHost = ShowToastAction(
    engine: .noHost(
      "The toast", entry: "\\.showToast",
      install: "Install a host with `node.installToastHost()` on your root node."))

  /// Shows a toast.
  ///
  /// - Parameters:
  ///   - message: The text.
  ///   - style: How the toast looks.
  ///   - duration: How long it shows once presented.
  ///   - fileID: The call site; leave the default.
  ///   - filePath: The call site; leave the default.
  ///   - line: The call site; leave the default.
  ///   - column: The call site; leave the default.
  public func callAsFunction(
    _ message: String, style: Toast.Style = .info, duration: Duration = Toast.defaultDuration,
    fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    engine(
      engine.inNode {
        Toast(
          message, style: style, duration: duration, fileID: fileID, filePath: filePath,
          line: line, column: column)
      })
  }

  /// Shows a toast made beforehand.
  ///
  /// - Parameter toast: The toast.
  public func callAsFunction(_ toast: Toast) {
    engine(toast)
  }

  /// Shows a toast and waits until it is gone.
  ///
  /// - Parameter toast: The toast.
  /// - Returns: How the toast was resolved.
  public func ask(_ toast: Toast) async -> ToastOutcome {
    await engine.ask(toast)
  }
}

extension EnvironmentValues {
  static let showToast = Entry(ShowToastAction.noHost)

  /// Shows a toast through the nearest ``ToastHost`` above the node.
  ///
  /// ```swift
  /// @Environment(\.showToast) var showToast
  /// ```
  public var showToast: ShowToastAction {
    get { self[Self.showToast] }
    set { self[Self.showToast] = newValue }
  }

  static let toastHost = Entry<ToastHost?>(nil)

  /// The nearest ``ToastHost`` installed on the node or above it, if any.
  ///
  /// ```swift
  /// let toasts = request[\.toastHost]
  /// ```
  public var toastHost: ToastHost? {
    get { self[Self.toastHost] }
    set { self[Self.toastHost] = newValue }
  }
}

extension EnvironmentNode {
  /// Installs a new toast host on this node for its subtree.
  ///
  /// ```swift
  /// let toasts = app.installToastHost(presenter: TerminalToastPresenter())
  /// ```
  ///
  /// - Parameters:
  ///   - policy: How a new toast, a duplicate and a full queue are treated.
  ///   - presenter: Draws the toasts.
  ///   - clock: Times each toast's duration; tests pass a clock they control.
  ///   - fileID: Recorded as the origin of the override; leave the default.
  ///   - line: Recorded as the origin of the override; leave the default.
  /// - Returns: The host, which the node keeps alive.
  @discardableResult
  public func installToastHost(
    policy: PresentationPolicy = .queue, presenter: (any Presenter<Toast>)? = nil,
    clock: any Clock<Duration> = ContinuousClock(), fileID: String = #fileID, line: UInt = #line
  ) -> ToastHost {
    let host = ToastHost(policy: policy, presenter: presenter, clock: clock)
    update(fileID: fileID, line: line) { values in
      values.toastHost = host
      values.showToast = ShowToastAction(host: host)
    }
    return host
  }
}

extension ShowToastAction: EnvironmentBindable {
  /// The action, reporting to `node` whichever node is current when it is called;
  /// `@Environment(\.showToast)` binds it to the node it reads from.
  ///
  /// ```swift
  /// let showToast = EnvironmentNode.current[\.showToast].bound(to: request)
  /// ```
  ///
  /// - Parameter node: The node whose `issueReporter` receives the action's issues.
  /// - Returns: The bound action.
  public func bound(to node: EnvironmentNode) -> ShowToastAction {
    ShowToastAction(engine: engine.bound(to: node))
  }
}

extension ShowToastAction: CustomStringConvertible {
  /// `ShowToastAction`, which tree dumps and explanations show for the action.
  public var description: String { "ShowToastAction" }
}
