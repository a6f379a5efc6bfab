import Milieu

extension EnvironmentValues {
  static let syncAttempts = Entry(2)

  /// How many times a note may try to sync before it gives up: the first attempt and the
  /// retries the user asks for.
  var syncAttempts: Int {
    get { self[Self.syncAttempts] }
    set { self[Self.syncAttempts] = newValue }
  }
}
