import Milieu
import ServiceLifecycle

/// The by-hand servers' store, started before their server and stopped after it, by the same
/// ``MilieuServiceGroupAdapter`` as Milieu's server, on a node that holds the store alone.
///
/// What those servers do by hand is how a request reaches its services; the store's start and
/// stop are the same in all three variants, so that `load.sh` compares requests alone.
///
/// ```swift
/// let service = HandStartedStore.around(application, store: store)
/// ```
public enum HandStartedStore {
  /// The store's start, the server, then the store's stop, as one service of a
  /// `ServiceGroup`.
  ///
  /// - Parameters:
  ///   - server: What runs while the store runs: the HTTP server.
  ///   - store: The store.
  /// - Returns: The service.
  public static func around<Server: Service>(
    _ server: Server, store: any NotesStore
  ) -> MilieuServiceGroupAdapter<Server> {
    let node = EnvironmentNode("hand-started store")
    node.set(\.notesStore, to: store)
    return MilieuServiceGroupAdapter(node: node, services: [\.notesStore], server: server)
  }
}
