import Milieu

extension EnvironmentValues {
  static let toastDuration = Entry(Duration.seconds(1))

  /// How long the demo's toasts stay before they expire.
  var toastDuration: Duration {
    get { self[Self.toastDuration] }
    set { self[Self.toastDuration] = newValue }
  }
}
