import Milieu

// A key in SwiftUI's form needs no `nonisolated` of its own: `EnvironmentKey` keeps its
// conforming types off the main actor.
private struct RequestTimeoutKey: EnvironmentKey {
  static var defaultValue: Duration { .seconds(30) }
}

nonisolated extension EnvironmentValues {
  var requestTimeout: Duration {
    get { self[RequestTimeoutKey.self] }
    set { self[RequestTimeoutKey.self] = newValue }
  }
}

struct Uploader {
  @Environment(\.requestTimeout) var timeout
}

/// An `EnvironmentKey` on the main actor; `print` receives what it prints.
func runRequestTimeout(_ print: (Any) -> Void) {
  let app = EnvironmentNode("app")
  let slow = app.child("slow") { $0.requestTimeout = .seconds(90) }
  print(app.withCurrent { Uploader() }.timeout)  // 30.0 seconds
  print(slow.withCurrent { Uploader() }.timeout)  // 90.0 seconds
}
