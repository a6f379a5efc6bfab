import Milieu

/// What the demo shows before its menu: what the environment does for the app's service graph,
/// read from the app's own nodes — an override for one subtree, the derived sync client that
/// follows it, and where the overridden value comes from.
enum ServiceGraphTour {
  /// The tour, line by line.
  static func lines(for app: NotesApp) -> [String] {
    let folder = app.library.work
    let note = folder.roadmap
    let folderNode = folder.$store.node
    return [
      "Milieu demo: a notes app built as a service graph (app → library → folder "
        + "\"\(folder.name)\" → note",
      "\"\(note.title)\"), each service reading what it needs from its own node of an "
        + "environment tree.",
      "",
      "The app sets syncAttempts to \(app.root[\.syncAttempts]); folder \"\(folder.name)\" "
        + "overrides it with \(folderNode[\.syncAttempts]) for its subtree alone.",
      "syncClient is derived from syncServer and syncAttempts, so it follows the override:",
      "  at the library: \(app.library.$store.node[\.syncClient])",
      "  at the note:    \(note.node[\.syncClient]), built for the folder",
      "Where the note's syncAttempts comes from, as node.explain(\\.syncAttempts) says:",
      "  \(note.node.explain(\.syncAttempts))",
      "",
      "milieu-demo --tree draws the whole tree. Each scenario below asks you something from deep "
        + "in it.",
      "",
    ]
  }
}
