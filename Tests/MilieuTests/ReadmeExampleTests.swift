import Foundation
// README: begin
import Milieu
import Testing

extension EnvironmentValues {
  static let salutation = Entry("Hello")
  var salutation: String {
    get { self[Self.salutation] }
    set { self[Self.salutation] = newValue }
  }
}

struct Greeter {
  @Environment(\.salutation) var salutation
  func greet(_ name: String) -> String { "\(salutation), \(name)!" }
}
// README: end

@Suite struct ReadmeExampleTests {
  @Test func theExampleRunsAsTheReadmeSays() {
    var printed: [String] = []
    func print(_ item: Any) { printed.append("\(item)") }

    // README: begin
    let app = EnvironmentNode("app")
    let paris = app.child("paris") { $0.salutation = "Bonjour" }

    let greeter = paris.withCurrent { Greeter() }  // binds to `paris`
    print(greeter.greet("Ada"))  // Bonjour, Ada!

    app.set(\.salutation, to: "Hi")  // paris still shadows it
    print(greeter.greet("Ada"))  // Bonjour, Ada!
    print(app.withCurrent { Greeter() }.greet("Ada"))  // Hi, Ada!
    // README: end

    #expect(printed == ["Bonjour, Ada!", "Bonjour, Ada!", "Hi, Ada!"])
  }

  /// Every Swift block in the README is exactly the code between the `README` markers of the
  /// test file named in the comment above the block, so the README cannot drift from code that
  /// compiles and runs.
  @Test func everySwiftBlockInTheReadmeIsTestedCode() throws {
    let checked = try Self.checkTestedBlocks(in: "README.md", everyBlock: true)
    #expect(checked >= 2, "README.md should show the tested examples")
  }

  /// A Swift block of a documentation article that names a file, as README blocks do, is
  /// exactly that file's marked code.
  @Test func everyMarkedSwiftBlockInTheArticlesIsTestedCode() throws {
    var checked = 0
    let sources = Self.root.appendingPathComponent("Sources")
    for module in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
      let catalog = "Sources/\(module)/\(module).docc"
      let articles =
        (try? FileManager.default.contentsOfDirectory(
          atPath: Self.root.appendingPathComponent(catalog).path)) ?? []
      for article in articles where article.hasSuffix(".md") {
        checked += try Self.checkTestedBlocks(in: "\(catalog)/\(article)", everyBlock: false)
      }
    }
    #expect(checked >= 1, "Getting started should show the main-actor spelling, tested")
  }

  private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// Checks each Swift block of a document against the `README` regions of the file named in the
  /// `<!-- test: … -->` line above it.
  ///
  /// - Parameters:
  ///   - document: The document's path from the repository's root.
  ///   - everyBlock: Whether a block without a `<!-- test: … -->` line is an issue.
  /// - Returns: How many blocks were checked.
  /// - Throws: When the document or a file it names cannot be read.
  private static func checkTestedBlocks(in document: String, everyBlock: Bool) throws -> Int {
    let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
    let lines = text.components(separatedBy: "\n")
    var checked = 0
    for (index, line) in lines.enumerated() where line == "```swift" {
      let marker = index > 0 ? lines[index - 1] : ""
      guard marker.hasPrefix("<!-- test: "), marker.hasSuffix(" -->") else {
        if everyBlock {
          Issue.record(
            "\(document) line \(index + 1): a Swift block without a `<!-- test: … -->` line")
        }
        continue
      }
      let path = String(marker.dropFirst("<!-- test: ".count).dropLast(" -->".count))
      let block = lines[(index + 1)...].prefix { $0 != "```" }.joined(separator: "\n")
      let source = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
      let regions = source.components(separatedBy: "// README: begin\n").dropFirst()
        .map { $0.components(separatedBy: "// README: end").first ?? "" }
        .map(Self.dedent)
      let expected = regions.joined(separator: "\n").trimmingCharacters(in: .newlines)
      // A block's imports must be the test file's; the code after them must be the regions. A
      // file that stands in for a module the tests cannot import says so:
      // `// README: import SwiftUI is SwiftUIStandIn`.
      let (imports, code) = Self.splitImports(block)
      var fileImports = Set(Self.splitImports(source).imports)
      for match in source.matches(of: /\/\/ README: import (\w+) is (\w+)\n/)
      where fileImports.contains("import \(match.2)") {
        fileImports.insert("import \(match.1)")
      }
      #expect(
        Set(imports).isSubset(of: fileImports),
        "\(document)'s block at line \(index + 1) imports what \(path) does not")
      #expect(
        code == Self.splitImports(expected).code,
        "\(document)'s block at line \(index + 1) drifted from \(path)")
      checked += 1
    }
    return checked
  }

  /// The leading `import` lines of some code, and the code after them.
  private static func splitImports(_ text: String) -> (imports: [String], code: String) {
    let lines = text.components(separatedBy: "\n")
    let body = lines.drop { $0.hasPrefix("import ") || $0.isEmpty || $0.hasPrefix("// README") }
    let imports = lines.prefix(lines.count - body.count).filter { $0.hasPrefix("import ") }
    return (imports, body.joined(separator: "\n").trimmingCharacters(in: .newlines))
  }

  private static func dedent(_ text: String) -> String {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let indent =
      lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
      .map { $0.prefix { $0 == " " }.count }.min() ?? 0
    return lines.map { String($0.dropFirst(indent)) }.joined(separator: "\n")
  }
}
