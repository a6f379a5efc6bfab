import Benchmark
import BenchmarkSupport
import CHeapStatistics
import Milieu

// Suite 3, Build: a tree of 100,000 nodes with no overrides, fan-out 10, built breadth-first.
//
// Time: wall clock for the whole tree (divide by `TreeShape.nodeCount` for a node).
// Memory, two ways, both over the measured region only and with the tree still alive:
// - `memoryLeakedBytes`: bytes requested from malloc minus bytes freed, as the interposer counts
//   them: what the tree asked for and kept.
// - `Heap bytes in use (mallinfo2)`: growth of glibc's `uordblks`, the bytes of chunks in use:
//   what the tree costs the heap, with malloc's own rounding and headers. While the benchmark
//   runs, the malloc interposer puts a 16-byte header in front of every allocation, so
//   `compare.sh` subtracts 16 bytes for each allocation the tree keeps (`mallocFreeDelta`).
// The array that keeps the nodes alive is reserved before the measurement starts, so its
// storage is not counted; a parent does not retain its children, so something has to.

let benchmarks: @Sendable () -> Void = {
  Benchmark(
    "Build: tree of 100,000 nodes, fan-out 10",
    configuration: .init(
      metrics: SuiteMetrics.timing + [.mallocFreeDelta, .memoryLeakedBytes, HeapMetric.inUse],
      scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 50)
  ) { benchmark in
    var nodes: [EnvironmentNode] = []
    nodes.reserveCapacity(TreeShape.nodeCount)

    benchmark.startMeasurement()
    let heapBefore = HeapMetric.bytesInUse()
    TreeShape.build(into: &nodes)
    let heapAfter = HeapMetric.bytesInUse()
    benchmark.stopMeasurement()

    if let heapBefore, let heapAfter {
      benchmark.measurement(HeapMetric.inUse, heapAfter - heapBefore)
    }
    precondition(nodes.count == TreeShape.nodeCount, "the tree has the wrong number of nodes")
    blackHole(nodes)
  }
}

/// The tree every build makes.
enum TreeShape {
  static let nodeCount = 100_000
  static let fanOut = 10

  /// Appends a root and its descendants, breadth-first, until there are ``nodeCount`` nodes.
  static func build(into nodes: inout [EnvironmentNode]) {
    nodes.append(EnvironmentNode())
    var parentIndex = 0
    while nodes.count < nodeCount {
      let parent = nodes[parentIndex]
      for _ in 0..<min(fanOut, nodeCount - nodes.count) {
        nodes.append(parent.child())
      }
      parentIndex += 1
    }
  }
}

/// The heap's bytes in use, as glibc reports them.
enum HeapMetric {
  static let inUse = BenchmarkMetric.custom(
    "Heap bytes in use (mallinfo2)", polarity: .prefersSmaller, useScalingFactor: false)

  /// Bytes in chunks in use in every arena, or `nil` where the C library does not say.
  static func bytesInUse() -> Int? {
    let bytes = milieu_heap_bytes_in_use()
    return bytes < 0 ? nil : Int(bytes)
  }
}
