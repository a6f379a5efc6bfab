import Milieu

extension EnvironmentValues {
  static let notesStore = Entry(NotesStore())

  /// Where the notes live. The app's root node sets the sample library; the default is empty.
  var notesStore: NotesStore {
    get { self[Self.notesStore] }
    set { self[Self.notesStore] = newValue }
  }
}
