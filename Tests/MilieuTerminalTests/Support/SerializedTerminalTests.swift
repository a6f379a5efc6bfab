import Testing

/// Raw mode is process-wide state, so every test that enters it runs in this suite, one at a time.
@Suite("Terminal", .serialized)
enum SerializedTerminalTests {}
