// The notes server, Milieu's variant: one app node for what the process shares, and a child of
// it for each request (see `RequestEnvironmentMiddleware`); the store starts before the server
// accepts anything and closes after its last request.
import Milieu
import NotesServerKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let (configuration, logger, store) = NotesConfiguration.fromCommandLine()

let app = EnvironmentNode("notes-server")
app.update { values in
  values.configuration = configuration
  values.logger = logger
  values.notesStore = store
  values.clock = ContinuousClock()
  values.notify = .logging
}

let application = app.withCurrent { NotesApplication.make() }
exit(
  await NotesServerProcess.run(
    server: application, start: { try await store.start(logging: logger) },
    stop: { await store.stop(logging: logger) }, shutdownTimeout: configuration.shutdownTimeout,
    logger: logger))
