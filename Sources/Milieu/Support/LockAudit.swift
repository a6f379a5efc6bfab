/// In debug builds, the number of Milieu's locks each thread holds, to check the rule both lock
/// types come with: no code a caller passed in (a key path, a build, a reporter, a consumer of a
/// stream) runs while one is held, and nothing that might hold a value is released under one.
/// The test suite runs in debug, so every test checks it. Release builds compile it away.
///
/// ```swift
/// LockAudit.assertNoneHeld("a derived value's build")
/// ```
@usableFromInline
enum LockAudit {
  #if DEBUG
    /// The count, in thread-specific storage.
    private static let slot = ThreadSlot()

    private static var held: Int {
      get { slot.word }
      set { slot.word = newValue }
    }

    /// How many of Milieu's locks this thread holds now: for tests.
    static var heldByThisThread: Int { held }
  #endif

  /// Counts a lock this thread took.
  @inlinable @inline(__always)
  static func acquired() {
    #if DEBUG
      count(by: 1)
    #endif
  }

  /// Counts a lock this thread let go of.
  @inlinable @inline(__always)
  static func released() {
    #if DEBUG
      count(by: -1)
    #endif
  }

  @usableFromInline
  static func count(by change: Int) {
    #if DEBUG
      held += change
      assert(held >= 0, "a lock was let go of that this thread did not hold")
    #endif
  }

  /// Stops a debug build when this thread holds one of Milieu's locks at a point where code a
  /// caller passed in is about to run, or a value may be released.
  @inlinable @inline(__always)
  static func assertNoneHeld(_ what: @autoclosure () -> String) {
    #if DEBUG
      checkNoneHeld(what())
    #endif
  }

  @usableFromInline
  static func checkNoneHeld(_ what: String) {
    #if DEBUG
      assert(held == 0, "\(what) while holding \(held) of Milieu's locks")
    #endif
  }
}

/// ``LockAudit/assertNoneHeld(_:)``, for Milieu's other modules: before they call a presenter,
/// run an action or resolve an outcome.
@_spi(MilieuInternal) @inlinable @inline(__always)
public func assertNoMilieuLockHeld(_ what: @autoclosure () -> String) {
  LockAudit.assertNoneHeld(what())
}

/// In debug builds, the steps Milieu's calls took on this thread: records copied or probed,
/// nodes walked or resolved, reads recorded and inputs checked; and the bytes of the frames they
/// made. A test that doubles a size
/// checks that the count at most a little more than doubles: no quadratic path, counted, not
/// timed. Release builds compile it away.
enum WorkCount {
  #if DEBUG
    private static let slot = ThreadSlot()
    private static let bytesSlot = ThreadSlot()

    /// The steps counted on this thread so far.
    static var onThisThread: Int { slot.word }

    /// The bytes of the frames made on this thread so far.
    static var bytesOnThisThread: Int { bytesSlot.word }
  #endif

  /// Counts `steps` more on this thread.
  @inline(__always)
  static func add(_ steps: Int = 1) {
    #if DEBUG
      slot.word += steps
    #endif
  }

  /// Counts the bytes of a frame made on this thread.
  @inline(__always)
  static func addBytes(_ bytes: Int) {
    #if DEBUG
      bytesSlot.word += bytes
    #endif
  }
}
