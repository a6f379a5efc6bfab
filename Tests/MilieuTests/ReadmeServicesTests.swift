import Milieu
import Testing

// README: begin
extension EnvironmentValues {
  static let region = Entry("eu")
  var region: String {
    get { self[Self.region] }
    set { self[Self.region] = newValue }
  }
}

struct Uploader {
  @Environment(\.region) var region
}

final class Library {
  @Environment(\.region) var region

  func makeUploader() -> Uploader {
    withEnvironment(from: self) { Uploader() }  // binds where the library does
  }
}
// README: end

@Suite struct ReadmeServicesTests {
  @Test func aServiceMadeLaterReadsWhereItsMakerReads() {
    var printed: [String] = []
    func print(_ item: Any) { printed.append("\(item)") }

    // README: begin
    let tenant = EnvironmentNode("app").child("tenant") { $0.region = "us" }
    let library = tenant.withCurrent { Library() }
    print(library.makeUploader().region)  // us
    print(Uploader().region)  // eu: made outside any scope, it binds to the process root
    // README: end

    #expect(printed == ["us", "eu"])
  }
}
