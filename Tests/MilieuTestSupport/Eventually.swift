import Testing

/// Waits until a condition holds, yielding to other tasks between looks; records an issue naming
/// what never happened when it still does not hold after `iterations` looks.
///
/// The bound counts yields, not time: each yield lets the jobs already queued run first, so work
/// waiting behind a loaded machine's backlog still gets its turns, however slowly they come.
///
/// ```swift
/// let shown = Task { await showAlert.ask(title: "Delete?") }
/// await eventually("the alert is shown") { host.current != nil }
/// ```
public func eventually(
  _ what: String, within iterations: Int = 10_000,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: () -> Bool
) async {
  for _ in 0..<iterations {
    if condition() { return }
    await Task.yield()
  }
  Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
}
