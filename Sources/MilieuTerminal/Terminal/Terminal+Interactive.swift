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

  /// Draws `alert` as a box in raw mode and reads keys until the user decides.
  func presentInteractively(
    _ alert: TerminalAlert, cancellation: Int32?
  ) throws(TerminalError) -> TerminalAnswer {
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
    // Whatever happens, the screen must not think a frame is still up.
    defer { if !isFrameEnded { try? screen.endFrame(erasing: false, trailer: Self.showCursor) } }

    func draw() throws(TerminalError) {
      // Never taller than the screen, or each redraw would leave a copy in the scrollback.
      let rows = TerminalSize.measure(output)?.rows ?? TerminalSize.measure(input)?.rows
      let lines = renderer.render(
        alert, width: columns, color: color, focusedButton: focus.focusedButton,
        maximumHeight: rows)
      try screen.drawFrame(lines, columns: columns)
    }

    // The choice is made: failing to show it (the terminal hung up) must not turn it into an
    // error. A cancelled alert was taken away, so its box is erased instead.
    func finish(_ choice: TerminalAnswer) -> TerminalAnswer {
      isFrameEnded = true
      if choice == .cancelled {
        try? screen.endFrame(erasing: true, trailer: Self.showCursor)
      } else {
        try? draw()
        try? screen.endFrame(erasing: false, trailer: "\r\n" + Self.showCursor)
      }
      return choice
    }

    try screen.write(Self.hideCursor)
    try draw()
    while true {
      if RawModeState.caughtSignal.load(ordering: .relaxed) != 0 {
        isFrameEnded = true
        try? screen.endFrame(erasing: false, trailer: "\r\n")
        return .interrupted
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

      for key in keys {
        switch focus.handle(key) {
        case .none:
          break
        case .moveFocus:
          try draw()
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
    }
  }
}
