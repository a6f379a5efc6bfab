// swift-tools-version: 6.1
import PackageDescription

// Benchmarks for Milieu, side by side with swift-dependencies and Swinject.
//
// This is a package of its own so that nothing a benchmark needs ever reaches a user of Milieu:
// the root package stays free of dependencies. Run it from this directory:
//
//     swift package benchmark      # every suite, as tables
//     ./compare.sh                 # one table of ratios against the quality targets
//
// Each executable target under `Benchmarks/<Name>/` is one suite; the benchmark plugin finds
// them by that location. `BenchmarkSupport` holds what several suites share.

let package = Package(
  name: "MilieuBenchmarks",
  platforms: [.macOS(.v15)],
  products: [
    // Loaded with `LD_PRELOAD` by budgets.py to count the bytes each path allocates; a product,
    // so that it is built as a shared library. No target links it.
    .library(name: "AllocationCounter", type: .dynamic, targets: ["AllocationCounter"])
  ],
  dependencies: [
    // Named, so that target dependencies do not depend on the directory the clone lives in.
    .package(name: "Milieu", path: ".."),
    // `MallocInterposer` alone: allocation and byte counts without jemalloc. The default
    // `RuntimeInterposer` trait is left out: its package is not needed, retains and releases are
    // still counted through the Swift runtime's hooks, and the plugin's warning about it is
    // harmless.
    .package(
      url: "https://github.com/ordo-one/benchmark", exact: "1.38.1",
      traits: ["MallocInterposer"]),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", exact: "1.17.1"),
    .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
  ],
  targets: [
    .target(
      name: "BenchmarkSupport",
      dependencies: [
        .product(name: "Milieu", package: "Milieu"),
        .product(name: "Benchmark", package: "benchmark"),
        // Only this product: the macros product would compile swift-syntax.
        .product(name: "Dependencies", package: "swift-dependencies"),
      ]
    ),
    // Cases counted in instructions under callgrind by `instructions.sh`.
    .executableTarget(
      name: "InstructionCounts",
      dependencies: [
        .product(name: "Milieu", package: "Milieu"),
        .product(name: "MilieuAlerts", package: "Milieu"),
        .product(name: "MilieuTesting", package: "Milieu"),
        // For the anchors the targets compare with: swift-dependencies' scope and request.
        .product(name: "Dependencies", package: "swift-dependencies"),
      ]
    ),
    // The heap's bytes in use, which Swift's C library modules do not expose.
    .target(name: "CHeapStatistics"),
    // `malloc` and its siblings, counted: see the product above.
    .target(name: "AllocationCounter"),
    benchmarkTarget("ReadBenchmarks"),
    benchmarkTarget("ScopeBenchmarks"),
    benchmarkTarget("BuildBenchmarks", extraDependencies: ["CHeapStatistics"]),
    benchmarkTarget(
      "AlertBenchmarks", extraDependencies: [.product(name: "MilieuAlerts", package: "Milieu")]),
    benchmarkTarget("PropagationBenchmarks"),
    benchmarkTarget("ServerBenchmarks"),
    benchmarkTarget("GraphBenchmarks"),
  ],
  swiftLanguageModes: [.v6]
)

/// One suite: an executable under `Benchmarks/<name>/` that the benchmark plugin runs.
func benchmarkTarget(_ name: String, extraDependencies: [Target.Dependency] = []) -> Target {
  .executableTarget(
    name: name,
    dependencies: [
      "BenchmarkSupport",
      .product(name: "Milieu", package: "Milieu"),
      .product(name: "Benchmark", package: "benchmark"),
      .product(name: "Dependencies", package: "swift-dependencies"),
      .product(name: "Swinject", package: "Swinject"),
    ] + extraDependencies,
    path: "Benchmarks/\(name)",
    plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
  )
}
