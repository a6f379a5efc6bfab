import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs every job of the global concurrent executor on the calling thread, one at a time, so
/// that an asynchronous case does the same work in the same order on every run.
///
/// On Dispatch's pool, which thread takes a job, and how long a worker spins before it sleeps,
/// vary from run to run, and so do the instructions and allocations counted. The Swift runtime
/// lets a program take over the global executor through the hook
/// `swift_task_enqueueGlobal_hook`; with it set, every `Task {}` and every resumption lands in
/// this queue, and `drain(until:)` runs them here.
enum SerialJobs {
  /// The queued jobs' addresses.
  private static let queue = Mutex<[UInt]>([])

  /// The runtime calls hooks with the Swift calling convention; for two pointer arguments and
  /// no result it passes them as the C convention does.
  private typealias Original = @convention(c) (UnsafeMutableRawPointer) -> Void
  private typealias Hook = @convention(c) (UnsafeMutableRawPointer, Original) -> Void

  /// Sends every job enqueued on the global executor from now on to this queue.
  static func install() {
    guard
      let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "swift_task_enqueueGlobal_hook")
    else {
      fatalError("the Swift runtime has no swift_task_enqueueGlobal_hook")
    }
    let hook: Hook = { job, _ in
      let address = UInt(bitPattern: job)
      SerialJobs.queue.withLock { $0.append(address) }
    }
    symbol.assumingMemoryBound(to: Hook?.self).pointee = hook
  }

  /// Runs queued jobs, first in first out, until `isDone` says the work is over.
  static func drain(until isDone: () -> Bool) {
    let executor = InlineExecutor()
    var position = 0
    var jobs: [UInt] = []
    while !isDone() {
      if position == jobs.count {
        jobs = queue.withLock { queued in
          defer { queued.removeAll(keepingCapacity: true) }
          return queued
        }
        position = 0
        guard !jobs.isEmpty else {
          fatalError("the case waits for work that is not on the global executor")
        }
      }
      let job = unsafeBitCast(
        UnsafeMutableRawPointer(bitPattern: jobs[position]), to: UnownedJob.self)
      position += 1
      job.runSynchronously(on: executor.asUnownedTaskExecutor())
    }
  }
}

/// The task executor the drained jobs run on: they run inline, so it never receives a job.
final class InlineExecutor: TaskExecutor {
  func enqueue(_ job: consuming ExecutorJob) {
    fatalError("InlineExecutor runs jobs inline; nothing enqueues on it")
  }
}
