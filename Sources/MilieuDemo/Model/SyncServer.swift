/// A sync server that fails a set number of times before it accepts a note, standing in for an
/// unreliable network.
actor SyncServer: CustomStringConvertible {
  private var failuresLeft: Int
  private let failures: Int

  /// Creates a server that fails the first `failuresBeforeSuccess` pushes.
  init(failuresBeforeSuccess: Int) {
    failuresLeft = failuresBeforeSuccess
    failures = failuresBeforeSuccess
  }

  /// `SyncServer(fails 2 times)`, for tree dumps.
  nonisolated var description: String { "SyncServer(fails \(failures) times)" }

  /// Pushes a note to the server.
  ///
  /// - Throws: ``SyncError`` while the server is still failing.
  func push(_ title: String) async throws(SyncError) {
    // A real client would await the network here; yielding keeps the call truly asynchronous.
    await Task.yield()
    if failuresLeft > 0 {
      failuresLeft -= 1
      throw SyncError.timedOut(host: "sync.example.com")
    }
  }
}

/// Why a sync failed.
enum SyncError: Error, CustomStringConvertible {
  case timedOut(host: String)

  var description: String {
    switch self {
    case .timedOut(let host): "The connection to \(host) timed out."
    }
  }
}
