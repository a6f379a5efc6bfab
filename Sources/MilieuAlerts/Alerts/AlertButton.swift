/// A button of an alert: a title, a role, and an optional action that may be async.
///
/// ```swift
/// showAlert(
///   title: "Delete 3 notes?",
///   buttons: [
///     .destructive("Delete") { await library.delete(notes) },
///     .cancel(),
///   ])
/// ```
///
/// A host runs a button's action at most once, when the button is tapped (or, for the cancel
/// button, when the alert is dismissed).
public struct AlertButton: Sendable, Identifiable {
  /// What a button does, which presenters show: a destructive button in red, the cancel button
  /// set apart.
  ///
  /// Roles are values, so new ones can be added without breaking presenters that switch over
  /// the ones they know.
  public struct Role: Hashable, Sendable, CustomStringConvertible {
    /// The role's name.
    public let rawValue: String

    /// Creates a role.
    ///
    /// - Parameter rawValue: The role's name.
    public init(_ rawValue: String) {
      self.rawValue = rawValue
    }

    /// An ordinary button.
    public static let `default` = Role("default")
    /// The button that backs out; dismissing the alert counts as tapping it.
    public static let cancel = Role("cancel")
    /// A button that destroys something.
    public static let destructive = Role("destructive")

    /// The role's name.
    public var description: String { rawValue }
  }

  /// The button's identity, unique in the process.
  public let id: PresentationID
  /// The button's title.
  public let title: String
  /// The button's role.
  public let role: Role
  /// What tapping the button does, if anything.
  public let action: (@Sendable () async -> Void)?

  /// Creates a button.
  ///
  /// ```swift
  /// let retry = AlertButton("Retry", role: .default) { await sync.retry() }
  /// ```
  ///
  /// - Parameters:
  ///   - title: The button's title.
  ///   - role: The button's role.
  ///   - action: What tapping the button does.
  public init(
    _ title: String, role: Role = .default, action: (@Sendable () async -> Void)? = nil
  ) {
    self.id = PresentationID()
    self.title = title
    self.role = role
    self.action = action
  }

  /// An ordinary button: `.default("Retry") { … }`.
  ///
  /// - Parameters:
  ///   - title: The button's title.
  ///   - action: What tapping the button does.
  /// - Returns: The button.
  public static func `default`(
    _ title: String, action: (@Sendable () async -> Void)? = nil
  ) -> AlertButton {
    AlertButton(title, role: .default, action: action)
  }

  /// The button that backs out: `.cancel()` or `.cancel("Keep") { … }`.
  ///
  /// - Parameters:
  ///   - title: The button's title; `Cancel` by default.
  ///   - action: What tapping the button, or dismissing the alert, does.
  /// - Returns: The button.
  public static func cancel(
    _ title: String = "Cancel", action: (@Sendable () async -> Void)? = nil
  ) -> AlertButton {
    AlertButton(title, role: .cancel, action: action)
  }

  /// A button that destroys something: `.destructive("Delete") { … }`.
  ///
  /// - Parameters:
  ///   - title: The button's title.
  ///   - action: What tapping the button does.
  /// - Returns: The button.
  public static func destructive(
    _ title: String, action: (@Sendable () async -> Void)? = nil
  ) -> AlertButton {
    AlertButton(title, role: .destructive, action: action)
  }

  /// The same button, with the same identity, without its action.
  package var withoutAction: AlertButton {
    AlertButton(id: id, title: title, role: role, action: nil)
  }

  /// A copy with another title or role and the same identity and action.
  func with(title: String? = nil, role: Role? = nil) -> AlertButton {
    AlertButton(id: id, title: title ?? self.title, role: role ?? self.role, action: action)
  }

  private init(id: PresentationID, title: String, role: Role, action: (@Sendable () async -> Void)?)
  {
    self.id = id
    self.title = title
    self.role = role
    self.action = action
  }
}
