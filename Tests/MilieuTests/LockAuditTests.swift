import Dispatch
import Foundation
import Testing

@testable @_spi(MilieuInternal) import Milieu

#if DEBUG
  /// The debug-build check that no caller's code runs, and nothing is released, under one of
  /// Milieu's locks.
  @Suite struct LockAuditTests {
    @Test("Each lock Milieu takes is counted while held, and only while held")
    func locksAreCountedWhileHeld() {
      let before = LockAudit.heldByThisThread
      let lock = Lock(0)
      let spin = VersionedLock()
      lock.withLock { _ in
        #expect(LockAudit.heldByThisThread == before + 1)
        spin.lock()
        #expect(LockAudit.heldByThisThread == before + 2)
        spin.unlock()
        #expect(LockAudit.heldByThisThread == before + 1)
      }
      #expect(LockAudit.heldByThisThread == before)
    }

    @Test("A lock made unaudited, for a test's own bookkeeping, is not counted")
    func unauditedLocksAreNotCounted() {
      let before = LockAudit.heldByThisThread
      Lock(0, audited: false).withLock { _ in
        #expect(LockAudit.heldByThisThread == before)
      }
    }

    @Test("A lock another thread holds does not count against this one")
    func countsArePerThread() throws {
      let before = LockAudit.heldByThisThread
      let lock = Lock(0)
      let held = DispatchSemaphore(value: 0)
      let checked = DispatchSemaphore(value: 0)
      let holder = Thread {
        lock.withLock { _ in
          held.signal()
          _ = checked.wait(timeout: .now() + 30)
        }
      }
      holder.start()
      defer { checked.signal() }
      try #require(held.wait(timeout: .now() + 30) == .success, "the holder never took the lock")
      #expect(LockAudit.heldByThisThread == before)
    }

    @Test("Reporting an issue while one of Milieu's locks is held stops a debug build")
    func reportingUnderALockStops() async {
      await #expect(processExitsWith: .failure) {
        let reporter = IssueReporter { _ in }
        Lock(0).withLock { _ in
          reporter.report(
            EnvironmentIssue(
              "reported under a lock",
              at: CallSite(fileID: #fileID, filePath: #filePath, line: #line, column: #column)))
        }
      }
    }

    @Test("The same report under an unaudited lock of a test's own goes through")
    func reportingUnderAnUnauditedLockGoesThrough() {
      let reports = Lock(0, audited: false)
      let reporter = IssueReporter { _ in reports.withLock { $0 += 1 } }
      Lock(0, audited: false).withLock { _ in
        reporter.report(
          EnvironmentIssue(
            "reported under a test's lock",
            at: CallSite(fileID: #fileID, filePath: #filePath, line: #line, column: #column)))
      }
      #expect(reports.withLock { $0 } == 1)
    }
  }
#endif
