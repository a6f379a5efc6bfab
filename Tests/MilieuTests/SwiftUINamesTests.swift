import Milieu
import SwiftUIStandIn
import Testing

// README: import SwiftUI is SwiftUIStandIn
// README: begin
extension Milieu.EnvironmentValues {
  static let accent = Entry("blue")
  var accent: String {
    get { self[Self.accent] }
    set { self[Self.accent] = newValue }
  }
}

struct PageSizeKey: Milieu.EnvironmentKey {
  static var defaultValue: Int { 20 }
}

extension Milieu.EnvironmentValues {
  var pageSize: Int {
    get { self[PageSizeKey.self] }
    set { self[PageSizeKey.self] = newValue }
  }
}

struct Palette {
  @Milieu.Environment(\.accent) var accent
  @Milieu.Environment(\.pageSize) var pageSize
}
// README: end

/// A view of the stand-in: SwiftUI's wrapper, qualified by its module in the same file.
struct PaletteView {
  @SwiftUIStandIn.Environment(\.colorScheme) var colorScheme
  let palette = Palette()
}

@Suite struct SwiftUINamesTests {
  @Test func milieusNamesQualifiedByTheModuleReadTheNode() {
    let app = EnvironmentNode("app").child("settings") {
      $0.accent = "green"
      $0.pageSize = 50
    }
    let view = app.withCurrent { PaletteView() }
    #expect(view.palette.accent == "green")
    #expect(view.palette.pageSize == 50)
    #expect(view.colorScheme == "light")
  }
}
