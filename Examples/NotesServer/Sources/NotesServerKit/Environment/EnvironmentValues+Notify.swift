import Logging
import Milieu

/// Something that happened to a user's notes, worth telling someone about.
public enum NoteNotification: Sendable, Equatable, CustomStringConvertible {
  /// A note was created.
  case created(Note)
  /// A note was deleted.
  case deleted(Note)
  /// A user deleted all their notes, confirmed by a token.
  case deletedAll(owner: String, count: Int)

  /// One line that says what happened, safe to log: the client's text in it (the owner's name,
  /// the title) has its control characters escaped, so that it can neither end the line nor act
  /// on a terminal.
  public var description: String {
    switch self {
    case .created(let note):
      "\(Self.owner(note.owner)) created note \(note.id), \(Self.title(note))"
    case .deleted(let note):
      "\(Self.owner(note.owner)) deleted note \(note.id), \(Self.title(note))"
    case .deletedAll(let owner, let count):
      "\(Self.owner(owner)) deleted all \(count) of their notes"
    }
  }

  private static func owner(_ name: String) -> String {
    ClientText.forLog(name, quoted: false)
  }

  private static func title(_ note: Note) -> String {
    ClientText.forLog(note.title, quoted: true)
  }
}

/// Tells someone that notes changed: a callable action, in the style of `ShowAlertAction`.
///
/// A service takes it from the values it is built from, and calls it like a function:
///
/// ```swift
/// static let notesService = Derived { values in
///   NotesService(store: values.notesStore, clock: values.clock, notify: values.notify, …)
/// }
/// notify(.created(note))  // in NotesService
/// ```
///
/// The app node installs ``logging``; a test installs one that records, with
/// ``init(_:)``, and checks what was sent.
public struct NotifyAction: Sendable {
  private let send: @Sendable (NoteNotification) -> Void

  /// Creates an action that hands each notification to a closure.
  ///
  /// ```swift
  /// let sent = Mutex<[NoteNotification]>([])
  /// let recording = NotifyAction { notification in sent.withLock { $0.append(notification) } }
  /// ```
  ///
  /// - Parameter send: Delivers one notification. It runs on the caller's task, so it should
  ///   be quick and must not block.
  public init(_ send: @escaping @Sendable (NoteNotification) -> Void) {
    self.send = send
  }

  /// Sends a notification.
  ///
  /// - Parameter notification: What happened.
  public func callAsFunction(_ notification: NoteNotification) {
    send(notification)
  }

  /// Logs each notification at `info` level with the logger of the node that is current when it
  /// is sent, so that in a request the line carries the request's id and user, even though the
  /// action itself, like the service that holds it, is shared by every request.
  public static let logging = NotifyAction { notification in
    EnvironmentNode.current[\.logger].info("notify: \(notification)")
  }

  /// Logs each notification at `info` level with a given logger.
  ///
  /// For code that passes its logger by hand instead of reading it from the environment.
  ///
  /// - Parameter logger: Where to log.
  /// - Returns: The action.
  public static func logging(to logger: Logger) -> NotifyAction {
    NotifyAction { notification in logger.info("notify: \(notification)") }
  }
}

extension EnvironmentValues {
  static let notify = Entry(NotifyAction.logging)

  /// Tells someone that notes changed. The default logs each notification.
  ///
  /// ```swift
  /// @Environment(\.notify) var notify
  /// notify(.deletedAll(owner: "alice", count: 3))
  /// ```
  public var notify: NotifyAction {
    get { self[Self.notify] }
    set { self[Self.notify] = newValue }
  }
}
