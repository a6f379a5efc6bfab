import Synchronization

// The storage of environment values: one block per set of values. One of the three files of the
// core that hold unsafe code (the others: `Support/Synchronization.swift` and
// `Tree/EnvironmentNode.swift`), and the only one with pointer code over values.
//
// What this file guarantees to the rest of the core, which uses only its safe surface:
// - A frame is one allocation: a header and up to `capacity` records, each a key, its name, the
//   stamp of the write that stored it, where it was written and its value. Values that fit three
//   words (an `Int`, a `String`, a class reference) are stored in the record; larger ones in a
//   box of their own.
// - A frame changes only while one reference holds it and it is not frozen; `write(_:into:)`
//   copies it otherwise, so a frame that anyone else can see never changes. A node freezes the
//   frames it publishes. Debug builds check the count, the freeze and the uniqueness.
// - Records never leave the frame: a pointer to one lives inside a method of this file only, and
//   what callers get is a copy of its fields (`RecordInfo`) or of its value.
// - A record's `home` is the own frame that holds the write: the frame itself, or, in a view, a
//   frame the view keeps alive through its `top` and `base`.
// - A stamp is never reused: every frame takes its stamps in blocks from one process-wide counter.

/// The values one node or one ``EnvironmentValues`` holds, or a node's values merged into one
/// block (a *view*): records by key, in one allocation.
///
/// An *own* frame holds what was written to a node or to free-standing values; its records are
/// homed in it. A *view* holds everything a node's children see: its `top` (the node's own
/// frame) laid over its `base` (the view of the nearest ancestor that overrides something), copied
/// into one block so that a read is one lookup at any depth.
@usableFromInline
struct Frame: @unchecked Sendable {
  // @unchecked: a frame is changed only while uniquely referenced and not frozen (see the file's
  // guarantees); once shared it is read only, but for its attachment, which is atomic.

  /// The block itself: `ManagedBuffer` holds the header and the records in one allocation.
  @usableFromInline var buffer: FrameBuffer

  @usableFromInline
  init(buffer: FrameBuffer) {
    self.buffer = buffer
  }

  /// A field of the header, read in place: `buffer.header` would check exclusive access to the
  /// whole header at run time, which costs more than most reads.
  @inline(__always)
  func header<Field>(_ field: KeyPath<FrameHeader, Field>) -> Field {
    buffer.withUnsafeMutablePointerToHeader { $0.pointee[keyPath: field] }
  }

  /// The identity of the block, to compare with one held.
  var identity: ObjectIdentifier { ObjectIdentifier(buffer) }

  /// A number no other frame has had or will have: a frame's identity that outlives it.
  var id: UInt64 { header(\.id) }

  /// Whether this is the only reference to the block.
  mutating func isUnique() -> Bool { isKnownUniquelyReferenced(&buffer) }

  /// How many records a lookup compares one by one before an index pays.
  @usableFromInline static var scanLimit: Int { 8 }

  /// A frozen, empty frame: what a node whose ancestors override nothing inherits.
  static let nothing: Frame = {
    let frame = make(capacity: 0)
    frame.freeze(depth: 0)
    frame.buffer.withUnsafeMutablePointerToHeader { $0.pointee.isNothing = true }
    return frame
  }()

  /// Whether `buffer` is ``nothing``'s, told from its header: `nothing` itself is a global
  /// whose every access checks that it was made.
  static func isNothing(_ buffer: FrameBuffer) -> Bool {
    buffer.withUnsafeMutablePointerToHeader { $0.pointee.isNothing }
  }

  /// Makes an empty, unfrozen frame with room for `capacity` records.
  static func make(capacity: Int) -> Frame {
    let buffer = FrameBuffer.create(minimumCapacity: capacity) { _ in
      FrameHeader(capacity: capacity)
    }
    return Frame(buffer: unsafeDowncast(buffer, to: FrameBuffer.self))
  }

  // MARK: Reading

  /// The hash every lookup starts from: a multiplicative hash of the key's address.
  @inline(__always)
  static func hash(_ key: ObjectIdentifier) -> UInt64 {
    UInt64(UInt(bitPattern: key)) &* 0x9E37_79B9_7F4A_7C15
  }

  /// Where the record for `key` is, if this frame has one.
  @inlinable @inline(__always)
  func position(of key: ObjectIdentifier) -> Int? {
    buffer.withUnsafeMutablePointers { Self.position(of: key, header: $0, records: $1) }
  }

  /// The value stored for `key`, whose values are of type `Value`.
  @inlinable @inline(__always)
  func value<Value: Sendable>(for key: ObjectIdentifier, as _: Value.Type) -> Value? {
    buffer.withUnsafeMutablePointers { header, records in
      guard let position = Self.position(of: key, header: header, records: records) else {
        return nil
      }
      return records[position].value.load(as: Value.self)
    }
  }

  /// Where the record for `key` is: a frame of a few records is searched in place, which the
  /// caller inlines; a larger one through its filter and index, out of line.
  @inlinable @inline(__always)
  static func position(
    of key: ObjectIdentifier, header: UnsafeMutablePointer<FrameHeader>,
    records: UnsafeMutablePointer<FrameRecord>
  ) -> Int? {
    let count = header.pointee.count
    guard count <= scanLimit else {
      return indexedPosition(of: key, header: header, records: records)
    }
    for position in 0..<count where records[position].key == key { return position }
    return nil
  }

  /// Where the record for `key` is, found through the filter and the index.
  @usableFromInline
  static func indexedPosition(
    of key: ObjectIdentifier, header: UnsafeMutablePointer<FrameHeader>,
    records: UnsafeMutablePointer<FrameRecord>
  ) -> Int? {
    let hash = Self.hash(key)
    guard header.pointee.filter & (1 &<< (hash &>> 58)) != 0 else { return nil }
    return header.pointee.index.withUnsafeBufferPointer { index in
      let mask = index.count - 1
      var slot = Int(truncatingIfNeeded: hash &>> 32) & mask
      while index[slot] != 0 {
        WorkCount.add()
        let position = Int(index[slot]) - 1
        if records[position].key == key { return position }
        slot = (slot + 1) & mask
      }
      return nil
    }
  }

  /// The number of records.
  var count: Int { header(\.count) }

  /// The stamp of the record at `position`.
  func stamp(at position: Int) -> UInt64 {
    buffer.withUnsafeMutablePointerToElements { $0[position].stamp }
  }

  /// The own frame that holds the write of the record at `position`: this frame, or, for a view,
  /// one the view keeps alive.
  func home(at position: Int) -> Frame {
    buffer.withUnsafeMutablePointerToElements { records in
      records[position].home.map { Frame(buffer: $0.takeUnretainedValue()) }
    } ?? self
  }

  /// The depth of the node that owns this frame; `UInt32.max` for free-standing values, whose
  /// writes are the nearest of all.
  var depth: UInt32 { header(\.depth) }

  /// For a view, the own frame merged in; `nil` for an own frame.
  var top: Frame? { header(\.top) }

  /// Whether `buffer` is the view of `own`, told without retaining either.
  static func isView(_ buffer: FrameBuffer, of own: Frame) -> Bool {
    buffer.withUnsafeMutablePointerToHeader { $0.pointee.topIdentity } == own.identity
  }

  /// For a view, the view merged under `top`.
  var base: Frame? { header(\.base) }

  /// For a view, the node whose view it is, and the node whose view it is laid over, unretained:
  /// a node that holds the view is below both.
  static func owners(of buffer: FrameBuffer) -> (owner: UInt, above: UInt) {
    buffer.withUnsafeMutablePointerToHeader { ($0.pointee.owner, $0.pointee.aboveOwner) }
  }

  /// The fields of the record at `position`, but its value.
  func info(at position: Int) -> RecordInfo {
    buffer.withUnsafeMutablePointers { header, records in
      let record = records + position
      return RecordInfo(
        key: record.pointee.key, name: record.pointee.name, stamp: record.pointee.stamp,
        origin: Self.origin(of: record, in: header), anchor: record.pointee.anchor)
    }
  }

  /// Where a record was written: its own origin, or, for a write made to this frame, the
  /// frame's.
  fileprivate static func origin(
    of record: UnsafeMutablePointer<FrameRecord>, in header: UnsafeMutablePointer<FrameHeader>
  ) -> EnvironmentOrigin? {
    if let origin = record.pointee.origin { return origin }
    let first = header.pointee.firstStamp
    return first != 0 && record.pointee.stamp >= first ? header.pointee.origin : nil
  }

  /// A copy of the record at `position` of the frame these pointers are to, homed in `home`,
  /// carrying its origin.
  fileprivate static func copy(
    _ position: Int, of header: UnsafeMutablePointer<FrameHeader>,
    records: UnsafeMutablePointer<FrameRecord>, home: Unmanaged<FrameBuffer>?
  ) -> FrameRecord {
    WorkCount.add()
    return records[position].copy(home: home, origin: origin(of: records + position, in: header))
  }

  /// The value of the record at `position`, type-erased, for diagnostics.
  func anyValue(at position: Int) -> any Sendable {
    buffer.withUnsafeMutablePointerToElements { $0[position].value.anyValue }
  }

  /// The fields of every record, in the order they were stored.
  var infos: [RecordInfo] { (0..<count).map(info(at:)) }

  // MARK: Writing

  /// Stores a value for `key` in `frame`: in place if `frame` is the only reference to an
  /// unfrozen frame with room, else in a copy that replaces it. The record gets a new stamp.
  ///
  /// Writing in place over a value drops what the layer above attached to the frame, which may
  /// have been built from it.
  @usableFromInline
  static func write(
    _ value: consuming StoredValue, key: ObjectIdentifier, name: ValueName,
    anchor: (any AnyObject & Sendable)?, into frame: inout Frame?
  ) {
    // Taken out, so that this is the only reference if no one else holds the frame.
    var target = frame.take() ?? make(capacity: 4)
    var existing = target.position(of: key)
    if !target.isUnique() || target.isFrozen {
      // A copy leaves the record written out: it is written after the others.
      target = target.copy(minimumCapacity: target.count + 1, excluding: existing)
      existing = nil
    } else if existing == nil, target.count == target.header(\.capacity) {
      target = target.copy(minimumCapacity: target.count * 2)
    }
    target.put(value, key: key, name: name, anchor: anchor, at: existing)
    frame = target
  }

  /// Stores a record in this unique, unfrozen frame, at `existing` or after the last one.
  private func put(
    _ value: consuming StoredValue, key: ObjectIdentifier, name: ValueName,
    anchor: (any AnyObject & Sendable)?, at existing: Int?
  ) {
    assert(!header(\.isFrozen), "a frozen frame is never written")
    let stamp = buffer.withUnsafeMutablePointerToHeader { $0.pointee.takeStamp() }
    var replaced: FrameRecord?
    var dropped: Unmanaged<AnyObject>?
    // Moved into a variable the closure can take it from: a closure cannot consume a capture.
    var pending = Optional(value)
    buffer.withUnsafeMutablePointers { header, records in
      guard let value = pending.take() else { return }
      let record = FrameRecord(
        key: key, stamp: stamp, name: name, anchor: anchor, origin: nil, home: nil, value: value)
      if let existing {
        replaced = .some((records + existing).move())
        (records + existing).initialize(to: record)
      } else {
        let position = header.pointee.count
        assert(position < header.pointee.capacity, "a frame holds at most its capacity")
        (records + position).initialize(to: record)
        header.pointee.count += 1
        header.pointee.insert(key, at: position, records: records)
      }
    }
    // What was built from the value replaced goes with it. Both are released once the frame is
    // whole again: a value's deinit is code Milieu does not control.
    if existing != nil { dropped = takeAttachment() }
    _ = consume replaced
    dropped?.release()
  }

  /// A copy of this own frame, unfrozen and unshared, with room for `minimumCapacity` records
  /// (four at least). Its records are homed in it; it takes new stamps for what is written to it.
  func copy(minimumCapacity: Int, excluding excluded: Int? = nil) -> Frame {
    let copy = Frame.make(capacity: max(4, minimumCapacity, count))
    copy.buffer.withUnsafeMutablePointers { header, records in
      header.pointee.copiedFrom = identity
      buffer.withUnsafeMutablePointers { sourceHeader, source in
        for position in 0..<count where position != excluded {
          let end = header.pointee.count
          (records + end).initialize(
            to: Self.copy(position, of: sourceHeader, records: source, home: nil))
          header.pointee.count += 1
          header.pointee.insert(source[position].key, at: end, records: records)
        }
      }
    }
    return copy
  }

  /// Records where the records of this unique, unfrozen frame that `isStamped` picks (by key
  /// and stamp) were written.
  func stampOrigins(
    _ origin: EnvironmentOrigin, where isStamped: (ObjectIdentifier, UInt64) -> Bool
  ) {
    assert(!header(\.isFrozen), "a frozen frame is never written")
    buffer.withUnsafeMutablePointers { header, records in
      for position in 0..<header.pointee.count
      where isStamped(records[position].key, records[position].stamp) {
        records[position].origin = origin
      }
    }
  }

  /// Records where the records of this unique, unfrozen frame stamped `first` or later were
  /// written: once, for the frame's own writes, when no record copied from elsewhere is among
  /// them.
  func stampOrigins(_ origin: EnvironmentOrigin, since first: UInt64) {
    assert(!header(\.isFrozen), "a frozen frame is never written")
    buffer.withUnsafeMutablePointers { header, records in
      let own = header.pointee.firstStamp
      if own != 0, first <= own, first == own || header.pointee.copiedFrom == nil {
        header.pointee.origin = origin
        return
      }
      for position in 0..<header.pointee.count where records[position].stamp >= first {
        records[position].origin = origin
      }
    }
  }

  /// The writes that replacing own frame `old` with `new` replaces, each with the stamp a read
  /// found before: `old`'s, or for a key `old` did not set, `inherited`'s (0 for its default).
  static func replacedWrites(from old: Frame?, to new: Frame?, over inherited: Frame?)
    -> Set<Stamped>
  {
    let before = { (key: ObjectIdentifier) in
      Stamped(key: key, stamp: old?.stamp(of: key) ?? inherited?.stamp(of: key) ?? 0)
    }
    var replaced: Set<Stamped> = []
    for info in old?.infos ?? [] where new?.stamp(of: info.key) != info.stamp {
      replaced.insert(before(info.key))
    }
    for info in new?.infos ?? [] where old?.stamp(of: info.key) != info.stamp {
      replaced.insert(before(info.key))
    }
    return replaced
  }

  /// The stamp of the record for `key`, if this frame has one.
  func stamp(of key: ObjectIdentifier) -> UInt64? {
    buffer.withUnsafeMutablePointers { header, records in
      Self.position(of: key, header: header, records: records).map { records[$0].stamp }
    }
  }

  /// What is attached to the own frame that holds the record for `key`, if this frame has the
  /// record and that frame an attachment; found with no reference counted but the result's.
  func attachmentOfHome(of key: ObjectIdentifier) -> AnyObject? {
    buffer.withUnsafeMutablePointers { header, records -> AnyObject? in
      guard let position = Self.position(of: key, header: header, records: records) else {
        return nil
      }
      guard let home = records[position].home else { return attachment }
      return home._withUnsafeGuaranteedRef { Frame(buffer: $0).attachment }
    }
  }

  /// The records of `other` for `keys` stored over those of `frame`: a new, unfrozen frame.
  static func merged(_ frame: Frame?, with other: Frame, keys: Set<ObjectIdentifier>) -> Frame {
    let merged =
      frame.map { $0.copy(minimumCapacity: $0.count + other.count) } ?? make(capacity: keys.count)
    merged.buffer.withUnsafeMutablePointers { header, records in
      other.buffer.withUnsafeMutablePointers { sourceHeader, source in
        for position in 0..<other.count where keys.contains(source[position].key) {
          Self.put(
            Self.copy(position, of: sourceHeader, records: source, home: nil),
            header: header, records: records)
        }
      }
    }
    return merged
  }

  /// Stores `record` in the unfrozen frame of `header` and `records`, in place of the record
  /// for its key if there is one, else after the last; the frame has room for it.
  private static func put(
    _ record: consuming FrameRecord, header: UnsafeMutablePointer<FrameHeader>,
    records: UnsafeMutablePointer<FrameRecord>
  ) {
    let key = record.key
    if let existing = position(of: key, header: header, records: records) {
      records[existing] = record
      return
    }
    let end = header.pointee.count
    assert(end < header.pointee.capacity, "a frame is written within its capacity")
    (records + end).initialize(to: record)
    header.pointee.count += 1
    header.pointee.insert(key, at: end, records: records)
  }

  /// Makes this frame a node's own frame, which never changes again: `depth` is the node's.
  func freeze(depth: UInt32) {
    buffer.withUnsafeMutablePointerToHeader { header in
      header.pointee.depth = depth
      header.pointee.isFrozen = true
    }
  }

  /// Whether this frame can no longer change.
  var isFrozen: Bool { header(\.isFrozen) }

  /// A frozen copy of this own frame for the same node: the same records, stamps and origins, but
  /// nothing attached: what a node holds in place of a frame whose attachment a write outdated.
  func reissued() -> Frame {
    let reissued = copy(minimumCapacity: count)
    reissued.freeze(depth: depth)
    return reissued
  }

  /// This own frame without the records of `keys`, frozen for the same node; `nil` if none is left.
  func removing(_ keys: Set<ObjectIdentifier>) -> Frame? {
    let kept = (0..<count).filter { !keys.contains(info(at: $0).key) }
    guard !kept.isEmpty else { return nil }
    let frame = Frame.make(capacity: kept.count)
    frame.buffer.withUnsafeMutablePointers { header, records in
      buffer.withUnsafeMutablePointers { sourceHeader, source in
        for (position, sourcePosition) in kept.enumerated() {
          (records + position).initialize(
            to: Self.copy(sourcePosition, of: sourceHeader, records: source, home: nil))
          header.pointee.insert(source[sourcePosition].key, at: position, records: records)
        }
        header.pointee.count = kept.count
      }
    }
    frame.freeze(depth: depth)
    return frame
  }

  /// The frozen view of `top`, a node's own frame, laid over `base`, the view it inherits;
  /// `owner` is the node whose view it is.
  static func view(of top: Frame, over base: Frame?, owner: UInt) -> Frame {
    let baseCount = base?.count ?? 0
    let view = make(capacity: baseCount + top.count)
    view.buffer.withUnsafeMutablePointers { header, records in
      if let base {
        base.buffer.withUnsafeMutablePointers { sourceHeader, source in
          for position in 0..<baseCount {
            (records + position).initialize(
              to: Self.copy(
                position, of: sourceHeader, records: source, home: source[position].home))
            header.pointee.insert(source[position].key, at: position, records: records)
          }
        }
      }
      header.pointee.count = baseCount
      let home = Unmanaged.passUnretained(top.buffer)
      top.buffer.withUnsafeMutablePointers { sourceHeader, source in
        for position in 0..<top.count {
          Self.put(
            Self.copy(position, of: sourceHeader, records: source, home: home),
            header: header, records: records)
        }
      }
      header.pointee.top = top
      header.pointee.topIdentity = top.identity
      header.pointee.base = base
      header.pointee.owner = owner
      header.pointee.aboveOwner = base.map { owners(of: $0.buffer).owner } ?? 0
      header.pointee.isFrozen = true
    }
    return view
  }

  // MARK: Attachment

  /// Runs `body` with the attachment's word as an atomic.
  ///
  /// The word is a plain stored property of the header, which `ManagedBuffer` requires to be
  /// copyable; its memory is rebound to `Atomic<UInt>`, which has the same layout, for the call.
  private func withAttachmentWord<Result>(_ body: (borrowing Atomic<UInt>) -> Result) -> Result {
    buffer.withUnsafeMutablePointerToHeader { header in
      (UnsafeMutableRawPointer(header) + FrameHeader.attachmentOffset).withMemoryRebound(
        to: Atomic<UInt>.self, capacity: 1
      ) { body($0.pointee) }
    }
  }

  /// Takes the attachment out; called on a frame no other thread can see.
  fileprivate func takeAttachment() -> Unmanaged<AnyObject>? {
    let word = withAttachmentWord { $0.exchange(0, ordering: .acquiringAndReleasing) }
    return UnsafeRawPointer(bitPattern: word).map { Unmanaged<AnyObject>.fromOpaque($0) }
  }

  /// What the layer above keeps with this frame (derived values use it for the values built
  /// from its writes), set at most once while the frame lives.
  var attachment: AnyObject? {
    withAttachmentWord { word in
      UnsafeRawPointer(bitPattern: word.load(ordering: .acquiring)).map {
        Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue()
      }
    }
  }

  /// Attaches `object` unless something is attached already; returns what is attached.
  @discardableResult
  func attach(_ object: AnyObject) -> AnyObject {
    let retained = Unmanaged.passRetained(object)
    let original = withAttachmentWord { word in
      word.compareExchange(
        expected: 0, desired: UInt(bitPattern: retained.toOpaque()),
        ordering: .acquiringAndReleasing
      ).original
    }
    guard let pointer = UnsafeRawPointer(bitPattern: original) else { return object }
    retained.release()
    return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
  }

  // MARK: Stamps

  /// The process-wide source of stamps, taken in blocks of `FrameHeader.stampBlock`.
  fileprivate static let stamps = Atomic<UInt64>(0)

  /// A stamp for something that is not a record (a derived value's build): never reused, and
  /// never a record's.
  static func newStamp() -> UInt64 {
    stamps.add(FrameHeader.stampBlock, ordering: .relaxed).newValue
  }
}

/// Whether two frames are the same block.
func === (lhs: Frame?, rhs: Frame?) -> Bool { lhs?.buffer === rhs?.buffer }

/// Whether two frames are different blocks.
func !== (lhs: Frame?, rhs: Frame?) -> Bool { lhs?.buffer !== rhs?.buffer }

/// The allocation of a ``Frame``: its header and its records.
@usableFromInline
final class FrameBuffer: ManagedBuffer<FrameHeader, FrameRecord> {
  deinit {
    LockAudit.assertNoneHeld("a frame of values is released")
    withUnsafeMutablePointers { header, records in
      _ = records.deinitialize(count: header.pointee.count)
    }
    Frame(buffer: self).takeAttachment()?.release()
    // A view holds the view below it, and that one the next: release the chain one frame at a
    // time, so that freeing a view 100,000 levels deep does not recurse 100,000 frames deep.
    var next = withUnsafeMutablePointerToHeader { $0.pointee.base.take() }
    while var frame = next.take(), frame.isUnique() {
      next = frame.buffer.withUnsafeMutablePointerToHeader { $0.pointee.base.take() }
    }
  }
}

/// One write of one key: the key and the stamp of the write.
struct Stamped: Hashable, Sendable {
  let key: ObjectIdentifier
  let stamp: UInt64
}

/// What the layer above attaches to a frame: the derived values built from its writes.
protocol FrameAttachment: AnyObject, Sendable {
  /// What a frame that holds the same records, but for the writes in `replaced`, keeps: `self`
  /// when nothing here was made from them, `nil` when nothing is left. Adds to `replaced` the
  /// stamps of what it drops, so that what was made from those goes too. Called under node
  /// locks: whatever it looked at that may hold the last reference to a value goes in
  /// `released`, which the caller releases once no lock is held.
  func carried(past replaced: inout Set<Stamped>, released: inout [Any]) -> (any FrameAttachment)?

  /// Takes in what `other`, meant for the same frame, keeps that this one does not: a frame
  /// that was given one before the write that installs it carried another.
  func absorb(_ other: any FrameAttachment)
}

/// The fields of a record that diagnostics and the layers above read, copied out of the frame.
struct RecordInfo {
  let key: ObjectIdentifier
  let name: ValueName
  let stamp: UInt64
  let origin: EnvironmentOrigin?
  /// What keeps the key's identity alive: an entry or a derived value's declaration.
  let anchor: (any AnyObject & Sendable)?
}

/// A frame's header.
@usableFromInline
struct FrameHeader {
  /// How many stamps a frame takes from the process-wide counter at a time.
  static let stampBlock: UInt64 = 64

  @usableFromInline var count = 0
  @usableFromInline let capacity: Int
  /// See ``Frame/id``: drawn from the counter stamps come from, so never a record's stamp.
  let id = Frame.newStamp()
  /// One bit per key hash, set for every key stored: most lookups of an absent key end here.
  @usableFromInline var filter: UInt64 = 0
  /// Positions plus one by key hash, with linear probing; 0 is an empty place. Empty while the
  /// frame holds no more than `Frame.scanLimit` records.
  @usableFromInline var index: [UInt32] = []
  /// The next stamp this frame gives a write, and the end of its block.
  var nextStamp: UInt64 = 0
  var stampLimit: UInt64 = 0
  /// The first stamp this frame gave, 0 if none: what it copied from elsewhere is older.
  var firstStamp: UInt64 = 0
  /// The frame this one was copied from: compared, never followed.
  var copiedFrom: ObjectIdentifier?
  /// Where the writes made to this frame were written, for those of its records (stamped
  /// `firstStamp` or later) that carry no origin of their own.
  var origin: EnvironmentOrigin?
  var depth: UInt32 = .max
  var isFrozen = false
  var isNothing = false
  /// The attachment's address, retained, accessed only atomically: see
  /// `Frame.withAttachmentWord(_:)`.
  fileprivate var attachmentWord: UInt = 0
  var top: Frame?
  /// The identity of `top`, to compare without retaining it.
  var topIdentity: ObjectIdentifier?
  var base: Frame?
  /// The addresses of the node whose view this is and of the node whose view it is laid over,
  /// 0 for none: compared and followed by the nodes below them only.
  var owner: UInt = 0
  var aboveOwner: UInt = 0

  init(capacity: Int) {
    self.capacity = capacity
  }

  /// A new stamp for a write to this frame.
  mutating func takeStamp() -> UInt64 {
    if nextStamp == stampLimit {
      stampLimit = Frame.stamps.add(Self.stampBlock, ordering: .relaxed).newValue
      nextStamp = stampLimit - Self.stampBlock + 1
      if firstStamp == 0 { firstStamp = nextStamp }
    }
    defer { nextStamp += 1 }
    return nextStamp
  }

  /// Indexes `key`, stored at `position`; rebuilds the index when it grows.
  mutating func insert(
    _ key: ObjectIdentifier, at position: Int, records: UnsafeMutablePointer<FrameRecord>
  ) {
    let hash = Frame.hash(key)
    filter |= 1 &<< (hash &>> 58)
    let count = max(self.count, position + 1)
    guard count > Frame.scanLimit else { return }
    if index.count < count * 2 {
      index = Array(repeating: 0, count: max(32, (count * 2).nextPowerOf2))
      WorkCount.add(count)
      for indexed in 0..<count { place(records[indexed].key, at: indexed) }
    } else {
      place(key, at: position)
    }
  }

  private mutating func place(_ key: ObjectIdentifier, at position: Int) {
    let mask = index.count - 1
    var slot = Int(truncatingIfNeeded: Frame.hash(key) &>> 32) & mask
    while index[slot] != 0 { slot = (slot + 1) & mask }
    index[slot] = UInt32(position + 1)
  }

  /// The offset of the attachment's word in the header.
  fileprivate static let attachmentOffset =
    MemoryLayout<FrameHeader>.offset(of: \FrameHeader.attachmentWord).unsafelyUnwrapped
}

extension Int {
  fileprivate var nextPowerOf2: Int {
    self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount)
  }
}

/// One stored value with what diagnostics need to know about it. Never copied bitwise out of
/// its frame: it is noncopyable, and `copy(home:)` copies its value.
@frozen @usableFromInline
struct FrameRecord: ~Copyable {
  /// The identity of the entry or key type the value is stored for.
  @usableFromInline let key: ObjectIdentifier
  /// The write that stored the value: records with equal keys and stamps hold one value.
  @usableFromInline var stamp: UInt64
  var name: ValueName
  /// Keeps an entry's object, and so its identity, alive as long as a value is stored for it.
  var anchor: (any AnyObject & Sendable)?
  /// Where the value was set, once a node stamped it.
  var origin: EnvironmentOrigin?
  /// The own frame that holds the write, unretained; `nil` in that frame itself.
  var home: Unmanaged<FrameBuffer>?
  @usableFromInline let value: StoredValue

  init(
    key: ObjectIdentifier, stamp: UInt64, name: ValueName, anchor: (any AnyObject & Sendable)?,
    origin: EnvironmentOrigin?, home: Unmanaged<FrameBuffer>?, value: consuming StoredValue
  ) {
    self.key = key
    self.stamp = stamp
    self.name = name
    self.anchor = anchor
    self.origin = origin
    self.home = home
    self.value = value
  }

  /// A copy with the given home and origin.
  func copy(home: Unmanaged<FrameBuffer>?, origin: EnvironmentOrigin?) -> FrameRecord {
    FrameRecord(
      key: key, stamp: stamp, name: name, anchor: anchor, origin: origin, home: home,
      value: value.copy())
  }
}

/// A value of any `Sendable` type in three words: in place when it fits and can be moved by
/// copying its bytes, else in a ``ValueBox`` whose reference is the first word. Noncopyable, so
/// that its bytes are never duplicated without `copy()`, which copies the value.
@frozen @usableFromInline
struct StoredValue: ~Copyable, @unchecked Sendable {
  // @unchecked: it holds a value of a `Sendable` type, which its initializer requires, in bits
  // the type cannot see; it is never changed but through `inout` access.
  @usableFromInline typealias Bits = (UInt, UInt, UInt)

  @usableFromInline var bits: Bits
  @usableFromInline let witness: any ValueWitness.Type

  /// Whether a value of type `Value` is stored in place: the same rule an existential's buffer
  /// follows.
  @inlinable @inline(__always)
  static func isInline<Value>(_: Value.Type) -> Bool {
    MemoryLayout<Value>.size <= MemoryLayout<Bits>.size
      && MemoryLayout<Value>.alignment <= MemoryLayout<UInt>.alignment
      && _isBitwiseTakable(Value.self)
  }

  /// Inlinable, so that a write in the caller's module moves the value in with its type known.
  @inlinable
  init<Value: Sendable>(_ value: consuming Value) {
    if Self.isInline(Value.self) {
      bits = InlineWitness<Value>.bits(holding: value)
      witness = InlineWitness<Value>.self
    } else {
      bits = (UInt(bitPattern: Unmanaged.passRetained(ValueBox(value)).toOpaque()), 0, 0)
      witness = BoxedWitness<Value>.self
    }
  }

  init(bits: Bits, witness: any ValueWitness.Type) {
    self.bits = bits
    self.witness = witness
  }

  @inlinable deinit {
    witness.destroy(bits)
  }

  /// The value, which must be of type `Value`: the key's type fixes it.
  @inlinable @inline(__always)
  func load<Value: Sendable>(as _: Value.Type) -> Value {
    if Self.isInline(Value.self) {
      return withUnsafeBytes(of: bits) { $0.load(as: Value.self) }
    }
    return Unmanaged<ValueBox<Value>>.fromOpaque(
      UnsafeRawPointer(bitPattern: bits.0).unsafelyUnwrapped
    )._withUnsafeGuaranteedRef { $0.value }
  }

  /// A second, independent copy of the value.
  func copy() -> StoredValue {
    StoredValue(bits: witness.copy(bits), witness: witness)
  }

  /// The value, type-erased.
  var anyValue: any Sendable { witness.value(of: bits) }
}

/// How to copy, destroy and read a value stored in a ``StoredValue`` by its type.
@usableFromInline
protocol ValueWitness {
  static func copy(_ bits: StoredValue.Bits) -> StoredValue.Bits
  static func destroy(_ bits: StoredValue.Bits)
  static func value(of bits: StoredValue.Bits) -> any Sendable
}

/// The witness of a value stored in place.
@usableFromInline
enum InlineWitness<Value: Sendable>: ValueWitness {
  @inlinable
  static func bits(holding value: Value) -> StoredValue.Bits {
    var bits: StoredValue.Bits = (0, 0, 0)
    withUnsafeMutableBytes(of: &bits) {
      _ = $0.baseAddress.unsafelyUnwrapped.initializeMemory(as: Value.self, to: value)
    }
    return bits
  }

  @usableFromInline
  static func copy(_ bits: StoredValue.Bits) -> StoredValue.Bits {
    if _isPOD(Value.self) { return bits }
    return Self.bits(holding: withUnsafeBytes(of: bits) { $0.load(as: Value.self) })
  }

  @usableFromInline
  static func destroy(_ bits: StoredValue.Bits) {
    if _isPOD(Value.self) { return }
    var owned = bits
    _ = withUnsafeMutableBytes(of: &owned) {
      $0.baseAddress.unsafelyUnwrapped.bindMemory(to: Value.self, capacity: 1)
        .deinitialize(count: 1)
    }
  }

  @usableFromInline
  static func value(of bits: StoredValue.Bits) -> any Sendable {
    withUnsafeBytes(of: bits) { $0.load(as: Value.self) }
  }
}

/// The witness of a value stored in a box.
@usableFromInline
enum BoxedWitness<Value: Sendable>: ValueWitness {
  @usableFromInline
  static func copy(_ bits: StoredValue.Bits) -> StoredValue.Bits {
    _ = box(bits).retain()
    return bits
  }

  @usableFromInline
  static func destroy(_ bits: StoredValue.Bits) {
    box(bits).release()
  }

  @usableFromInline
  static func value(of bits: StoredValue.Bits) -> any Sendable {
    box(bits).takeUnretainedValue().value
  }

  private static func box(_ bits: StoredValue.Bits) -> Unmanaged<ValueBox<Value>> {
    Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits.0).unsafelyUnwrapped)
  }
}

/// A value too large to store in place.
@usableFromInline
final class ValueBox<Value: Sendable>: Sendable {
  @usableFromInline let value: Value

  @usableFromInline
  init(_ value: consuming Value) {
    self.value = value
  }
}
