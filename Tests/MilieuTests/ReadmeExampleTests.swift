import Foundation
import Milieu
import Testing

// README: begin
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

  /// The README's first Swift example is exactly the code between the `README` markers above.
  @Test func theReadmeShowsExactlyThisCode() throws {
    let testFile = URL(fileURLWithPath: #filePath)
    let readme = testFile.deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("README.md")
    let readmeText = try String(contentsOf: readme, encoding: .utf8)
    let source = try String(contentsOf: testFile, encoding: .utf8)

    let block = try #require(
      readmeText.components(separatedBy: "```swift\n").dropFirst().first?
        .components(separatedBy: "```").first,
      "README.md has no ```swift block")
    let regions = source.components(separatedBy: "// README: begin\n").dropFirst()
      .map { $0.components(separatedBy: "// README: end").first ?? "" }
      .map(Self.dedent)
    let expected = "import Milieu\n\n" + regions.joined(separator: "\n")
    #expect(block == expected, "README.md's example drifted from ReadmeExampleTests.swift")
  }

  private static func dedent(_ text: String) -> String {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let indent =
      lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
      .map { $0.prefix { $0 == " " }.count }.min() ?? 0
    return lines.map { String($0.dropFirst(indent)) }.joined(separator: "\n")
  }
}
