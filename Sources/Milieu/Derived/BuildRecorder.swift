import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The recorder a derived value's build reads its values through: what the build read, the
/// kept derived values it read, and whether one of them gave it a fallback.
final class BuildRecorder: ReadRecorder, @unchecked Sendable {
  // @unchecked: `cells` and `readFallback` are read and written only while `lock` is held.

  /// What is being built, and the build it is part of.
  let frame: DerivationFrame
  @exclusivity(unchecked) private var cells: [DerivedCell] = []
  @exclusivity(unchecked) private var readFallback = false

  init(frame: DerivationFrame) {
    self.frame = frame
  }

  /// Records that a derived value read got its fallback, or was built from one.
  func recordFallback() {
    lock.withLock { _ in readFallback = true }
  }

  /// Records kept derived values read, directly or through others.
  func recordCells(_ read: [DerivedCell]) {
    guard !read.isEmpty else { return }
    lock.withLock { _ in cells += read }
  }

  /// What a build read: each key once, the kept derived values among them and below them, and
  /// whether one of them gave it a fallback.
  typealias Recorded = (reads: [Read], cells: [DerivedCell], readFallback: Bool)

  /// Everything recorded, moved out of the recorder.
  func takeRecorded() -> Recorded {
    let reads = takeReads()
    return lock.withLock { _ in
      defer { cells = [] }
      return (reads, cells, readFallback)
    }
  }

  /// The recorder of the innermost build running on this thread, kept in thread-specific
  /// storage, unretained: the build that set it holds it until it restores the one before.
  static var innermost: BuildRecorder? {
    pthread_getspecific(innermostKey).map {
      Unmanaged<BuildRecorder>.fromOpaque($0).takeUnretainedValue()
    }
  }

  private static let innermostKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
  }()

  /// Runs `body` as the innermost build on this thread, then makes this recorder's parent the
  /// innermost again: the parent must be the innermost build when this is called.
  func run<Result>(_ body: () -> Result) -> Result {
    let previous = frame.parent.map { Unmanaged.passUnretained($0).toOpaque() }
    pthread_setspecific(Self.innermostKey, Unmanaged.passUnretained(self).toOpaque())
    defer { pthread_setspecific(Self.innermostKey, previous) }
    return body()
  }
}

/// One build in progress, as its recorder knows it: what is built, and the build it is part of.
struct DerivationFrame: Sendable {
  let derivation: AnyDerived
  let name: SlotName
  /// The build that read this value, on the same thread.
  let parent: BuildRecorder?
  /// Whether the value, or one that reads it, is kept and shared by several nodes.
  let isShared: Bool
  /// The values the build reads, whose reporter its issues go to.
  let values: EnvironmentValues

  init(derivation: AnyDerived, name: SlotName, parent: BuildRecorder?, values: EnvironmentValues) {
    self.derivation = derivation
    self.name = name
    self.parent = parent
    self.isShared = derivation.lifetime != .newOnEveryRead || parent?.frame.isShared == true
    self.values = values.unrecorded
  }

  /// Where the build's issues go.
  var reporter: IssueReporter { values.issueReporter }

  /// The builds in progress on this thread, innermost first.
  var chain: [DerivationFrame] {
    var frames = [self]
    while let parent = frames[frames.count - 1].parent?.frame { frames.append(parent) }
    return frames
  }
}

extension EnvironmentValues {
  /// These values without a recorder: what Milieu itself reads must not count as an input.
  var unrecorded: EnvironmentValues {
    var values = self
    values.recorder = nil
    return values
  }
}
