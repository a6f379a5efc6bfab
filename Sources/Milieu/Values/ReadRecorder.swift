/// Records the keys that code reads from an ``EnvironmentValues``, each once, in the order first
/// read, with the slot each was found in.
///
/// Milieu learns which key a key path such as `\.retries` stands for by running it once against
/// values that carry a recorder; `explain`, change streams and `removeOverride` rely on it. It is
/// also the one hook the values give the layer above them: a derived value's build runs with a
/// recorder of its own kind (`BuildRecorder`), which is how the value learns its inputs. What
/// that layer attaches to a read, `detail`, means nothing here.
@usableFromInline
class ReadRecorder: @unchecked Sendable {
  // @unchecked: `reads` and `positions` are read and written only while `lock` is held; a build
  // may read its values on several threads.

  /// One key read.
  struct Read: Sendable {
    var identifier: ObjectIdentifier
    var name: SlotName
    /// The slot the read found, or `nil` for the key's default.
    var slot: Slot?
    /// Whether code the recorded code called made this read on its behalf (a derived value's
    /// build, for its reader), rather than the recorded code itself.
    var isInput: Bool
    /// What the layer that made the read attached to it: for a read of a derived value, its
    /// declaration.
    var detail: (any AnyObject & Sendable)?
    /// The address of the slot the read found, 0 for the default: compared, never followed.
    /// Kept apart from `slot`, which a derived value's cell lets go of for its anchor.
    let address: UInt

    init(
      identifier: ObjectIdentifier, name: SlotName, slot: Slot?, isInput: Bool = false,
      detail: (any AnyObject & Sendable)? = nil
    ) {
      self.identifier = identifier
      self.name = name
      self.slot = slot
      self.isInput = isInput
      self.detail = detail
      self.address = slot.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? 0
    }
  }

  /// Guards what this recorder, or a subclass, records.
  let lock = Lock<Void>(())
  @exclusivity(unchecked) private var reads: [Read] = []
  /// Where each key's read is in `reads`, once there are more than a few: a key read again is
  /// found without a search, so recording n reads costs O(n).
  @exclusivity(unchecked) private var positions: [ObjectIdentifier: Int] = [:]

  /// How many reads are searched one by one before `positions` indexes them.
  private static var indexThreshold: Int { 16 }
  /// What the layer above attached to the reads as a whole: for a probe, the kept derived
  /// values read.
  @exclusivity(unchecked) private var attachments: [any AnyObject & Sendable] = []

  @usableFromInline
  init() {}

  /// Records a read of `key` made through `values`, with what the layer that made it attaches.
  @usableFromInline
  func recordRead(
    of key: ObjectIdentifier, name: SlotName, in values: EnvironmentValues,
    detail: (any AnyObject & Sendable)? = nil
  ) {
    record(Read(identifier: key, name: name, slot: values.slot(for: key), detail: detail))
  }

  /// Records a read, unless the key was read before; a key first read on another's behalf and
  /// then by the recorded code itself counts as the recorded code's.
  func record(_ read: Read) {
    lock.withLock { _ in
      let position =
        reads.count <= Self.indexThreshold
        ? reads.firstIndex { $0.identifier == read.identifier } : positions[read.identifier]
      if let position {
        if !read.isInput { reads[position].isInput = false }
        if reads[position].detail == nil { reads[position].detail = read.detail }
        return
      }
      reads.append(read)
      if reads.count > Self.indexThreshold {
        if positions.isEmpty {
          for (index, read) in reads.enumerated() { positions[read.identifier] = index }
        } else {
          positions[read.identifier] = reads.count - 1
        }
      }
    }
  }

  /// Attaches an object to what is recorded.
  func attach(_ object: any AnyObject & Sendable) {
    lock.withLock { _ in attachments.append(object) }
  }

  /// The objects attached, moved out of the recorder.
  func takeAttachments() -> [any AnyObject & Sendable] {
    lock.withLock { _ in
      defer { attachments = [] }
      return attachments
    }
  }

  /// Everything recorded, moved out of the recorder.
  func takeReads() -> [Read] {
    lock.withLock { _ in
      positions = [:]
      defer { reads = [] }
      return reads
    }
  }
}

extension ReadRecorder.Read {
  /// Whether `values` finds the slot this read found.
  @inline(__always)
  func isSeen(in values: EnvironmentValues) -> Bool {
    (values.unretainedSlot(for: identifier).map { UInt(bitPattern: $0.toOpaque()) } ?? 0) == address
  }
}
