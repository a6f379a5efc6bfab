import Foundation
import Testing

/// The README's Package.swift snippet names products the package has, each with the target kind
/// it belongs in.
@Suite struct ReadmePackageTests {
  @Test func theSnippetNamesTheProductsThePackageHas() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let manifest = try String(
      contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
    let snippet = try #require(
      readme.components(separatedBy: "// Package.swift\n").dropFirst().first?
        .components(separatedBy: "```").first,
      "README.md has no Package.swift snippet")
    let products = snippet.components(separatedBy: ".product(name: \"").dropFirst()
      .map { String($0.prefix { $0 != "\"" }) }
    #expect(Set(products) == ["Milieu", "MilieuAlerts", "MilieuTerminal", "MilieuTesting"])
    for product in products {
      #expect(manifest.contains(".library(name: \"\(product)\""), "no product \(product)")
    }
    let testTarget = try #require(snippet.components(separatedBy: ".testTarget(").last)
    #expect(testTarget.contains("\"MilieuTesting\""), "MilieuTesting belongs in the test target")
    #expect(
      !snippet.components(separatedBy: ".testTarget(")[0].contains("\"MilieuTesting\""),
      "MilieuTesting must not be linked into production targets")
  }

  /// The snippet depends on the `main` branch, the one a clone of the repository has (it carries
  /// no tags, so a version requirement would not resolve), and names beside it the newest release
  /// the CHANGELOG lists. `scripts/readme-dependency.sh` resolves and builds the snippet.
  @Test func theSnippetDependsOnTheMainBranchAndNamesTheNewestRelease() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let changelog = try String(
      contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
    let named = try #require(
      readme.firstMatch(
        of: /\.package\(url: "[^"]*", branch: "main"\),  \/\/ Milieu (\d+\.\d+\.\d+)[;\n]/)?.1,
      """
      README.md's snippet should depend on the main branch and name its version: \
      .package(url: …, branch: "main"),  // Milieu x.y.z
      """)
    // Until the first release, the CHANGELOG has only "Unreleased", and the snippet names the
    // version that release will have.
    let released =
      changelog.firstMatch(of: /\n## \[?(\d+\.\d+\.\d+)\]?/)?.1 ?? "0.1.0"
    #expect(named == released, "README.md's snippet should name \(released)")
  }

  /// The snippet declares the platforms the package does, so a package copied from it builds.
  @Test func theSnippetDeclaresThePackagesPlatforms() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let manifest = try String(
      contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
    func platforms(in text: String) -> [String] {
      text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { $0.hasPrefix("platforms: [") }
    }
    let declared = platforms(in: manifest)
    #expect(declared.count == 1, "Package.swift should declare its platforms on one line")
    #expect(platforms(in: readme) == declared, "README.md's snippet should declare \(declared)")
  }
}
