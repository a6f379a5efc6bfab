import Synchronization

// The storage of environment values: one block per set of values. One of the three files of the
// core that hold unsafe code (the others: `Support/Synchronization.swift` and
// `Tree/EnvironmentNode.swift`), and the only one with pointer code over values.
//
// What this file guarantees to the rest of the core, which uses only its safe surface:
// - A frame is one allocation: a header and its records, sorted by the hash of their keys. A
//   record is a key, the stamp of the write that stored it, what keeps the key alive, where the
//   write was made and the value. A value that fits three words (an `Int`, a `String`, a class
//   reference) is stored in its record; a larger one in a box, as an existential stores it.
// - A frame changes only while one reference holds it and it is not frozen: `write(_:into:)`
//   copies it otherwise, and every method that changes a frame in place asserts both in debug
//   builds. A node freezes the frames it publishes, so a frame anyone else can see never changes.
// - Records never leave the frame: a pointer to one lives inside a method of this file only, and
//   what callers get is a copy of its fields (`RecordInfo`) or of its value.
// - A record's `home` is the own frame that holds the write, where its origin is: the frame
//   itself (`nil`), or, in a view, a frame the view keeps alive through its `top` and `base`.
// - A stamp is never reused: frames take them in blocks from one process-wide counter. Record
//   stamps are never a multiple of the block size; the multiples identify frames and builds.

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
  // guarantees); once shared it is read only, but for its attachment and id, which are atomic.

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

  /// Whether this is the only reference to the block.
  mutating func isUnique() -> Bool { isKnownUniquelyReferenced(&buffer) }

  /// A frozen, empty frame: what a node whose ancestors override nothing inherits.
  static let nothing: Frame = {
    let frame = make(capacity: 0)
    frame.buffer.withUnsafeMutablePointerToHeader { $0.pointee.flags = [.frozen, .nothing] }
    return frame
  }()

  /// Whether this is ``nothing``, told from its header: `nothing` itself is a global whose
  /// every access checks that it was made.
  var isNothing: Bool { header(\.flags).contains(.nothing) }

  /// Makes an empty, unfrozen frame with room for `capacity` records.
  static func make(capacity: Int) -> Frame {
    let buffer = FrameBuffer.create(minimumCapacity: capacity) { _ in
      FrameHeader(capacity: Int32(capacity))
    }
    return Frame(buffer: unsafeDowncast(buffer, to: FrameBuffer.self))
  }

  // MARK: Reading

  /// The order records are kept in: a multiplicative hash of the key's address, which differs
  /// for every key.
  @inlinable @inline(__always)
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
  /// caller inlines; a larger one by halves, out of line.
  @inlinable @inline(__always)
  static func position(
    of key: ObjectIdentifier, header: UnsafeMutablePointer<FrameHeader>,
    records: UnsafeMutablePointer<FrameRecord>
  ) -> Int? {
    let count = Int(header.pointee.count)
    guard count <= 8 else { return search(for: key, records: records, count: count).found }
    for position in 0..<count where records[position].key == key { return position }
    return nil
  }

  /// Where the record for `key` is among `count` records sorted by hash, or where it would go.
  @usableFromInline
  static func search(
    for key: ObjectIdentifier, records: UnsafeMutablePointer<FrameRecord>, count: Int
  ) -> (found: Int?, insertion: Int) {
    let hash = Self.hash(key)
    var (low, high) = (0, count)
    while low < high {
      WorkCount.add()
      let middle = (low + high) / 2
      let found = Self.hash(records[middle].key)
      if found == hash { return (middle, middle) }
      if found < hash { low = middle + 1 } else { high = middle }
    }
    return (nil, low)
  }

  /// The number of records.
  var count: Int { Int(header(\.count)) }

  /// The stamp of the record at `position`.
  func stamp(at position: Int) -> UInt64 {
    buffer.withUnsafeMutablePointerToElements { $0[position].stamp }
  }

  /// The stamp of the record for `key`, if this frame has one.
  func stamp(of key: ObjectIdentifier) -> UInt64? {
    buffer.withUnsafeMutablePointers { header, records in
      Self.position(of: key, header: header, records: records).map { records[$0].stamp }
    }
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

  /// For a view, the view merged under `top`.
  var base: Frame? { header(\.base) }

  /// Whether this is the view of `own`.
  func isView(of own: Frame) -> Bool {
    buffer.withUnsafeMutablePointerToHeader { $0.pointee.top?.buffer === own.buffer }
  }

  /// The fields of the record at `position`, but its value.
  func info(at position: Int) -> RecordInfo {
    let home = self.home(at: position)
    let (key, stamp, anchor) = buffer.withUnsafeMutablePointerToElements {
      ($0[position].key, $0[position].stamp, $0[position].anchor)
    }
    let origin = home.buffer.withUnsafeMutablePointers { header, records in
      Self.position(of: key, header: header, records: records).flatMap { position in
        records[position].site.map {
          EnvironmentOrigin(fileID: $0.fileID, line: $0.line, nodeName: header.pointee.nodeName)
        }
      }
    }
    return RecordInfo(key: key, stamp: stamp, origin: origin, anchor: anchor)
  }

  /// The value of the record at `position`, type-erased, for diagnostics.
  func anyValue(at position: Int) -> any Sendable {
    buffer.withUnsafeMutablePointerToElements { $0[position].value.anyValue }
  }

  /// The fields of every record.
  var infos: [RecordInfo] { (0..<count).map(info(at:)) }

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

  // MARK: Writing

  /// Stores a value for `key` in `frame`: in place if `frame` is the only reference to an
  /// unfrozen frame with room, else in a copy that replaces it, with room for one more record
  /// than it needs, or twice as many when it grows in place. The record gets a new stamp.
  ///
  /// Writing in place over a value drops what the layer above attached to the frame, which may
  /// have been built from it.
  @usableFromInline
  static func write(
    _ value: consuming StoredValue, key: ObjectIdentifier,
    anchor: (any AnyObject & Sendable)?, into frame: inout Frame?
  ) {
    // Taken out, so that this is the only reference if no one else holds the frame.
    var target = frame.take() ?? make(capacity: 1)
    let found = target.position(of: key)
    if !target.isUnique() || target.isFrozen {
      target = target.copy(capacity: target.count + (found == nil ? 1 : 0))
    } else if found == nil, target.count == target.capacity {
      target = target.copy(capacity: max(4, target.count * 2))
    }
    target.assertWritable()
    let stamp = target.buffer.withUnsafeMutablePointerToHeader { $0.pointee.takeStamp() }
    let replaced = target.insert(
      FrameRecord(key: key, stamp: stamp, anchor: anchor, home: nil, value: value, site: nil))
    // What was built from the value replaced goes with it. Both are released once the frame is
    // whole again: a value's deinit is code Milieu does not control.
    if replaced != nil {
      let dropped = target.takeAttachment()
      _ = consume replaced
      dropped?.release()
    }
    frame = target
  }

  /// The number of records this frame has room for.
  var capacity: Int { Int(header(\.capacity)) }

  /// Stores `record` in this unique, unfrozen frame, which has room for it: over the record for
  /// its key, which it returns, or in its place by hash.
  private func insert(_ record: consuming FrameRecord) -> FrameRecord? {
    // Moved into a variable the closure can take it from: a closure cannot consume a capture.
    var pending = Optional(record)
    return buffer.withUnsafeMutablePointers { header, records in
      guard let record = pending.take() else { return nil }
      let count = Int(header.pointee.count)
      let (found, insertion) = Self.search(for: record.key, records: records, count: count)
      if let found {
        let replaced = (records + found).move()
        (records + found).initialize(to: record)
        return replaced
      }
      precondition(count < header.pointee.capacity, "a frame is written within its capacity")
      (records + insertion + 1).moveInitialize(from: records + insertion, count: count - insertion)
      (records + insertion).initialize(to: record)
      header.pointee.count += 1
      return nil
    }
  }

  /// A copy of this own frame's records that `isKept` keeps, unfrozen and unshared, with room
  /// for `capacity` records: they are homed in it and keep their stamps and sites, and it takes
  /// new stamps for what is written to it.
  func copy(capacity: Int, keeping isKept: (ObjectIdentifier) -> Bool = { _ in true }) -> Frame {
    let copy = Frame.make(capacity: max(capacity, count))
    copy.buffer.withUnsafeMutablePointers { header, records in
      buffer.withUnsafeMutablePointerToElements { source in
        for position in 0..<count where isKept(source[position].key) {
          (records + Int(header.pointee.count)).initialize(
            to: source[position].copy(home: nil, site: true))
          header.pointee.count += 1
        }
      }
    }
    return copy
  }

  /// The frame a child's values are written to while its closure runs: this thread's, which
  /// ``settled()`` empties into a frame of their size and gives back, or a new one.
  static func scratch() -> Frame {
    if let buffer = scratchSlot.take(as: FrameBuffer.self) { return Frame(buffer: buffer) }
    let scratch = make(capacity: 8)
    scratch.buffer.withUnsafeMutablePointerToHeader { $0.pointee.flags = .scratch }
    return scratch
  }

  /// This thread's scratch frame, when no closure writes to it.
  private static let scratchSlot = ThreadSlot(owning: true)

  /// This unique frame's records in a frame of their number, or `nil` if it has none, when this
  /// is a scratch frame nothing was attached to, which goes back to its thread; else this frame
  /// itself.
  consuming func settled() -> Frame? {
    guard header(\.flags) == .scratch, attachment == nil else { return self }
    defer { Self.scratchSlot.give(buffer) }
    guard count > 0 else { return nil }
    let settled = Frame.make(capacity: count)
    settled.buffer.withUnsafeMutablePointers { header, records in
      buffer.withUnsafeMutablePointers { scratchHeader, scratch in
        records.moveInitialize(from: scratch, count: Int(scratchHeader.pointee.count))
        header.pointee.count = scratchHeader.pointee.count
        scratchHeader.pointee.count = 0
      }
    }
    return settled
  }

  /// Records where the records of this unique, unfrozen frame that `isWritten` picks (by key
  /// and stamp) were written.
  mutating func stampSites(
    fileID: String, line: UInt, where isWritten: (ObjectIdentifier, UInt64) -> Bool
  ) {
    assertWritable()
    buffer.withUnsafeMutablePointers { header, records in
      for position in 0..<Int(header.pointee.count)
      where isWritten(records[position].key, records[position].stamp) {
        records[position].site = WriteSite(fileID: fileID, line: line)
      }
    }
  }

  /// Makes this unique frame a node's own frame, which never changes again: `depth` and `name`
  /// are the node's.
  mutating func freeze(depth: UInt32, nodeName: String?) {
    assertWritable()
    buffer.withUnsafeMutablePointerToHeader { header in
      header.pointee.depth = depth
      header.pointee.nodeName = nodeName
      header.pointee.flags.insert(.frozen)
    }
  }

  /// Whether this frame can no longer change.
  var isFrozen: Bool { header(\.flags).contains(.frozen) }

  /// Checks, in debug builds, that this frame may be changed in place.
  private mutating func assertWritable() {
    assert(!isFrozen, "a frozen frame is never written")
    assert(isUnique(), "a frame is written only while one reference holds it")
  }

  /// A frozen copy of this own frame for the same node without the records of `removed`: the
  /// same stamps and sites, but nothing attached, what a node holds in place of a frame whose
  /// attachment a write outdated; `nil` if no record is left.
  func reissued(removing removed: Set<ObjectIdentifier> = []) -> Frame? {
    let isKept = { (key: ObjectIdentifier) in !removed.contains(key) }
    guard
      buffer.withUnsafeMutablePointerToElements({ records in
        (0..<count).contains { isKept(records[$0].key) }
      })
    else { return nil }
    var reissued = copy(capacity: 0, keeping: isKept)
    reissued.freeze(depth: depth, nodeName: header(\.nodeName))
    return reissued
  }

  /// The records of `written` whose stamps `seen` does not have for their keys (the writes of an
  /// update that started from `seen`) laid over those of `frame`: a new, unfrozen frame.
  static func merged(_ frame: Frame?, with written: Frame, over seen: Frame?) -> Frame {
    let merged = frame?.copy(capacity: (frame?.count ?? 0) + written.count) ?? make(capacity: 1)
    written.buffer.withUnsafeMutablePointerToElements { records in
      for position in 0..<written.count
      where seen?.stamp(of: records[position].key) != records[position].stamp {
        _ = merged.insert(records[position].copy(home: nil, site: true))
      }
    }
    return merged
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

  /// The frozen view of `top`, a node's own frame, laid over `base`, the view it inherits.
  static func view(of top: Frame, over base: Frame?) -> Frame {
    let (topCount, baseCount) = (top.count, base?.count ?? 0)
    let view = make(capacity: topCount + baseCount)
    let home = Unmanaged.passUnretained(top.buffer)
    view.buffer.withUnsafeMutablePointers { header, records in
      top.buffer.withUnsafeMutablePointerToElements { upper in
        (base ?? nothing).buffer.withUnsafeMutablePointerToElements { lower in
          // Both sorted by hash: merge them, the top's record winning for a key both hold.
          var (next, nextBelow, count) = (0, 0, 0)
          while next < topCount || nextBelow < baseCount {
            WorkCount.add()
            let above = next < topCount ? Self.hash(upper[next].key) : .max
            let below = nextBelow < baseCount ? Self.hash(lower[nextBelow].key) : .max
            if above <= below {
              (records + count).initialize(to: upper[next].copy(home: home, site: false))
              next += 1
              if above == below { nextBelow += 1 }
            } else {
              (records + count).initialize(
                to: lower[nextBelow].copy(home: lower[nextBelow].home, site: false))
              nextBelow += 1
            }
            count += 1
          }
          header.pointee.count = Int32(count)
        }
      }
      header.pointee.top = top
      header.pointee.base = base
      header.pointee.flags = [.frozen, .view]
    }
    return view
  }

  // MARK: Attachment

  /// Runs `body` with a word of the header as an atomic.
  ///
  /// The word is a plain stored property of the header, which `ManagedBuffer` requires to be
  /// copyable; its memory is rebound to `Atomic<UInt>`, which has the same layout, for the call.
  private func withAtomicWord<Result>(
    at offset: Int, _ body: (borrowing Atomic<UInt>) -> Result
  ) -> Result {
    buffer.withUnsafeMutablePointerToHeader { header in
      (UnsafeMutableRawPointer(header) + offset).withMemoryRebound(
        to: Atomic<UInt>.self, capacity: 1
      ) { body($0.pointee) }
    }
  }

  /// Takes the attachment out; called on a frame no other thread can see.
  fileprivate func takeAttachment() -> Unmanaged<AnyObject>? {
    withAtomicWord(at: FrameHeader.attachmentOffset) { $0.takeReference() }
  }

  /// What the layer above keeps with this frame (derived values use it for the values built
  /// from its writes), set at most once while the frame lives.
  var attachment: AnyObject? {
    withAtomicWord(at: FrameHeader.attachmentOffset) { $0.loadReference(as: AnyObject.self) }
  }

  /// Attaches `object` unless something is attached already; returns what is attached.
  @discardableResult
  func attach(_ object: AnyObject) -> AnyObject {
    withAtomicWord(at: FrameHeader.attachmentOffset) { $0.storeReferenceIfNil(object) }
  }

  // MARK: Stamps

  /// The process-wide source of stamps, taken in blocks of `FrameHeader.stampBlock`.
  fileprivate static let stamps = Atomic<UInt64>(0)

  /// A stamp for something that is not a record (a derived value's build, a frame's id): never
  /// reused, and never a record's.
  static func newStamp() -> UInt64 {
    stamps.add(FrameHeader.stampBlock, ordering: .relaxed).newValue
  }

  /// A number no other frame has had or will have, drawn when first asked for: a frame's
  /// identity that outlives it.
  var id: UInt64 {
    let id = withAtomicWord(at: FrameHeader.idOffset) { $0.load(ordering: .relaxed) }
    if id != 0 { return UInt64(id) }
    let drawn = UInt(Self.newStamp())
    return UInt64(
      withAtomicWord(at: FrameHeader.idOffset) {
        $0.compareExchange(expected: 0, desired: drawn, ordering: .relaxed).exchanged
          ? drawn : $0.load(ordering: .relaxed)
      })
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
      // One at a time, so that each record's teardown is inlined: a plain value's needs no call.
      for position in 0..<Int(header.pointee.count) { (records + position).deinitialize(count: 1) }
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
  let stamp: UInt64
  let origin: EnvironmentOrigin?
  /// What keeps the key's identity alive: an entry or a derived value's declaration; `nil` for a
  /// key type, which is the key itself.
  let anchor: (any AnyObject & Sendable)?

  /// The name diagnostics show: the accessor its entry or declaration was written through, or
  /// the key type's name.
  var name: String {
    if let named = anchor as? any NamedKey { return named.accessorName ?? "\(type(of: named))" }
    return String(describing: unsafeBitCast(key, to: Any.Type.self))
  }
}

/// A key object that learns the name of the accessor code reads and writes it through.
protocol NamedKey: AnyObject {
  var accessorName: String? { get }
}

/// A frame's header.
@usableFromInline
struct FrameHeader {
  /// How many stamps a frame takes from the process-wide counter at a time.
  static let stampBlock: UInt64 = 64

  @usableFromInline var count: Int32 = 0
  @usableFromInline let capacity: Int32
  @usableFromInline var flags: Flags = []
  /// The depth of the node that owns the frame.
  var depth: UInt32 = .max
  /// The next stamp this frame gives a write; a multiple of the block size when it has none
  /// left.
  var nextStamp: UInt64 = 0
  /// The frame's id, 0 until asked for, accessed only atomically: see `Frame.id`.
  fileprivate var idWord: UInt = 0
  /// The attachment's address, retained, accessed only atomically.
  fileprivate var attachmentWord: UInt = 0
  /// For a node's own frame, the node's name: where its records' origins were written.
  var nodeName: String?
  /// For a view, the own frame it lays over `base`, and the view below: it keeps both alive.
  var top: Frame?
  var base: Frame?

  init(capacity: Int32) {
    self.capacity = capacity
  }

  @usableFromInline
  struct Flags: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt32
    @usableFromInline init(rawValue: UInt32) { self.rawValue = rawValue }
    static let frozen = Flags(rawValue: 1)
    static let view = Flags(rawValue: 2)
    static let nothing = Flags(rawValue: 4)
    static let scratch = Flags(rawValue: 8)
  }

  /// A new stamp for a write to this frame.
  mutating func takeStamp() -> UInt64 {
    if nextStamp % Self.stampBlock == 0 { nextStamp = Frame.newStamp() + 1 }
    defer { nextStamp += 1 }
    return nextStamp
  }

  /// The offsets of the words accessed atomically.
  fileprivate static let attachmentOffset =
    MemoryLayout<FrameHeader>.offset(of: \FrameHeader.attachmentWord).unsafelyUnwrapped
  fileprivate static let idOffset =
    MemoryLayout<FrameHeader>.offset(of: \FrameHeader.idWord).unsafelyUnwrapped
}

/// Where a value was written to a node: the file and line. The node's name is its frame's.
@usableFromInline
struct WriteSite: Sendable {
  let fileID: String
  let line: UInt
}

/// One stored value: its key, the stamp of the write that stored it, and where it was written.
/// Never copied bitwise out of its frame: it is noncopyable, and `copy(home:site:)` copies its
/// value.
@frozen @usableFromInline
struct FrameRecord: ~Copyable {
  /// The identity of the entry or key type the value is stored for.
  @usableFromInline let key: ObjectIdentifier
  /// The write that stored the value: records with equal keys and stamps hold one value.
  @usableFromInline var stamp: UInt64
  /// Keeps an entry's object, and so its identity, alive as long as a value is stored for it.
  @usableFromInline var anchor: (any AnyObject & Sendable)?
  /// The own frame that holds the write, unretained; `nil` in that frame itself.
  @usableFromInline var home: Unmanaged<FrameBuffer>?
  @usableFromInline let value: StoredValue
  /// Where the value was written, once a node took it; only an own frame's records have one.
  @usableFromInline var site: WriteSite?

  init(
    key: ObjectIdentifier, stamp: UInt64, anchor: (any AnyObject & Sendable)?,
    home: Unmanaged<FrameBuffer>?, value: consuming StoredValue, site: WriteSite?
  ) {
    self.key = key
    self.stamp = stamp
    self.anchor = anchor
    self.home = home
    self.value = value
    self.site = site
  }

  /// A copy homed in `home`, with this record's site or none.
  func copy(home: Unmanaged<FrameBuffer>?, site keepsSite: Bool) -> FrameRecord {
    WorkCount.add()
    return FrameRecord(
      key: key, stamp: stamp, anchor: anchor, home: home, value: value.copy(),
      site: keepsSite ? site : nil)
  }
}

/// A value of any `Sendable` type, laid out as an `any Sendable` existential container holds it:
/// three words in which a value that fits is stored in place and a larger one is a box, then
/// the type's metadata. Bit 0 of the metadata word marks a plain value, whose bits are copied as
/// they are and which needs no teardown. Noncopyable, so that its bytes are never duplicated
/// without `copy()`.
@frozen @usableFromInline
struct StoredValue: ~Copyable, @unchecked Sendable {
  // @unchecked: it holds a value of a `Sendable` type, which its initializer requires, in bits
  // the type cannot see.
  @usableFromInline typealias Container = (UInt, UInt, UInt, UInt)

  @usableFromInline var container: Container

  @usableFromInline
  init(container: Container) {
    self.container = container
  }

  /// Whether a value of type `Value` is stored in place: the rule an existential follows.
  @inlinable @inline(__always)
  static func isInline<Value>(_: Value.Type) -> Bool {
    MemoryLayout<Value>.size <= 3 * MemoryLayout<UInt>.size
      && MemoryLayout<Value>.alignment <= MemoryLayout<UInt>.alignment
      && _isBitwiseTakable(Value.self)
  }

  /// Inlinable, so that a write in the caller's module stores the value with its type known.
  @inlinable
  init<Value: Sendable>(_ value: consuming Value) {
    // Moved into a variable the closure can take it from: a closure cannot consume a capture.
    var pending = Optional(value)
    container = (0, 0, 0, 0)
    withUnsafeMutableBytes(of: &container) { bytes in
      let address = bytes.baseAddress.unsafelyUnwrapped
      guard let value = pending.take() else { return }
      if _isPOD(Value.self), Self.isInline(Value.self) {
        address.initializeMemory(as: Value.self, to: value)
        address.storeBytes(
          of: UInt(bitPattern: unsafeBitCast(Value.self as Any.Type, to: Int.self)) | 1,
          toByteOffset: 3 * MemoryLayout<UInt>.size, as: UInt.self)
      } else {
        address.initializeMemory(as: (any Sendable).self, to: value)
      }
    }
  }

  @inlinable
  deinit {
    guard container.3 & 1 == 0 else { return }
    var container = container
    withUnsafeMutableBytes(of: &container) {
      $0.baseAddress.unsafelyUnwrapped.withMemoryRebound(to: (any Sendable).self, capacity: 1) {
        _ = $0.deinitialize(count: 1)
      }
    }
  }

  /// The value, which must be of type `Value`: the key's type fixes it.
  @inlinable @inline(__always)
  func load<Value: Sendable>(as _: Value.Type) -> Value {
    withUnsafeBytes(of: container) { bytes in
      if Self.isInline(Value.self) { return bytes.load(as: Value.self) }
      // A box: its header, then the value, aligned.
      let box = UnsafeRawPointer(bitPattern: bytes.load(as: UInt.self)).unsafelyUnwrapped
      let alignment = MemoryLayout<Value>.alignment
      return (box + ((2 * MemoryLayout<UInt>.size + alignment - 1) & ~(alignment - 1))).load(
        as: Value.self)
    }
  }

  /// A second, independent copy of the value.
  func copy() -> StoredValue {
    guard container.3 & 1 == 0 else { return StoredValue(container: container) }
    var copy = StoredValue(container: (0, 0, 0, 0))
    withUnsafeMutableBytes(of: &copy.container) { target in
      withUnsafeBytes(of: container) { source in
        _ = target.baseAddress.unsafelyUnwrapped.initializeMemory(
          as: (any Sendable).self, to: source.load(as: (any Sendable).self))
      }
    }
    return copy
  }

  /// The value, type-erased.
  var anyValue: any Sendable {
    var container = container
    container.3 &= ~1
    return withUnsafeBytes(of: container) { $0.load(as: (any Sendable).self) }
  }
}
