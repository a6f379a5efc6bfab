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
}
