@_spi(MilieuInternal) import Milieu
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Notices when the terminal window is resized (`SIGWINCH`), for a presenter to poll and redraw.
///
/// Between ``start()`` and ``stop()`` a handler for `SIGWINCH` sets a flag, and nothing else;
/// ``consumeResize()`` reads and clears it. Starts and stops nest; the outermost ``stop()`` puts
/// back whatever `SIGWINCH` action was there before, which does not run in between.
enum TerminalResizeMonitor {
  private static let resizePending = Atomic<Bool>(false)
  private static let count = Lock<Int>(0)
  // On the heap, not in a global: see `RawModeState` for the toolchain bug this avoids.
  // Written and read only inside `count`'s lock.
  nonisolated(unsafe) private static let previousAction = UnsafeMutablePointer<sigaction>.make(
    sigaction())

  /// Starts watching for resizes; call ``stop()`` once for every call.
  static func start() {
    _ = resizePending.load(ordering: .relaxed)  // initialise before the handler can run
    count.withLock { count in
      count += 1
      if count == 1 {
        previousAction.pointee = SignalAction.install(handleResizeSignal, for: SIGWINCH)
      }
    }
  }

  /// Stops watching for resizes; the last matching call restores the previous `SIGWINCH` action.
  static func stop() {
    count.withLock { count in
      guard count > 0 else { return }
      count -= 1
      if count == 0 {
        SignalAction.restore(previousAction.pointee, for: SIGWINCH)
      }
    }
  }

  /// Whether the terminal was resized since the last call; clears the flag.
  ///
  /// - Returns: `true` once after one or more resizes.
  static func consumeResize() -> Bool {
    resizePending.exchange(false, ordering: .acquiringAndReleasing)
  }

  /// Sets the flag as if the window had been resized, so the next ``consumeResize()`` is `true`.
  static func noteResize() {
    resizePending.store(true, ordering: .releasing)
  }
}

private func handleResizeSignal(_ signal: Int32) {
  TerminalResizeMonitor.noteResize()
}
