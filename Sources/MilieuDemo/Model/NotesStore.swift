/// The notes of the library, by folder name.
actor NotesStore: CustomStringConvertible {
  private var folders: [String: [Note]]

  /// Creates a store holding the given folders.
  init(folders: [String: [Note]] = [:]) {
    self.folders = folders
  }

  /// The library the demo starts with: a folder "Work" with five notes, three of them selected.
  static func sample() -> NotesStore {
    NotesStore(folders: [
      "Work": [
        Note(title: "Roadmap"),
        Note(title: "Standup", isSelected: true),
        Note(title: "Hiring plan"),
        Note(title: "Offsite", isSelected: true),
        Note(title: "Budget", isSelected: true),
      ]
    ])
  }

  /// `NotesStore`, for tree dumps.
  nonisolated var description: String { "NotesStore" }

  /// The notes of a folder.
  func notes(in folder: String) -> [Note] {
    folders[folder] ?? []
  }

  /// The titles of the selected notes of a folder.
  func selection(in folder: String) -> [String] {
    notes(in: folder).filter(\.isSelected).map(\.title)
  }

  /// Deletes notes from a folder by title.
  ///
  /// - Returns: How many notes the folder has left.
  func delete(_ titles: [String], from folder: String) -> Int {
    let doomed = Set(titles)
    folders[folder, default: []].removeAll { doomed.contains($0.title) }
    return folders[folder, default: []].count
  }
}
