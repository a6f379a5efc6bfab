@_spi(MilieuInternal) import Milieu
import MilieuTestSupport
import Synchronization
import Testing

/// Random sequences of operations over one shared tree, checked against a reference model: a
/// dictionary of overrides per node, walked to the root.
///
/// Reads run concurrently with everything; writes (`set`, `update`, `removeOverride`, `child`)
/// are serialized by the model's lock, which they hold around the real write, so the model has
/// one history. Every read must equal what the model answered at some moment between the
/// read's start and its end. Seeded, so a failure reproduces.
@Suite struct ModelTests {
  static let taskCount = 8
  static let operationsPerTask = 2_000

  @Test(arguments: [0x1, 0xC0FFEE])
  func everyReadMatchesTheModelAtSomeMomentDuringIt(seed: UInt64) async {
    let world = ModelWorld(initialNodes: 200, seed: seed)
    let failures = await withTaskGroup(of: [String].self) { group in
      for task in 0..<Self.taskCount {
        group.addTask {
          var random = SplitMix64(seed: seed &* 31 &+ UInt64(task))
          var failures: [String] = []
          for step in 0..<Self.operationsPerTask {
            let value = (task + 1) * 1_000_000 + step
            if let failure = world.perform(
              UInt8.random(in: 0..<20, using: &random), value: value, using: &random)
            {
              failures.append(failure)
            }
          }
          return failures
        }
      }
      return await group.reduce(into: []) { $0 += $1 }
    }
    #expect(
      failures.count == 0, "\(failures.count) reads disagreed with the model: \(failures.prefix(5))"
    )
    #expect(world.reads.load(ordering: .relaxed) > 0)
    #expect(world.writes.load(ordering: .relaxed) > 0)
  }
}

/// The tree under test, the model, and the clock that orders the model's history.
final class ModelWorld: Sendable {
  /// One node of the tree as the test holds it: `nil` once dropped.
  struct Held {
    var node: EnvironmentNode?
    var reader: ModelPairReader?
  }

  struct Model {
    var parents: [Int?] = []
    /// Each node's overrides after each write to it, by the version of the clock it began at.
    var histories: [[(version: UInt64, overrides: [Key: Int])]] = []
    var held: [Held] = []
  }

  enum Key: Hashable { case left, right }

  // Not audited: writes to the tree run under this lock, so that the model changes with them.
  private let model = Lock(Model(), audited: false)
  /// Even while no write is under way; odd from just before a write until just after it.
  private let clock = Atomic<UInt64>(0)
  let reads = Atomic<Int>(0)
  let writes = Atomic<Int>(0)

  init(initialNodes: Int, seed: UInt64) {
    var random = SplitMix64(seed: seed)
    model.withLock { model in
      let root = EnvironmentNode("model-root")
      Self.register(root, parent: nil, overrides: [:], version: 0, in: &model)
      for _ in 1..<initialNodes {
        let parent = Int.random(in: 0..<model.held.count, using: &random)
        guard let node = model.held[parent].node?.child() else { continue }
        Self.register(node, parent: parent, overrides: [:], version: 0, in: &model)
      }
    }
  }

  private static func register(
    _ node: EnvironmentNode, parent: Int?, overrides: [Key: Int], version: UInt64,
    in model: inout Model
  ) {
    model.parents.append(parent)
    model.histories.append([(version, overrides)])
    model.held.append(Held(node: node, reader: node.withCurrent { ModelPairReader() }))
  }

  /// Runs one random operation; returns a description of the disagreement if a read found one.
  func perform(_ choice: UInt8, value: Int, using random: inout SplitMix64) -> String? {
    let count = model.withLock { $0.held.count }
    let index = Int.random(in: 0..<count, using: &random)
    let key: Key = Bool.random(using: &random) ? .left : .right
    switch choice {
    case 0..<8: return read(at: index, way: choice % 4)
    case 8..<11: write(at: index, [key: value])
    case 11..<14: write(at: index, [.left: value, .right: value + 1])
    case 14..<16: write(at: index, [key: nil])
    case 16..<18:
      let overrides: [Key: Int] = Bool.random(using: &random) ? [key: value] : [:]
      makeChild(of: index, overrides: overrides)
    default:
      // The root stays: everything else may go, and lives on while a child holds it.
      if index > 0 { model.withLock { $0.held[index] = Held() } }
    }
    return nil
  }

  /// Reads the pair one of four ways: through a wrapper or the node's values, as a computed
  /// property or as a derived value.
  private func read(at index: Int, way: UInt8) -> String? {
    let held = model.withLock { $0.held[index] }
    guard let node = held.node, let reader = held.reader else { return nil }
    let start = clock.load(ordering: .acquiring)
    // One `values` is one snapshot: both halves come from it.
    let pair =
      switch way {
      case 0: reader.pair
      case 1: reader.derivedPair
      case 2: node.values.derivedPair
      default: node.values.modelPair
      }
    let end = clock.load(ordering: .acquiring)
    reads.add(1, ordering: .relaxed)
    // A write under way at the start may or may not have been seen.
    let earliest = start & 1 == 1 ? start - 1 : start
    let matched = model.withLock { model in
      (earliest...end).contains { Self.answer(at: index, version: $0, in: model) == pair }
    }
    guard !matched else { return nil }
    return "node \(index) read \(pair) between versions \(start) and \(end)"
  }

  /// Writes through `set` or `removeOverride` for one key, through one `update` for two.
  private func write(at index: Int, _ changes: [Key: Int?]) {
    model.withLock { model in
      guard let node = model.held[index].node else { return }
      let version = clock.add(1, ordering: .acquiringAndReleasing).newValue
      for (key, value) in changes {
        switch (key, value) {
        case (.left, let value?): if changes.count == 1 { node.set(\.pairLeft, to: value) }
        case (.right, let value?): if changes.count == 1 { node.set(\.pairRight, to: value) }
        case (.left, nil): node.removeOverride(\.pairLeft)
        case (.right, nil): node.removeOverride(\.pairRight)
        }
      }
      if changes.count > 1 {
        node.update { values in
          if let left = changes[.left] ?? nil { values.pairLeft = left }
          if let right = changes[.right] ?? nil { values.pairRight = right }
        }
      }
      var overrides = model.histories[index].last?.overrides ?? [:]
      for (key, value) in changes { overrides[key] = value }
      model.histories[index].append((version, overrides))
      clock.add(1, ordering: .releasing)
    }
    writes.add(1, ordering: .relaxed)
  }

  private func makeChild(of index: Int, overrides: [Key: Int]) {
    model.withLock { model in
      guard let parent = model.held[index].node else { return }
      let child = parent.child { values in
        if let left = overrides[.left] { values.pairLeft = left }
        if let right = overrides[.right] { values.pairRight = right }
      }
      let version = clock.load(ordering: .relaxed)
      Self.register(child, parent: index, overrides: overrides, version: version, in: &model)
    }
  }

  /// What the model says a node reads at a version: the nearest override on its path.
  private static func answer(at index: Int, version: UInt64, in model: Model) -> ModelPair {
    ModelPair(
      left: value(of: .left, at: index, version: version, in: model),
      right: value(of: .right, at: index, version: version, in: model))
  }

  private static func value(of key: Key, at index: Int, version: UInt64, in model: Model) -> Int {
    var cursor: Int? = index
    while let node = cursor {
      let state = model.histories[node].last { $0.version <= version }
      if let value = state?.overrides[key] { return value }
      cursor = model.parents[node]
    }
    return 0
  }
}

struct ModelPair: Sendable, Equatable, CustomStringConvertible {
  var left: Int
  var right: Int
  var description: String { "(\(left), \(right))" }
}

extension EnvironmentValues {
  var modelPair: ModelPair { ModelPair(left: pairLeft, right: pairRight) }

  /// The same pair, built as a derived value: kept where nodes see the same two slots.
  static let derivedPair = Derived { ModelPair(left: $0.pairLeft, right: $0.pairRight) }
  var derivedPair: ModelPair { self[Self.derivedPair] }
}

/// Reads both halves through `@Environment` wrappers, whose caches the model checks too: one
/// reads them as a computed property, one as a derived value.
struct ModelPairReader: Sendable {
  @Environment(\.modelPair) var pair
  @Environment(\.derivedPair) var derivedPair
}
