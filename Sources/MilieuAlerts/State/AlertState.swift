import Milieu

/// An alert described as state, whose buttons send actions instead of running closures.
///
/// `AlertState` suits code that keeps its alerts in its state and handles every button as an
/// action — a reducer, a view model. It is `Equatable` when `Action` is (ignoring the identity),
/// so a test can compare the alert a feature produced with the one it expects:
///
/// ```swift
/// enum Action: Equatable, Sendable { case confirmTapped, cancelTapped }
///
/// let alert = AlertState<Action>(
///   title: "Delete",
///   message: "Are you sure you want to delete this? It cannot be undone.",
///   primaryButton: .destructive("Confirm", send: .confirmTapped),
///   secondaryButton: .cancel(send: .cancelTapped))
///
/// showAlert(alert, send: { store.send($0) })
/// ```
///
/// An alert state can hold text fields. What is entered reaches a `send` that takes it beside
/// the action:
///
/// ```swift
/// let rename = AlertState<Action>(
///   title: "Rename \"Roadmap\"",
///   textFields: [AlertTextField("Name", text: "Roadmap")],
///   buttons: [.default("Rename", send: .renameTapped), .cancel()])
///
/// showAlert(rename, send: { action, texts in store.send(action, name: texts[0]) })
/// ```
public struct AlertState<Action>: Identifiable {
  /// A button of an ``AlertState``: a title, a role, and the action it sends.
  public struct Button {
    /// The button's title.
    public var title: String
    /// The button's role.
    public var role: AlertButton.Role
    /// The action tapping the button sends, if any.
    public var action: Action?

    /// Creates a button.
    ///
    /// - Parameters:
    ///   - title: The button's title.
    ///   - role: The button's role.
    ///   - action: The action tapping it sends.
    public init(_ title: String, role: AlertButton.Role = .default, send action: Action? = nil) {
      self.title = title
      self.role = role
      self.action = action
    }

    /// An ordinary button: `.default("Confirm", send: .confirmTapped)`.
    ///
    /// - Parameters:
    ///   - title: The button's title.
    ///   - action: The action tapping it sends.
    /// - Returns: The button.
    public static func `default`(_ title: String, send action: Action? = nil) -> Button {
      Button(title, role: .default, send: action)
    }

    /// The cancel button: `.cancel()` or `.cancel("Keep", send: .keepTapped)`.
    ///
    /// - Parameters:
    ///   - title: The button's title; `Cancel` by default.
    ///   - action: The action tapping it, or dismissing the alert, sends.
    /// - Returns: The button.
    public static func cancel(_ title: String = "Cancel", send action: Action? = nil) -> Button {
      Button(title, role: .cancel, send: action)
    }

    /// A destructive button: `.destructive("Delete", send: .deleteTapped)`.
    ///
    /// - Parameters:
    ///   - title: The button's title.
    ///   - action: The action tapping it sends.
    /// - Returns: The button.
    public static func destructive(_ title: String, send action: Action? = nil) -> Button {
      Button(title, role: .destructive, send: action)
    }

    /// The same button, sending a transformed action.
    ///
    /// - Parameter transform: Turns this button's action into another.
    /// - Returns: The button.
    public func map<NewAction>(_ transform: (Action) -> NewAction) -> AlertState<NewAction>.Button {
      .init(title, role: role, send: action.map(transform))
    }
  }

  /// The alert's identity; equality ignores it.
  public let id: PresentationID
  /// The title.
  public var title: String
  /// The message under the title.
  public var message: String?
  /// The text fields, each with the text it starts with; equality compares their labels, texts
  /// and whether they are secure, not their identities.
  public var textFields: [AlertTextField]
  /// The buttons; none means one "OK" cancel button when shown.
  public var buttons: [Button]

  /// Creates an alert with any number of buttons.
  ///
  /// - Parameters:
  ///   - title: The title.
  ///   - message: The message under the title.
  ///   - textFields: The text fields, in order.
  ///   - buttons: The buttons.
  public init(
    title: String, message: String? = nil, textFields: [AlertTextField] = [],
    buttons: [Button] = []
  ) {
    self.init(
      id: PresentationID(), title: title, message: message, textFields: textFields,
      buttons: buttons)
  }

  /// Creates an alert with one button that dismisses it.
  ///
  /// - Parameters:
  ///   - title: The title.
  ///   - message: The message under the title.
  ///   - dismissButton: The button; "OK" when `nil`.
  public init(title: String, message: String? = nil, dismissButton: Button?) {
    self.init(title: title, message: message, buttons: dismissButton.map { [$0] } ?? [])
  }

  /// Creates an alert with two buttons.
  ///
  /// - Parameters:
  ///   - title: The title.
  ///   - message: The message under the title.
  ///   - primaryButton: The first button.
  ///   - secondaryButton: The second button.
  public init(
    title: String, message: String? = nil, primaryButton: Button, secondaryButton: Button
  ) {
    self.init(title: title, message: message, buttons: [primaryButton, secondaryButton])
  }

  private init(
    id: PresentationID, title: String, message: String?, textFields: [AlertTextField],
    buttons: [Button]
  ) {
    self.id = id
    self.title = title
    self.message = message
    self.textFields = textFields
    self.buttons = buttons
  }

  /// The same alert, with the same identity, sending transformed actions: how a parent feature
  /// embeds a child feature's alert.
  ///
  /// ```swift
  /// let parentAlert = childAlert.map(ParentAction.child)
  /// ```
  ///
  /// - Parameter transform: Turns a child action into a parent action.
  /// - Returns: The alert.
  public func map<NewAction>(_ transform: (Action) -> NewAction) -> AlertState<NewAction> {
    AlertState<NewAction>(
      id: id, title: title, message: message, textFields: textFields,
      buttons: buttons.map { $0.map(transform) })
  }
}

extension AlertState: Sendable where Action: Sendable {}
extension AlertState.Button: Sendable where Action: Sendable {}
extension AlertState.Button: Equatable where Action: Equatable {}

extension AlertState: Equatable where Action: Equatable {
  /// Whether two alerts show the same text, text fields and buttons and send the same actions;
  /// identities are ignored.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.title == rhs.title && lhs.message == rhs.message && lhs.buttons == rhs.buttons
      && lhs.textFields.elementsEqual(rhs.textFields) {
        $0.label == $1.label && $0.text == $1.text && $0.isSecure == $1.isSecure
      }
  }
}

extension AlertState where Action: Sendable {
  /// The alert as ``AlertData``, whose buttons send their actions.
  func alertData(send: @escaping @Sendable (Action) -> Void, callSite: CallSite) -> AlertData {
    AlertData(
      title: title, message: message, textFields: textFields,
      buttons: buttons.map { button in
        let action = button.action
        return AlertButton(
          button.title, role: button.role,
          action: action.map { action in { @Sendable in send(action) } })
      },
      fileID: callSite.fileID, filePath: callSite.filePath, line: callSite.line,
      column: callSite.column)
  }

  /// The alert as ``AlertData`` whose buttons have no actions, and the completion that sends
  /// the tapped button's action — or, for a dismissal, the cancel button's — with the text of
  /// each field: what was entered, or for a dismissal what the fields started with.
  func alertData(
    sendingTexts send: @escaping @Sendable (Action, [String]) -> Void, callSite: CallSite
  ) -> (AlertData, @Sendable (AlertOutcome) -> Void) {
    let alertButtons = buttons.map { AlertButton($0.title, role: $0.role) }
    // By identity: the alert's checks may rename, re-role or drop buttons, never re-identify.
    let actions = Dictionary(
      uniqueKeysWithValues: zip(alertButtons.map(\.id), buttons.map(\.action)))
    let alert = AlertData(
      title: title, message: message, textFields: textFields, buttons: alertButtons,
      fileID: callSite.fileID, filePath: callSite.filePath, line: callSite.line,
      column: callSite.column)
    let cancel = alert.cancelButton?.id
    let startingTexts = alert.textFields.map(\.text)
    return (
      alert,
      { outcome in
        switch outcome {
        case .answered(let tap):
          guard let action = actions[tap.buttonID] ?? nil else { return }
          send(action, tap.textFields.isEmpty ? startingTexts : tap.textFields.map(\.text))
        case .dismissed:
          guard let cancel, let action = actions[cancel] ?? nil else { return }
          send(action, startingTexts)
        case .dropped:
          return
        }
      }
    )
  }
}
