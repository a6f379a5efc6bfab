// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Milieu",
  products: [
    .library(name: "Milieu", targets: ["Milieu"]),
    .library(name: "MilieuAlerts", targets: ["MilieuAlerts"]),
  ],
  targets: [
    .target(name: "Milieu"),
    .target(name: "MilieuAlerts", dependencies: ["Milieu"]),
    .testTarget(name: "MilieuTests", dependencies: ["Milieu"]),
    .testTarget(name: "MilieuAlertsTests", dependencies: ["MilieuAlerts"]),
  ],
  swiftLanguageModes: [.v6]
)
