// What the block of the `Milieu` landing page uses and does not declare; see
// scripts/article-blocks.py. *Getting started* declares the same value.
import Milieu

extension EnvironmentValues {
  static let retries = Entry(3)
  var retries: Int {
    get { self[Self.retries] }
    set { self[Self.retries] = newValue }
  }
}
