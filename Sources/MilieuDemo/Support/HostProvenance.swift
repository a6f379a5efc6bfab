import Milieu
import MilieuAlerts

extension EnvironmentNode {
  /// Which alert host `showAlert` reaches from this node, in words, from the environment's own
  /// provenance: `the alert host installed on node "app" (MilieuDemo/NotesApp.swift:40)`.
  var alertHostProvenance: String {
    switch explain(\.alertHost).source {
    case .override(let origin):
      "the alert host installed on node \"\(origin.nodeName ?? "unnamed")\" (\(origin.location))"
    case .defaultValue:
      "no alert host"
    case .derived:
      "an alert host derived from other values"
    }
  }
}
