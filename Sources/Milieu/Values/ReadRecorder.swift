/// Records the keys that code reads from an ``EnvironmentValues``, each once, in the order first
/// read, with the stamp of the write each read found.
///
/// Milieu learns which key a key path such as `\.retries` stands for by running it once against
/// values that carry a recorder; `explain`, change streams and `removeOverride` rely on it. It is
/// also the one hook the values give the layer above them: a derived value's build runs with a
/// recorder of its own, which is how the value learns its inputs. What that layer attaches to a
/// read (`detail`) or to the reads as a whole (attachments, a flag) means nothing here.
@usableFromInline
final class ReadRecorder: Sendable {
  /// One key read.
  struct Read: Sendable {
    var key: ObjectIdentifier
    var name: ValueName
    /// The stamp of the write the read found, 0 for the key's default; for a derived value
    /// read, the stamp of the value built.
    var stamp: UInt64
    /// Whether code the recorded code called made this read on its behalf (a derived value's
    /// build, for its reader), rather than the recorded code itself.
    var isInput = false
    /// What the layer that made the read attached to it: for a read of a derived value, its
    /// declaration.
    var detail: (any AnyObject & Sendable)? {
      didSet { hasDetail = detail != nil }
    }
    /// Whether `detail` is set: checked without retaining it.
    private(set) var hasDetail = false
    /// The entry read, which holds its default; `nil` for a key type or a derived value.
    var entry: (any AnyObject & Sendable)?

    init(
      key: ObjectIdentifier, name: ValueName, stamp: UInt64, isInput: Bool = false,
      detail: (any AnyObject & Sendable)? = nil
    ) {
      self.key = key
      self.name = name
      self.stamp = stamp
      self.isInput = isInput
      self.detail = detail
      self.hasDetail = detail != nil
    }
  }

  private struct State {
    var reads: [Read] = []
    /// Where each key's read is in `reads`, once there are more than a few: a key read again is
    /// found without a search, so recording n reads costs O(n).
    var positions: [ObjectIdentifier: Int] = [:]
    /// What the layer above attached to the reads as a whole: the kept derived values read.
    var attachments: [any AnyObject & Sendable] = []
    /// Whether the layer above flagged the reads: a derived value read got its fallback.
    var isFlagged = false
  }

  /// How many reads are searched one by one before `positions` indexes them.
  private static var indexThreshold: Int { 16 }

  private let state = Lock(State())

  @usableFromInline
  init() {}

  /// Records a read of `key` made through `values`, with what the layer that made it attaches.
  @usableFromInline
  func recordRead(
    of key: ObjectIdentifier, name: ValueName, in values: EnvironmentValues,
    detail: (any AnyObject & Sendable)? = nil, entry: (any AnyObject & Sendable)? = nil
  ) {
    var read = Read(key: key, name: name, stamp: values.stamp(of: key), detail: detail)
    read.entry = entry
    record(read)
  }

  /// Records a read, unless the key was read before; a key first read on another's behalf and
  /// then by the recorded code itself counts as the recorded code's.
  func record(_ read: Read) {
    WorkCount.add()
    state.withLock { state in
      let position =
        state.reads.count <= Self.indexThreshold
        ? state.reads.firstIndex { $0.key == read.key } : state.positions[read.key]
      if let position {
        if !read.isInput { state.reads[position].isInput = false }
        if state.reads[position].detail == nil { state.reads[position].detail = read.detail }
        return
      }
      state.reads.append(read)
      if state.reads.count > Self.indexThreshold {
        if state.positions.isEmpty {
          for (index, read) in state.reads.enumerated() { state.positions[read.key] = index }
        } else {
          state.positions[read.key] = state.reads.count - 1
        }
      }
    }
  }

  /// Attaches an object to what is recorded.
  func attach(_ object: any AnyObject & Sendable) {
    state.withLock { $0.attachments.append(object) }
  }

  /// Attaches several objects to what is recorded.
  func attach(contentsOf objects: [any AnyObject & Sendable]) {
    guard !objects.isEmpty else { return }
    state.withLock { $0.attachments += objects }
  }

  /// Flags what is recorded.
  func flag() {
    state.withLock { $0.isFlagged = true }
  }

  /// Whether what is recorded was flagged.
  var isFlagged: Bool { state.withLock { $0.isFlagged } }

  /// The objects attached, moved out of the recorder.
  func takeAttachments() -> [any AnyObject & Sendable] {
    state.withLock { state in
      defer { state.attachments = [] }
      return state.attachments
    }
  }

  /// Everything recorded, moved out of the recorder.
  func takeReads() -> [Read] {
    state.withLock { state in
      state.positions = [:]
      defer { state.reads = [] }
      return state.reads
    }
  }
}
