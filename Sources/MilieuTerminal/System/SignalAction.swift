#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Thin, allocation-free helpers over `sigaction(2)`, safe to call from a signal handler.
enum SignalAction {
  /// A C signal handler.
  typealias Handler = @convention(c) (Int32) -> Void

  /// The action currently installed for `signal`.
  static func current(for signal: Int32) -> sigaction {
    var action = sigaction()
    _ = sigaction(signal, nil, &action)
    return action
  }

  /// Whether `action` ignores its signal (`SIG_IGN`).
  static func isIgnore(_ action: sigaction) -> Bool {
    #if canImport(Glibc)
      let handler = action.__sigaction_handler.sa_handler
    #else
      let handler = action.__sigaction_u.__sa_handler
    #endif
    return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
  }

  /// Installs `handler` for `signal`, with system calls restarted, and returns the action it
  /// replaced.
  ///
  /// With `onAlternateStack`, the handler runs on the thread's alternate signal stack when it has
  /// one, so that it can run after a stack overflow.
  @discardableResult
  static func install(
    _ handler: Handler, for signal: Int32, onAlternateStack: Bool = false
  ) -> sigaction {
    var action = sigaction()
    #if canImport(Glibc)
      action.__sigaction_handler.sa_handler = handler
    #else
      action.__sigaction_u.__sa_handler = handler
    #endif
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_RESTART | (onAlternateStack ? SA_ONSTACK : 0)
    var previous = sigaction()
    _ = sigaction(signal, &action, &previous)
    return previous
  }

  /// Puts `action` back for `signal`.
  ///
  /// Async-signal-safe.
  static func restore(_ action: sigaction, for signal: Int32) {
    var action = action
    _ = sigaction(signal, &action, nil)
  }
}

extension UnsafeMutablePointer {
  /// Allocates `count` values, each initialised to `value`, never to be freed: storage for
  /// process-wide state that a signal handler reads.
  static func make(_ value: Pointee, count: Int = 1) -> UnsafeMutablePointer {
    let pointer = allocate(capacity: count)
    pointer.initialize(repeating: value, count: count)
    return pointer
  }
}
