// The notes server, Milieu's variant: one app node for what the process shares, and a child of
// it for each request (see `RequestEnvironmentMiddleware`).
import Milieu
import NotesServerKit

let (configuration, logger) = NotesConfiguration.fromCommandLine()

let app = EnvironmentNode("notes-server")
app.update { values in
  values.configuration = configuration
  values.logger = logger
  values.notesStore = NotesStore()
  values.clock = ContinuousClock()
  values.notify = .logging
}

let application = app.withCurrent { NotesApplication.make() }
try await application.runService()
