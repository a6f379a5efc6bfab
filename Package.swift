// swift-tools-version: 6.2
import PackageDescription

let package = Package(
  name: "Milieu",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Milieu", targets: ["Milieu"]),
    .library(name: "MilieuAlerts", targets: ["MilieuAlerts"]),
    .library(name: "MilieuTesting", targets: ["MilieuTesting"]),
    .library(name: "MilieuTerminal", targets: ["MilieuTerminal"]),
    .executable(name: "milieu-demo", targets: ["MilieuDemo"]),
  ],
  targets: [
    .target(name: "Milieu"),
    .target(name: "MilieuAlerts", dependencies: ["Milieu"]),
    .target(
      name: "MilieuTesting", dependencies: ["Milieu", "MilieuAlerts", "MilieuTestingOnLoad"]),
    // Connects MilieuTesting when a test binary that links it is loaded; not a product.
    .target(name: "MilieuTestingOnLoad"),
    // What several test targets share; not a product, so no client ever sees it.
    .target(name: "MilieuTestSupport", path: "Tests/MilieuTestSupport"),
    // SwiftUI's environment names, to test the spelling a file that imports both needs.
    .target(name: "SwiftUIStandIn", path: "Tests/SwiftUIStandIn"),
    .testTarget(
      name: "MilieuTests", dependencies: ["Milieu", "MilieuTestSupport", "SwiftUIStandIn"]),
    .testTarget(
      name: "MilieuAlertsTests",
      dependencies: ["MilieuAlerts", "MilieuTesting", "MilieuTestSupport"]),
    .testTarget(
      name: "MilieuTestingTests", dependencies: ["MilieuTesting", "MilieuTestSupport"]),
    .target(name: "MilieuTerminal", dependencies: ["Milieu", "MilieuAlerts"]),
    .executableTarget(
      name: "MilieuDemo", dependencies: ["Milieu", "MilieuAlerts", "MilieuTerminal"]),
    .testTarget(
      name: "MilieuTerminalTests",
      dependencies: ["Milieu", "MilieuAlerts", "MilieuTerminal", "MilieuTestSupport"],
      exclude: ["Golden"]),
    .testTarget(name: "MilieuDemoTests", dependencies: ["MilieuTestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
