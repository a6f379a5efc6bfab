import NotesServerKit
import Synchronization

/// Records every notification sent through its ``action``: the test value of `notify`.
final class NotificationRecorder: Sendable {
  private let sent = Mutex<[NoteNotification]>([])

  /// The action to install as `notify`.
  var action: NotifyAction {
    NotifyAction { notification in self.sent.withLock { $0.append(notification) } }
  }

  /// What was sent so far, oldest first.
  var notifications: [NoteNotification] { sent.withLock { $0 } }
}
