// What the blocks of *Testing code that shows alerts* use and do not declare; see
// scripts/article-blocks.py.
import Milieu
import MilieuAlerts
import MilieuTesting
import Synchronization

/// A library whose `deleteAll()` asks first, as the tests expect.
final class Library: Sendable {
  /// Read where it is made: a `Sendable` class cannot hold an `@Environment` wrapper.
  let showAlert = EnvironmentNode.current[\.showAlert]
  private let storage = Mutex(["Standup", "Offsite", "Budget"])

  var notes: [String] { storage.withLock { $0 } }

  func deleteAll() async {
    let outcome = await showAlert.ask(
      title: "Delete 3 notes?", buttons: [.destructive("Delete"), .cancel()])
    if outcome.tappedButton?.role == .destructive {
      storage.withLock { $0.removeAll() }
    }
  }
}

/// The recorder and the library of the test that the follow-up and text-field blocks continue.
/// Compiled, never run.
var alerts: AlertRecorder { fatalError("the blocks are compiled, never run") }
let library = Library()

struct Exporter {
  @Environment(\.showToast) var showToast
  func export() { showToast("Exported 12 notes") }
}

extension EnvironmentValues {
  static let retries = Entry(3)
  var retries: Int {
    get { self[Self.retries] }
    set { self[Self.retries] = newValue }
  }
}

struct Importer {
  enum Result: Equatable {
    case imported
    case gaveUp(afterAttempts: Int)
  }

  @Environment(\.retries) var retries
  @Environment(\.showAlert) var showAlert

  func importQuietly() {}
  func run() async -> Result { .gaveUp(afterAttempts: retries) }
}
