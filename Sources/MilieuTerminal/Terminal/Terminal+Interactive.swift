#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Terminal {
  /// How long to wait for input before checking for resizes and signals, in milliseconds.
  static let pollInterval: Int32 = 200
  /// The most bytes taken from the terminal in one read.
  static let readSize = 256
  static let hideCursor = "\u{1B}[?25l"
  static let showCursor = "\u{1B}[?25h"
  /// Asks the terminal to bracket what is pasted, so that a line break in pasted text is not
  /// Enter; ``RawModeState/stopBracketingPastes()`` asks it to stop.
  static let bracketedPasteOn = "\u{1B}[?2004h"

  /// Draws `alert` as a box in raw mode and reads keys until the user decides.
  ///
  /// - Returns: The answer, and the text of each of the alert's fields as typed.
  func presentInteractively(
    _ alert: TerminalAlert, cancellation: Int32?
  ) throws(TerminalError) -> Reply {
    try RawModeState.enter(input: input, output: output)
    var inRawMode = true
    defer { if inRawMode { RawModeState.leave() } }
    TerminalResizeMonitor.start()
    defer { TerminalResizeMonitor.stop() }

    let color = colorPolicy.allowsColor(forOutput: output)
    let screen = TerminalScreen.forOutput(output)
    var focus = AlertFocus(alert: alert)
    var decoder = KeyDecoder()
    var columns = TerminalSize.currentColumns(of: [output, input])
    var isFrameEnded = false
    // Pastes are bracketed only while the alert has fields to paste into.
    let pastes = !alert.textFields.isEmpty
    // Whatever happens, the screen must not think a frame is still up.
    defer { if !isFrameEnded { try? screen.endFrame(erasing: false, trailer: Self.showCursor) } }

    func draw() throws(TerminalError) {
      // Never taller than the screen, or each redraw would leave a copy in the scrollback.
      let rows = TerminalSize.measure(output)?.rows ?? TerminalSize.measure(input)?.rows
      let lines = renderer.render(
        alert, width: columns, color: color, focus: focus, maximumHeight: rows)
      try screen.drawFrame(lines, columns: columns)
    }

    // The choice is made: failing to show it (the terminal hung up) must not turn it into an
    // error. A cancelled alert was taken away, so its box is erased instead.
    func finish(_ choice: TerminalAnswer) -> Reply {
      isFrameEnded = true
      if choice == .cancelled {
        try? screen.endFrame(erasing: true, trailer: Self.showCursor)
      } else {
        try? draw()
        try? screen.endFrame(erasing: false, trailer: "\r\n" + Self.showCursor)
      }
      return (choice, focus.texts)
    }

    if pastes { RawModeState.isPasteBracketed.store(true, ordering: .releasing) }
    // Once: a signal's restore may have stopped them already.
    defer { RawModeState.stopBracketingPastes() }
    try screen.write(Self.hideCursor + (pastes ? Self.bracketedPasteOn : ""))
    try draw()
    while true {
      if RawModeState.caughtSignal.load(ordering: .relaxed) != 0 {
        // The signal's restore showed the cursor and stopped bracketed pastes.
        isFrameEnded = true
        try? screen.endFrame(erasing: false, trailer: "\r\n")
        return (.interrupted, focus.texts)
      }
      if TerminalResizeMonitor.consumeResize() {
        columns = TerminalSize.currentColumns(of: [output, input])
        try draw()
      }

      var keys: [Key] = []
      let timeout = decoder.hasPendingInput ? max(0, escapeTimeout) : Self.pollInterval
      switch try FileDescriptorIO.waitForInput(input, cancellation: cancellation, timeout: timeout)
      {
      case .interrupted:
        continue
      case .cancelled:
        return finish(.cancelled)
      case .timedOut:
        keys = decoder.flush()
      case .ready:
        if let bytes = try FileDescriptorIO.read(input, maximum: Self.readSize) {
          keys = decoder.decode(bytes)
        } else {
          keys = decoder.flush() + [.endOfInput]
        }
      }

      // Drawn once for all the keys of one read: a paste is hundreds of them.
      var needsDrawing = false
      for key in keys {
        switch focus.handle(key) {
        case .none:
          break
        case .redraw:
          needsDrawing = true
        case .tap(let index):
          return finish(.button(index))
        case .dismiss:
          return finish(.dismissed)
        case .interrupt:
          let choice = finish(.interrupted)
          if interruptBehavior == .raiseSignal {
            inRawMode = false
            RawModeState.leave()
            // To the process, not this thread, which may block SIGINT.
            _ = kill(getpid(), SIGINT)
          }
          return choice
        }
      }
      if needsDrawing { try draw() }
    }
  }
}
