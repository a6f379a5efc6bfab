import Synchronization

/// One case the budgets count: an operation repeated `iterations` times.
struct CountedCase: Sendable {
  /// The path's name, as `budgets.tsv` spells it.
  let name: String
  /// A case whose count per iteration is taken away from this one's, or `nil`.
  let baseline: String?
  /// Whether the case counts another library's path, which the targets compare Milieu's with:
  /// the runtime lookups `budgets.py` forbids are not Milieu's to forbid there.
  let isAnchor: Bool
  let body: Body

  enum Body: Sendable {
    case synchronous(@Sendable (_ iterations: Int) -> Void)
    case asynchronous(@Sendable (_ iterations: Int) async -> Void)
  }

  init(
    _ name: String, baseline: String? = nil, isAnchor: Bool = false,
    run: @escaping @Sendable (Int) -> Void
  ) {
    self.name = name
    self.baseline = baseline
    self.isAnchor = isAnchor
    self.body = .synchronous(run)
  }

  init(
    _ name: String, baseline: String? = nil, isAnchor: Bool = false,
    run: @escaping @Sendable (Int) async -> Void
  ) {
    self.name = name
    self.baseline = baseline
    self.isAnchor = isAnchor
    self.body = .asynchronous(run)
  }

  /// Runs the case. An asynchronous case runs in a task whose jobs, and those of every task it
  /// starts, this thread runs one at a time (see ``SerialJobs``). The main function stays
  /// synchronous: an asynchronous one ends its thread in Dispatch's signal wait, which crashes
  /// valgrind 3.19.
  func run(iterations: Int) {
    switch body {
    case .synchronous(let run):
      run(iterations)
    case .asynchronous(let run):
      SerialJobs.install()
      let done = Atomic<Bool>(false)
      Task {
        await run(iterations)
        done.store(true, ordering: .releasing)
      }
      SerialJobs.drain { done.load(ordering: .acquiring) }
    }
  }

  static let all: [CountedCase] =
    EnvironmentCases.all + DerivedCases.all + ServerRequest.all + ServerShapedRequest.all
    + AlertCases.all
}

/// Hands a value to code the optimizer cannot see into, so that the value is computed.
@_optimize(none)
func blackHole<Value>(_ value: Value) {}
