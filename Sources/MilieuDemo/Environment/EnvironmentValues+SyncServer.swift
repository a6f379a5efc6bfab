import Milieu

extension EnvironmentValues {
  static let syncServer = Entry(SyncServer(failuresBeforeSuccess: 0))

  /// The server notes are synced with. The default never fails; the app's root node sets a
  /// flaky one, so that the `retry` scenario has something to retry.
  var syncServer: SyncServer {
    get { self[Self.syncServer] }
    set { self[Self.syncServer] = newValue }
  }
}
