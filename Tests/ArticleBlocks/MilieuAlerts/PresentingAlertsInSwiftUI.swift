// What the blocks of *Presenting alerts in SwiftUI* use and do not declare; see
// scripts/article-blocks.py. The SwiftUI blocks are skipped: SwiftUI exists on Apple platforms
// only.
import Milieu
import MilieuAlerts

/// A service that asks for a note's new name and returns what was typed.
struct NoteService {
  @Environment(\.showAlert) var showAlert

  func rename() async -> String? {
    let outcome = await showAlert.ask(
      AlertData(
        title: "Rename note", textFields: [AlertTextField("Name", text: "Roadmap")],
        buttons: [.default("Rename"), .cancel()]))
    return outcome.tappedButton?.text(of: "Name")
  }
}
