// swift-tools-version: 6.2
import PackageDescription

// MainActorApp: the README's examples in a module whose code defaults to the main actor, as new
// app targets do, spelled as such a module needs (`nonisolated` on what the environment reads).
//
// This is a package of its own because `.defaultIsolation` needs tools 6.2, and so that the
// root package keeps its own settings. CI builds it, runs it and runs its tests:
//
//     swift run     # the examples, printing what the README says they print
//     swift test    # the README's alert test, and what the examples print

let package = Package(
  name: "MainActorApp",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  dependencies: [
    // Named, so that target dependencies do not depend on the directory the clone lives in.
    .package(name: "Milieu", path: "../..")
  ],
  targets: [
    .executableTarget(
      name: "MainActorApp",
      dependencies: [
        .product(name: "Milieu", package: "Milieu"),
        .product(name: "MilieuAlerts", package: "Milieu"),
      ],
      swiftSettings: [.defaultIsolation(MainActor.self)]
    ),
    .testTarget(
      name: "MainActorAppTests",
      dependencies: [
        "MainActorApp",
        .product(name: "Milieu", package: "Milieu"),
        .product(name: "MilieuAlerts", package: "Milieu"),
        .product(name: "MilieuTesting", package: "Milieu"),
      ],
      swiftSettings: [.defaultIsolation(MainActor.self)]
    ),
  ],
  swiftLanguageModes: [.v6]
)
