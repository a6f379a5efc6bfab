@_spi(MilieuInternal) import Milieu
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process-wide record of a terminal in raw mode, shared with the signal and exit handlers
/// that put it back.
///
/// A signal handler may only do async-signal-safe work, so everything it reads lives here in
/// fixed storage: the saved attributes, the descriptors and the actions it replaced — plain C
/// structs and integers, read without allocating, locking or reference counting. The handler
/// calls only `tcsetattr`, `write`, `sigaction` and `raise`.
///
/// Lifecycle, all under ``depth``'s lock:
/// - ``enter(input:output:)`` saves the attributes, arms the handlers, then switches to raw mode;
/// - ``leave()`` restores the attributes, puts the previous signal actions back, then disarms.
/// A signal arriving in between finds the saved attributes already in place; restoring twice is
/// harmless.
enum RawModeState {
  /// The reset written when the terminal is restored: attributes off, cursor shown.
  static let resetSequence: StaticString = "\u{1B}[0m\u{1B}[?25h"
  /// The reset written when a signal ends the process: also moves to a fresh line.
  static let signalResetSequence: StaticString = "\u{1B}[0m\u{1B}[?25h\r\n"
  /// Written once when bracketed pastes end (``stopBracketingPastes()``): the terminal stops
  /// bracketing them.
  static let pasteResetSequence: StaticString = "\u{1B}[?2004l"

  /// The signals that restore the terminal before they take effect: the ones that ask the
  /// program to stop, which it may survive, then the fatal ones a fault or a runtime trap raises
  /// (a Swift trap is SIGILL on x86_64 and SIGTRAP on arm64; `fatalError` after a failed
  /// `precondition` in C code is SIGABRT).
  static let restoringSignals: [Int32] = [
    SIGINT, SIGTERM, SIGHUP, SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT,
  ]

  /// The fatal signals among ``restoringSignals``: they restore the terminal and take effect,
  /// but an alert on screen does not count them as an interruption to answer.
  static let fatalSignals: [Int32] = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT]

  // The C structs live on the heap behind constant pointers, not in global variables: Swift
  // 6.3.1 on Linux sizes a global or static variable of an imported C struct without the
  // struct's padding (a `termios` global gets 57 bytes instead of 60, a `sigaction` 148 instead
  // of 152), so storing a whole struct into one overwrites the next global.
  //
  // Safety of the `nonisolated(unsafe)` storage: it is written only inside `depth`'s lock by
  // `enter`, before `isArmed` is stored with release ordering and before the handlers are
  // installed; handlers read it only after loading `isArmed` with acquire ordering. `leave`
  // never writes it. So no read ever races a write.
  nonisolated(unsafe) static let savedAttributes = UnsafeMutablePointer<termios>.make(termios())
  /// The actions replaced for each of ``restoringSignals``, in its order.
  nonisolated(unsafe) static let previousActions = UnsafeMutablePointer<sigaction>.make(
    sigaction(), count: 8)

  static let isArmed = Atomic<Bool>(false)
  static let inputDescriptor = Atomic<Int32>(-1)
  static let outputDescriptor = Atomic<Int32>(-1)
  /// Bit *n* is set while the restoring handler is installed for signal *n*.
  static let installedSignals = Atomic<UInt64>(0)
  /// The last signal that restored the terminal, or 0.
  static let caughtSignal = Atomic<Int32>(0)
  /// Whether the terminal was asked to bracket pastes (an alert with text fields is up), so
  /// that ``stopBracketingPastes()`` asks it to stop.
  static let isPasteBracketed = Atomic<Bool>(false)
  /// How many nested raw-mode scopes are open.
  static let depth = Lock<Int>(0)
  static let exitHandlerRegistered = Atomic<Bool>(false)

  /// Enters raw mode on `input`, or joins the raw mode already in effect.
  ///
  /// - Parameters:
  ///   - input: The terminal to configure.
  ///   - output: Where to write the reset sequence when restoring, or -1 for nowhere.
  ///   - mode: The attributes to switch to, from the saved ones: raw mode unless given (a
  ///     secure line read in plain text only turns echo off).
  /// - Throws: ``TerminalError`` if `input`'s attributes cannot be read or set.
  static func enter(
    input: Int32, output: Int32,
    mode: (termios) -> termios = TerminalMode.rawAttributes(from:)
  ) throws(TerminalError) {
    try depth.withLock { (depth: inout Int) throws(TerminalError) in
      if depth > 0 {
        depth += 1
        return
      }
      var original = termios()
      guard tcgetattr(input, &original) == 0 else { throw .fromErrno("tcgetattr") }
      savedAttributes.pointee = original
      inputDescriptor.store(input, ordering: .relaxed)
      outputDescriptor.store(output, ordering: .relaxed)
      caughtSignal.store(0, ordering: .relaxed)
      registerExitHandlerOnce()
      // Touch every lazily initialised global before a handler can need it.
      _ =
        resetSequence.utf8CodeUnitCount + signalResetSequence.utf8CodeUnitCount
        + pasteResetSequence.utf8CodeUnitCount
      _ = isPasteBracketed.load(ordering: .relaxed)
      _ = previousActions
      isArmed.store(true, ordering: .releasing)
      installHandlers()

      var raw = mode(original)
      guard tcsetattr(input, TCSANOW, &raw) == 0 else {
        let error = TerminalError.fromErrno("tcsetattr")
        uninstallHandlers()
        isArmed.store(false, ordering: .releasing)
        throw error
      }
      depth = 1
    }
  }

  /// Leaves one raw-mode scope; the outermost one restores the terminal.
  static func leave() {
    depth.withLock { depth in
      guard depth > 0 else { return }
      depth -= 1
      guard depth == 0 else { return }
      restoreTerminal(reset: resetSequence)
      uninstallHandlers()
      isArmed.store(false, ordering: .releasing)
    }
  }

  /// Puts the saved attributes back and writes `reset`, if raw mode is armed.
  ///
  /// Async-signal-safe.
  static func restoreTerminal(reset: StaticString) {
    guard isArmed.load(ordering: .acquiring) else { return }
    var attributes = savedAttributes.pointee
    _ = tcsetattr(inputDescriptor.load(ordering: .relaxed), TCSANOW, &attributes)
    stopBracketingPastes()
    let output = outputDescriptor.load(ordering: .relaxed)
    guard output >= 0 else { return }
    reset.withUTF8Buffer { bytes in
      _ = write(output, bytes.baseAddress, bytes.count)
    }
  }

  /// Asks the terminal to stop bracketing pastes, if it was asked to (``isPasteBracketed``):
  /// ``pasteResetSequence`` is written once, by whichever comes first — the alert that asked,
  /// as it ends, or the restore, a signal's included.
  ///
  /// Async-signal-safe.
  static func stopBracketingPastes() {
    guard isPasteBracketed.exchange(false, ordering: .acquiringAndReleasing) else { return }
    let output = outputDescriptor.load(ordering: .relaxed)
    guard output >= 0 else { return }
    pasteResetSequence.withUTF8Buffer { bytes in
      _ = write(output, bytes.baseAddress, bytes.count)
    }
  }

  /// The action that was in place for `signal` before raw mode.
  ///
  /// Async-signal-safe.
  static func previousAction(for signal: Int32) -> sigaction {
    previousActions[slot(of: signal)]
  }

  /// The index of `signal` in ``restoringSignals`` and ``previousActions``.
  ///
  /// Async-signal-safe.
  private static func slot(of signal: Int32) -> Int {
    switch signal {
    case SIGINT: 0
    case SIGTERM: 1
    case SIGHUP: 2
    case SIGILL: 3
    case SIGTRAP: 4
    case SIGSEGV: 5
    case SIGBUS: 6
    default: 7
    }
  }

  private static func installHandlers() {
    var installed: UInt64 = 0
    for signal in restoringSignals {
      let current = SignalAction.current(for: signal)
      // A signal the program ignores stays ignored: it must not end the program now.
      if SignalAction.isIgnore(current) { continue }
      // Saved before installing, so that a signal arriving at once finds it.
      previousActions[slot(of: signal)] = current
      if fatalSignals.contains(signal) {
        SignalAction.install(handleFatalSignal, for: signal, onAlternateStack: true)
      } else {
        SignalAction.install(handleRestoringSignal, for: signal)
      }
      installed |= 1 << UInt64(signal)
    }
    installedSignals.store(installed, ordering: .releasing)
  }

  private static func uninstallHandlers() {
    let installed = installedSignals.exchange(0, ordering: .acquiringAndReleasing)
    for signal in restoringSignals where installed & (1 << UInt64(signal)) != 0 {
      SignalAction.restore(previousAction(for: signal), for: signal)
    }
  }

  private static func registerExitHandlerOnce() {
    guard !exitHandlerRegistered.exchange(true, ordering: .relaxed) else { return }
    atexit {
      RawModeState.restoreTerminal(reset: RawModeState.resetSequence)
    }
  }
}

/// Restores the terminal, then lets `signal` take the effect it would have had: the previous
/// action is put back and the signal raised again, to be delivered when this handler returns.
private func handleRestoringSignal(_ signal: Int32) {
  RawModeState.restoreTerminal(reset: RawModeState.signalResetSequence)
  RawModeState.caughtSignal.store(signal, ordering: .relaxed)
  SignalAction.restore(RawModeState.previousAction(for: signal), for: signal)
  _ = raise(signal)
}

/// Restores the terminal, then lets a fatal `signal` take its effect: the previous action (the
/// default, or the runtime's crash reporter) is put back and the signal raised again, to be
/// delivered when this handler returns. A fault raised by an instruction would come back anyway
/// when the instruction runs again; raising it covers the signals sent by `raise` and `kill`.
private func handleFatalSignal(_ signal: Int32) {
  RawModeState.restoreTerminal(reset: RawModeState.signalResetSequence)
  SignalAction.restore(RawModeState.previousAction(for: signal), for: signal)
  _ = raise(signal)
}
