// The notes server with swift-dependencies: the same server as `NotesServer`, with each
// request's values set by `withDependencies` and read with `@Dependency` instead of a node.
// `load.sh` measures the three variants side by side.
import Dependencies
import NotesServerKit
import NotesServerWithDependenciesKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let (configuration, logger, store) = NotesConfiguration.fromCommandLine()

let status = await withDependencies {
  $0.notesConfiguration = configuration
  $0.logger = logger
  $0.notesService = NotesService(
    store: store, clock: ContinuousClock(), notify: .loggingWithDependencies,
    deletionTokenLifetime: configuration.deletionTokenLifetime)
} operation: {
  await NotesServerProcess.run(
    HandStartedStore.around(DependenciesApplication.make(), store: store),
    shutdownTimeout: configuration.shutdownTimeout, logger: logger)
}
exit(status)
