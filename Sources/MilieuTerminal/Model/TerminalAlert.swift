import MilieuAlerts

/// Everything the terminal renderer needs to draw an alert: a title, an optional message and the
/// buttons.
///
/// `TerminalAlert` is a plain value with no behaviour attached. A host maps its own alert model
/// to it, presents it, and gets back the index of the chosen button in ``buttons``.
///
/// Buttons are *displayed* in ``displayOrder``: every non-cancel button in the order given, then
/// the cancel buttons, so the cancel button is always last and set apart. The numbers shown next
/// to the buttons (and accepted as answers) are positions in that order, starting at 1; every
/// index that crosses the public API is an index into ``buttons``.
///
/// ```swift
/// let alert = TerminalAlert(
///   title: "Delete 3 notes?",
///   message: "This cannot be undone.",
///   buttons: [TerminalButton("Cancel", role: .cancel), TerminalButton("Delete", role: .destructive)]
/// )
/// alert.displayOrder  // [1, 0]: "1 Delete", then "2 Cancel"
/// ```
public struct TerminalAlert: Sendable, Hashable {
  /// The alert's title, shown in bold when colour is on.
  ///
  /// Line breaks in it become spaces; control characters are shown neutralised.
  public var title: String

  /// The alert's message, wrapped to the terminal's width; newlines in it are line breaks.
  ///
  /// `nil` and the empty string both draw no message.
  public var message: String?

  /// The buttons, in the order the caller gave them.
  ///
  /// Every index the presenter reports is an index into this array. An alert without buttons has
  /// nothing to choose: Enter, Esc and end of input dismiss it.
  public var buttons: [TerminalButton]

  /// The text fields, in order: typed into in a box, read one line each in plain text.
  var textFields: [AlertTextField] = []

  /// Creates an alert.
  ///
  /// - Parameters:
  ///   - title: The title. Control characters and escape sequences are shown neutralised.
  ///   - message: An optional message; `nil` draws none.
  ///   - buttons: The buttons, in the caller's order.
  public init(title: String, message: String? = nil, buttons: [TerminalButton]) {
    self.title = title
    self.message = message
    self.buttons = buttons
  }

  /// The indices of ``buttons`` in the order they are displayed and numbered.
  ///
  /// Every non-cancel button keeps its relative order; cancel buttons follow, so the cancel
  /// button is last.
  ///
  /// - Complexity: O(*n*) in the number of buttons.
  public var displayOrder: [Int] {
    let indices = buttons.indices
    return indices.filter { buttons[$0].role != .cancel }
      + indices.filter {
        buttons[$0].role == .cancel
      }
  }

  /// The index in ``buttons`` of the first cancel button, if there is one.
  ///
  /// Esc and end of input choose this button; with no cancel button they dismiss the alert.
  public var cancelButtonIndex: Int? {
    buttons.firstIndex { $0.role == .cancel }
  }

  /// The index in ``buttons`` of the button focused when the alert appears.
  ///
  /// The first ``TerminalButton/Role/default`` button if there is one; otherwise the cancel
  /// button. `nil` when every button is destructive (or there are none): then nothing is
  /// focused, and a bare Enter does nothing until a digit chooses a button or an arrow moves
  /// the focus, so that a bare Enter never destroys anything.
  public var initialFocus: Int? {
    buttons.firstIndex { $0.role == .default } ?? cancelButtonIndex
  }
}
