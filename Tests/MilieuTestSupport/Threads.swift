import Dispatch
import Foundation

/// Runs `body` on `count` threads of their own, at once, and returns when every one has
/// finished.
///
/// Threads rather than `DispatchQueue.concurrentPerform`, which runs only as many iterations at
/// once as the machine has cores: code under test that blocks until all of them have started
/// would wait forever there.
///
/// ```swift
/// onThreads(16) { index in _ = node[\.repository] }
/// ```
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
  let finished = DispatchGroup()
  for index in 0..<count {
    finished.enter()
    Thread {
      body(index)
      finished.leave()
    }.start()
  }
  finished.wait()
}
