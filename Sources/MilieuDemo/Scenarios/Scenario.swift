/// The scenarios the demo can run.
enum Scenario: String, CaseIterable, Sendable {
  case delete
  case retry
  case burst
  case toast
  case sheet

  /// What the scenario shows, in one line.
  var summary: String {
    switch self {
    case .delete:
      "the folder service asks before deleting 3 notes (a destructive confirmation)"
    case .retry:
      "the note service fails to sync; Retry tries again asynchronously, 3 attempts at most"
    case .burst:
      "after a sync, three services each show an alert at once; they queue, the conflict, of "
        + "high priority, first"
    case .toast:
      "three services each show a toast; they queue and expire on the toast host's clock"
    case .sheet:
      "a share sheet installs its own alert host and asks who to share with in a text field; "
        + "its alert goes there, not to the app's"
    }
  }
}
