// What the blocks of *Presenting alerts from anywhere* use and do not declare; see
// scripts/article-blocks.py.
import Milieu
import MilieuAlerts

/// The actions a service reads with `@Environment`, which some blocks call at the top level.
let showAlert = EnvironmentValues().showAlert
let showToast = EnvironmentValues().showToast

/// The notes the rename renames.
final class Notes: Sendable {
  func rename(_ title: String, to newTitle: String) async throws {}
}
let notes = Notes()

func retryExport() async {}
func delete() async throws {}
func log(_ message: String) {}
