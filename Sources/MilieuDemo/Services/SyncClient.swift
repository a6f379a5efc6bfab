import Milieu

/// Pushes notes to the sync server, with the number of attempts a note gets: a service built
/// from two environment values, and rebuilt for a subtree that overrides either.
struct SyncClient: Sendable, CustomStringConvertible {
  let server: SyncServer
  let maximumAttempts: Int

  /// Pushes a note to the server once.
  func push(_ title: String) async throws(SyncError) {
    try await server.push(title)
  }

  var description: String { "SyncClient(\(server), \(maximumAttempts) attempts)" }
}

extension EnvironmentValues {
  static let syncClient = Derived { values in
    SyncClient(server: values.syncServer, maximumAttempts: values.syncAttempts)
  }

  /// The sync client: the app's server with the app's attempts, and in the Work folder, which
  /// allows fewer attempts, a client of its own.
  var syncClient: SyncClient { self[Self.syncClient] }
}
