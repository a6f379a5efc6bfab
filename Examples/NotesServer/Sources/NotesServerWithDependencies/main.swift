// The notes server with swift-dependencies: the same server as `NotesServer`, with each
// request's values set by `withDependencies` and read with `@Dependency` instead of a node.
// `load.sh` measures the three variants side by side.
import Dependencies
import NotesServerKit
import NotesServerWithDependenciesKit

let (configuration, logger) = NotesConfiguration.fromCommandLine()

try await withDependencies {
  $0.notesConfiguration = configuration
  $0.logger = logger
  $0.notesService = NotesService(
    store: NotesStore(), clock: ContinuousClock(), notify: .loggingWithDependencies,
    deletionTokenLifetime: configuration.deletionTokenLifetime)
} operation: {
  try await DependenciesApplication.make().runService()
}
