// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Milieu",
  products: [
    .library(name: "Milieu", targets: ["Milieu"])
  ],
  targets: [
    .target(name: "Milieu"),
    .testTarget(name: "MilieuTests", dependencies: ["Milieu"]),
  ],
  swiftLanguageModes: [.v6]
)
