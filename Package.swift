// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Milieu",
  products: [
    .library(name: "Milieu", targets: ["Milieu"]),
    .library(name: "MilieuAlerts", targets: ["MilieuAlerts"]),
    .library(name: "MilieuTesting", targets: ["MilieuTesting"]),
  ],
  targets: [
    .target(name: "Milieu"),
    .target(name: "MilieuAlerts", dependencies: ["Milieu"]),
    .target(name: "MilieuTesting", dependencies: ["Milieu", "MilieuAlerts"]),
    .testTarget(name: "MilieuTests", dependencies: ["Milieu"]),
    .testTarget(name: "MilieuAlertsTests", dependencies: ["MilieuAlerts", "MilieuTesting"]),
    .testTarget(name: "MilieuTestingTests", dependencies: ["MilieuTesting"]),
  ],
  swiftLanguageModes: [.v6]
)
