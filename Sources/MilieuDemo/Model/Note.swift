/// One note in a folder.
struct Note: Sendable, Hashable {
  var title: String
  var isSelected = false
}
