import Benchmark

#if canImport(Glibc)
  import Glibc
#endif

/// The metrics the suites record, so that every suite measures the same things the same way.
public enum SuiteMetrics {
  /// Wall clock, throughput and allocations, and instructions where the machine counts them.
  ///
  /// `throughput` is there because the JMH export that `compare.sh` reads requires it. Retain
  /// and release counting is left out on purpose: its hooks slow every retain, so it lives in
  /// benchmarks of its own (``arc``).
  public static var timing: [BenchmarkMetric] {
    [.wallClock, .throughput, .mallocCountTotal] + instructionsWhereCounted
  }

  /// Retains, releases and object allocations, for the benchmarks that count ARC traffic only.
  public static var arc: [BenchmarkMetric] {
    [.retainCount, .releaseCount, .objectAllocCount]
  }

  /// `[.instructions]` when the machine counts instructions, otherwise nothing.
  ///
  /// On Linux the benchmark package counts instructions with `perf_event_open`, which needs a
  /// hardware performance-monitoring unit. Virtual machines often expose none (then
  /// `perf stat -e instructions true` prints `<not supported>`); the metric is then silently
  /// empty, so it is left out rather than shown as a column of nothing.
  public static var instructionsWhereCounted: [BenchmarkMetric] {
    #if os(Linux)
      let processingUnits = ["cpu", "cpu_core", "cpu_atom"]
      let counted = processingUnits.contains { unit in
        access("/sys/bus/event_source/devices/\(unit)", F_OK) == 0
      }
      return counted ? [.instructions] : []
    #else
      return [.instructions]
    #endif
  }
}
