import MilieuAlerts

@testable import MilieuTerminal

enum Fixtures {
  /// The representative alert of the golden files.
  static let deleteNotes = TerminalAlert(
    title: "Delete 3 notes?",
    message:
      "The 3 selected notes will be removed from this device and from every device signed in to "
      + "your account. This cannot be undone.",
    buttons: [
      TerminalButton("Delete", role: .destructive),
      TerminalButton("Cancel", role: .cancel),
    ]
  )

  static let threeButtons = TerminalAlert(
    title: "Unsaved changes",
    buttons: [
      TerminalButton("Cancel", role: .cancel),
      TerminalButton("Save"),
      TerminalButton("Discard", role: .destructive),
    ]
  )

  /// An alert with a text field and a secure one, as a box draws it.
  static let signIn: TerminalAlert = {
    var alert = TerminalAlert(
      title: "Sign in to Sync",
      message: "Your notes sync once you sign in.",
      buttons: [TerminalButton("Sign In"), TerminalButton("Cancel", role: .cancel)])
    alert.textFields = [
      AlertTextField("Email", text: "ada@example.com"), .secure("Password"),
    ]
    return alert
  }()

  /// `alert` with text fields labelled as given, each starting with `text`.
  static func withFields(
    _ alert: TerminalAlert, _ labels: [String], text: String = "", isSecure: Bool = false
  ) -> TerminalAlert {
    var alert = alert
    alert.textFields = labels.map {
      AlertTextField($0, text: text, isSecure: isSecure)
    }
    return alert
  }
}
