#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process's limit on open files (`ulimit -n`), which every connection the server holds
/// counts against, and how many connections it leaves room for.
///
/// A process that has used up its files does not only refuse connections: on Linux, Swift's
/// runtime (libdispatch) stops the whole process with signal 4 when it cannot open the `/proc`
/// file it reads to manage its threads. So the server raises its limit as far as it may when it
/// starts (``raise()``), and holds at most ``connections`` connections at once, keeping the rest
/// (``reserve``) for files of its own.
///
/// ```swift
/// let limit = OpenFileLimit.raise()
/// print("at most \(limit.connections) connections at once")
/// ```
public struct OpenFileLimit: Sendable, Equatable {
  /// How many files the process may have open at once: the soft limit, the one in force.
  public var soft: Int
  /// The most the process may raise ``soft`` to without privileges.
  public var hard: Int

  /// Creates a limit, as `getrlimit` reports one.
  ///
  /// - Parameters:
  ///   - soft: The limit in force.
  ///   - hard: The most it may be raised to.
  public init(soft: Int, hard: Int) {
    self.soft = soft
    self.hard = hard
  }

  /// The files kept for the process's own use: a quarter of ``soft``, at least 32.
  ///
  /// The server itself holds about 20 (its standard streams, its event loops' descriptors, the
  /// signal handlers' descriptors) and the runtime opens one now and then; what is left over is
  /// room for a database's files and connections.
  public var reserve: Int { max(32, soft / 4) }

  /// How many connections the process can hold at once and keep ``reserve`` files for itself;
  /// at least 1.
  public var connections: Int { max(1, soft - reserve) }

  /// The limit now in force.
  public static var current: OpenFileLimit {
    var limit = rlimit()
    guard getrlimit(resource, &limit) == 0 else {
      // Never seen: getrlimit fails only for an unknown resource. POSIX's smallest limit.
      return OpenFileLimit(soft: 20, hard: 20)
    }
    return OpenFileLimit(soft: Int(clamping: limit.rlim_cur), hard: Int(clamping: limit.rlim_max))
  }

  /// Raises the soft limit to the hard one, as far as the system allows, and returns the limit
  /// then in force.
  ///
  /// Many systems start processes with a soft limit of 1,024 (256 on macOS) under a far higher
  /// hard limit, which a process may raise its own soft limit to. Where the system refuses (on
  /// macOS, an unlimited hard limit cannot be taken literally), the soft limit stays as it was.
  ///
  /// - Returns: The limit in force afterwards.
  @discardableResult
  public static func raise() -> OpenFileLimit {
    var limit = rlimit()
    if getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max {
      limit.rlim_cur = limit.rlim_max
      _ = setrlimit(resource, &limit)
    }
    return current
  }

  #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
  #else
    private static let resource = RLIMIT_NOFILE
  #endif
}
