#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs blocking work on a POSIX thread of its own, so that it never occupies a thread of the
/// shared concurrency pool.
enum DetachedThread {
  /// Starts `body` on a new detached thread.
  ///
  /// - Parameter body: The work; it runs exactly once if the thread starts.
  /// - Returns: `false` if no thread could be started, in which case `body` never runs.
  static func run(_ body: @escaping @Sendable () -> Void) -> Bool {
    let context = Unmanaged.passRetained(Work(body)).toOpaque()
    let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = {
      context in
      guard let context else { return nil }
      Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
      return nil
    }
    #if canImport(Glibc)
      var thread = pthread_t()
      guard pthread_create(&thread, nil, entry, context) == 0 else {
        Unmanaged<Work>.fromOpaque(context).release()
        return false
      }
      pthread_detach(thread)
    #else
      var thread: pthread_t?
      guard pthread_create(&thread, nil, entry, context) == 0 else {
        Unmanaged<Work>.fromOpaque(context).release()
        return false
      }
      if let thread { pthread_detach(thread) }
    #endif
    return true
  }

  private final class Work: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }
}
