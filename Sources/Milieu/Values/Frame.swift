import Synchronization

// The storage of environment values: one block per set of values. One of the three files of the
// core that hold unsafe code (the others: `Support/Synchronization.swift` and
// `Tree/EnvironmentNode.swift`), and the only one with pointer code over values.
//
// What this file guarantees to the rest of the core, which uses only its safe surface:
// - A frame of up to `Frame.leafLimit` records is one allocation: a header and its records,
//   sorted by the hash of their keys. A record is a key, the stamp of the write that stored it,
//   what keeps the key alive, where the write was made and the value. A value that fits three
//   words (an `Int`, a `String`, a class reference) is stored in its record; a larger one in a
//   box, as an existential stores it.
// - A larger frame is a trie of such leaves under branches that pick a child by five bits of a
//   key's hash at a time. Writing to it copies the leaf and the branches on the key's way and
//   shares the rest, so a write costs the same whatever the size, and so does laying a node's
//   values over a large view.
// - A frame changes only while one reference holds it and it is not frozen: `write(_:into:)`
//   copies it otherwise, and every method that changes a frame in place asserts both in debug
//   builds. A node freezes the frames it publishes, so a frame anyone else can see never changes;
//   the nodes of a trie never change once made.
// - Records never leave the frame: a pointer to one lives inside a method of this file only, and
//   what callers get is a copy of its fields (`RecordInfo`) or of its value, through a
//   `Position` that is valid while they hold the frame.
// - A record's `home` is the own frame that holds the write, where its origin is: the frame
//   searched (`nil`), or, in a view, a frame the view keeps alive through its `top` and `base`.
// - A stamp is never reused: frames take them in blocks from one process-wide counter. Record
//   stamps are never a multiple of the block size; the multiples identify frames and builds.

/// The values one node or one ``EnvironmentValues`` holds, or a node's values merged into one
/// block (a *view*): records by key.
///
/// An *own* frame holds what was written to a node or to free-standing values; its records are
/// homed in it. A *view* holds everything a node's children see: its `top` (the node's own
/// frame) laid over its `base` (the view of the nearest ancestor that overrides something), in
/// one frame so that a read is one lookup at any depth.
@usableFromInline
struct Frame: @unchecked Sendable {
  // @unchecked: a frame is changed only while uniquely referenced and not frozen (see the file's
  // guarantees); once shared it is read only, but for its cache, which is set at most once,
  // atomically, and its generation, set as a node installs it, before anyone else can see it.

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

  /// Makes an empty, unfrozen leaf with room for `capacity` records.
  static func make(capacity: Int) -> Frame {
    WorkCount.addBytes(
      MemoryLayout<FrameHeader>.stride + capacity * MemoryLayout<FrameRecord>.stride)
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

  /// The value stored for `key`, whose values are of type `Value`.
  ///
  /// A leaf of a few records is searched in place, inlined into the caller; anything larger out
  /// of line. A branch's count is `Int32.max`, so it takes the second way.
  @inlinable @inline(__always)
  func value<Value: Sendable>(for key: ObjectIdentifier, as _: Value.Type) -> Value? {
    buffer.withUnsafeMutablePointers { header, records in
      let count = Int(header.pointee.count)
      guard count <= 8 else {
        return Self.locate(key, header: header, records: records)?.pointee.value.load(
          as: Value.self)
      }
      for position in 0..<count where records[position].key == key {
        return records[position].value.load(as: Value.self)
      }
      return nil
    }
  }

  /// The record for `key` in the frame of `header` and `records`, if it has one: valid while
  /// the frame lives.
  @usableFromInline
  static func locate(
    _ key: ObjectIdentifier, header: UnsafeMutablePointer<FrameHeader>,
    records: UnsafeMutablePointer<FrameRecord>
  ) -> UnsafeMutablePointer<FrameRecord>? {
    guard header.pointee.children != nil else {
      return search(for: key, records: records, count: Int(header.pointee.count)).found.map {
        records + $0
      }
    }
    return header.pointee.children.flatMap { children in
      let found = children[chunk(hash(key), 0)].flatMap {
        position(of: key, in: $0.buffer, level: 1)
      }
      return found.map { position in
        position.leaf._withUnsafeGuaranteedRef { $0.withUnsafeMutablePointerToElements { $0 } }
          + position.index
      }
    }
  }

  /// Where a record is: the leaf that holds it, kept alive by the frame it was found in, and its
  /// index there.
  struct Position {
    fileprivate let leaf: Unmanaged<FrameBuffer>
    fileprivate let index: Int
  }

  /// Where the record for `key` is, if this frame has one.
  func position(of key: ObjectIdentifier) -> Position? { Self.position(of: key, in: buffer) }

  /// Where the record for `key` is in the frame of `buffer`: down the branches its hash picks,
  /// then in a leaf, by halves.
  private static func position(of key: ObjectIdentifier, in buffer: FrameBuffer, level: Int = 0)
    -> Position?
  {
    let hash = Self.hash(key)
    var node = Unmanaged.passUnretained(buffer)
    var level = level
    while let child = node._withUnsafeGuaranteedRef({ Frame(buffer: $0).child(for: hash, level) }) {
      guard let child else { return nil }
      node = child
      level += 1
    }
    return node._withUnsafeGuaranteedRef { leaf in
      leaf.withUnsafeMutablePointers { header, records in
        search(for: key, records: records, count: Int(header.pointee.count)).found.map {
          Position(leaf: node, index: $0)
        }
      }
    }
  }

  /// Where `key`'s record is among `count` records sorted by hash, or where it would go.
  private static func search(
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
  var count: Int { isBranch ? Int(header(\.total)) : Int(header(\.count)) }

  /// Runs `body` with the record at `position`, in a frame the caller holds.
  private static func withRecord<Result>(
    at position: Position, _ body: (UnsafeMutablePointer<FrameRecord>) -> Result
  ) -> Result {
    position.leaf._withUnsafeGuaranteedRef {
      $0.withUnsafeMutablePointerToElements { body($0 + position.index) }
    }
  }

  /// Runs `body` with the record at `position`.
  private func withRecord<Result>(
    at position: Position, _ body: (UnsafeMutablePointer<FrameRecord>) -> Result
  ) -> Result {
    Self.withRecord(at: position, body)
  }

  /// The stamp of the record at `position`.
  func stamp(at position: Position) -> UInt64 { withRecord(at: position) { $0.pointee.stamp } }

  /// A copy of the record at `position`, homed in `home` (its own home if `nil`), with its
  /// site if `keepsSite`.
  private func record(
    at position: Position, home: Unmanaged<FrameBuffer>? = nil, keepsSite: Bool
  ) -> FrameRecord {
    var copy: FrameRecord?
    withRecord(at: position) {
      copy = $0.pointee.copy(home: home ?? $0.pointee.home, site: keepsSite)
    }
    guard let copy = copy.take() else { preconditionFailure("a position names a record") }
    return copy
  }

  /// The stamp of the record for `key`, if this frame has one.
  func stamp(of key: ObjectIdentifier) -> UInt64? {
    if !isBranch {
      return buffer.withUnsafeMutablePointers { header, records in
        guard Int(header.pointee.count) > 8 else {
          for index in 0..<Int(header.pointee.count) where records[index].key == key {
            return records[index].stamp
          }
          return nil
        }
        return Self.search(for: key, records: records, count: Int(header.pointee.count)).found
          .map { records[$0].stamp }
      }
    }
    return position(of: key).map(stamp(at:))
  }

  /// The own frame that holds the write of the record at `position`: this frame, or, for a view,
  /// one the view keeps alive.
  func home(at position: Position) -> Frame {
    withRecord(at: position) { $0.pointee.home.map { Frame(buffer: $0.takeUnretainedValue()) } }
      ?? self
  }

  /// The depth of the node that owns this frame; `UInt32.max` for free-standing values, whose
  /// writes are the nearest of all.
  var depth: UInt32 { header(\.depth) }

  /// For a view, the view merged under the own frame it merged in.
  var base: Frame? { header(\.base) }

  /// Whether this is a view.
  var isView: Bool { header(\.flags).contains(.view) }

  /// Whether this is the view of `own`.
  func isView(of own: Frame) -> Bool {
    buffer.withUnsafeMutablePointerToHeader { $0.pointee.top?.buffer === own.buffer }
  }

  /// The fields of the record at `position`, but its value.
  func info(at position: Position) -> RecordInfo {
    let home = self.home(at: position)
    let (key, stamp, anchor) = withRecord(at: position) {
      ($0.pointee.key, $0.pointee.stamp, $0.pointee.anchor)
    }
    let origin = home.position(of: key).flatMap { found in
      home.withRecord(at: found) { record in
        record.pointee.site.map {
          EnvironmentOrigin(fileID: $0.fileID, line: $0.line, nodeName: home.cache?.nodeName)
        }
      }
    }
    return RecordInfo(key: key, stamp: stamp, origin: origin, anchor: anchor)
  }

  /// The value of the record at `position`, type-erased, for diagnostics.
  func anyValue(at position: Position) -> any Sendable {
    withRecord(at: position) { $0.pointee.value.anyValue }
  }

  /// Where every record is, in the order of their keys' hashes.
  var positions: [Position] { positions(differingFrom: nil) }

  /// The fields of every record.
  var infos: [RecordInfo] { positions.map(info(at:)) }

  /// The cache of the own frame that holds the record at `position`.
  func cacheOfHome(at position: Position) -> DerivedCache? {
    withRecord(at: position) { record in
      record.pointee.home.map { $0._withUnsafeGuaranteedRef { Frame(buffer: $0).cache } } ?? cache
    }
  }

  // MARK: The trie of a large frame

  /// How many records a frame of one leaf holds at most: a frame with more is a branch.
  static let leafLimit = 32

  /// How many records a leaf below a branch holds at most: few, so that a write copies little
  /// besides the branches on its way, whatever the frame's size.
  static let bucketLimit = 4

  /// Whether this frame is a branch of a trie, whose records are in the leaves below it.
  var isBranch: Bool { buffer.withUnsafeMutablePointerToHeader { $0.pointee.children != nil } }

  /// The child of this frame that holds the records whose hash is `hash`, if this is a branch at
  /// `level`: `.some(nil)` if it has none; `nil` if this is a leaf.
  private func child(for hash: UInt64, _ level: Int) -> Unmanaged<FrameBuffer>?? {
    buffer.withUnsafeMutablePointerToHeader { header in
      guard let children = header.pointee.children else { return nil }
      return .some(children[Self.chunk(hash, level)].map { Unmanaged.passUnretained($0.buffer) })
    }
  }

  /// The five bits of `hash` that pick a child at `level`: the highest first.
  private static func chunk(_ hash: UInt64, _ level: Int) -> Int {
    Int(truncatingIfNeeded: hash >> UInt64(max(0, 59 - 5 * level))) & 31
  }

  /// A branch at `level` over `children`, which hold `total` records.
  private static func branch(_ children: [Frame?], total: Int) -> Frame {
    // A larger leaf below a branch would never split, and every write would copy it whole.
    assert(
      children.allSatisfy { $0.map { $0.isBranch || $0.count <= bucketLimit } ?? true },
      "a leaf below a branch holds at most a bucket's records")
    // The children's array: its header and 32 references, each copied.
    WorkCount.add(32)
    WorkCount.addBytes(32 + 32 * MemoryLayout<Frame?>.stride)
    let branch = make(capacity: 0)
    branch.buffer.withUnsafeMutablePointerToHeader { header in
      header.pointee.children = children
      header.pointee.total = Int32(total)
      header.pointee.count = .max
    }
    return branch
  }

  /// Calls `body` with every leaf of this frame and its count, in the order of their hashes,
  /// but those it shares with `other`: a trie a write made from another shares all but the
  /// frames on the way of the keys written.
  private func forEachLeaf(
    differingFrom other: Frame? = nil, _ body: (Unmanaged<FrameBuffer>, Int) -> Void
  ) {
    guard buffer !== other?.buffer else { return }
    guard let children = header(\.children) else {
      return body(Unmanaged.passUnretained(buffer), Int(header(\.count)))
    }
    let others = other?.header(\.children)
    for (index, child) in children.enumerated() {
      child?.forEachLeaf(differingFrom: others?[index], body)
    }
  }

  /// Every record of this frame as a source to build another from.
  var sources: [Source] { positions.map { Source(position: $0) } }

  /// Where every record is that `other` does not share with this frame.
  func positions(differingFrom other: Frame?) -> [Position] {
    var positions: [Position] = []
    forEachLeaf(differingFrom: other) { leaf, count in
      positions += (0..<count).map { Position(leaf: leaf, index: $0) }
    }
    return positions
  }

  /// This frame with `record` stored in copies of the frames on its key's way, this one at
  /// `level`: in a leaf, over the record for its key, or in its place; a leaf that grows past
  /// the limit becomes a branch. Everything else is shared.
  private static func inserting(
    _ record: consuming FrameRecord, into frame: Frame, level: Int,
    isNew: Bool? = nil
  ) -> Frame {
    let key = record.key
    let isNew = isNew ?? (frame.position(of: key) == nil)
    guard var children = frame.header(\.children) else {
      let copy = frame.copy(capacity: frame.count + (isNew ? 1 : 0))
      _ = copy.insert(record)
      guard copy.count > (level == 0 ? leafLimit : bucketLimit) else { return copy }
      return trie(of: copy.sources[...], level: level)
    }
    let index = chunk(hash(key), level)
    children[index] = inserting(
      record, into: children[index] ?? make(capacity: 0), level: level + 1, isNew: isNew)
    return branch(children, total: frame.count + (isNew ? 1 : 0))
  }

  /// One record a frame is built from: where it is, in a frame the builder's caller holds, and
  /// whether the write that builds the frame wrote it, so that it takes that write's site and
  /// the new frame as its home.
  struct Source {
    let position: Position
    var takesSite = false
  }

  /// A frame of copies of the records at `sources`, which are sorted by their keys' hashes, each
  /// key once, those that take it with `site`: one leaf with room for `capacity` records, or
  /// past a leaf's limit a trie, built in one pass. Unfrozen, and nothing else holds it.
  static func built(from sources: [Source], site: WriteSite? = nil, capacity: Int = 0) -> Frame {
    guard sources.count > leafLimit else {
      return leaf(of: sources[...], site: site, capacity: max(capacity, sources.count))
    }
    return trie(of: sources[...], level: 0, site: site)
  }

  /// A leaf of copies of the records at `sources`, with room for `capacity`.
  private static func leaf(of sources: ArraySlice<Source>, site: WriteSite?, capacity: Int)
    -> Frame
  {
    let leaf = make(capacity: capacity)
    leaf.buffer.withUnsafeMutablePointers { header, records in
      for (offset, source) in sources.enumerated() {
        (records + offset).initialize(to: copy(of: source, site: site))
      }
      header.pointee.count = Int32(sources.count)
    }
    return leaf
  }

  /// A branch at `level` over copies of the records at `sources`, more than a leaf below a
  /// branch holds: each run of them whose hashes pick one child becomes that child.
  private static func trie(
    of sources: ArraySlice<Source>, level: Int, site: WriteSite? = nil
  ) -> Frame {
    var children = [Frame?](repeating: nil, count: 32)
    var start = sources.startIndex
    while start < sources.endIndex {
      let index = chunk(hash(key(at: sources[start].position)), level)
      var end = start + 1
      while end < sources.endIndex, chunk(hash(key(at: sources[end].position)), level) == index {
        end += 1
      }
      let run = sources[start..<end]
      children[index] =
        run.count > bucketLimit
        ? trie(of: run, level: level + 1, site: site)
        : leaf(of: run, site: site, capacity: run.count)
      start = end
    }
    return branch(children, total: sources.count)
  }

  /// A copy of the record at `source`, with `site` if it takes it.
  private static func copy(of source: Source, site: WriteSite?) -> FrameRecord {
    var copy: FrameRecord?
    // A record the write wrote is the new frame's own, wherever it was read from: a view's,
    // assigned whole, names a home that this frame does not keep alive.
    withRecord(at: source.position) { record in
      copy = record.pointee.copy(
        home: source.takesSite ? nil : record.pointee.home, site: !source.takesSite)
    }
    guard var copy = copy.take() else { preconditionFailure("a position names a record") }
    if source.takesSite { copy.site = site }
    return copy
  }

  /// The key of the record at `position`.
  private static func key(at position: Position) -> ObjectIdentifier {
    withRecord(at: position) { $0.pointee.key }
  }

  // MARK: Writing

  /// Stores a value for `key` in `frame`: in place if `frame` is the only reference to an
  /// unfrozen leaf with room, else in a copy that replaces it, with room for one more record
  /// than it needs, or twice as many when it grows in place; a large frame copies only the
  /// frames on the key's way. The record gets a new stamp.
  ///
  /// Writing in place over a value drops what the layer above attached to the frame, which may
  /// have been built from it.
  @usableFromInline
  static func write(
    _ value: consuming StoredValue, key: ObjectIdentifier,
    anchor: AnyObject?, into frame: inout Frame?
  ) {
    // Taken out, so that this is the only reference if no one else holds the frame.
    var target = frame.take() ?? make(capacity: 1)
    let isNew = target.stamp(of: key) == nil
    if target.isBranch || isNew && target.count == leafLimit {
      let site = target.header(\.site)
      let record = FrameRecord(
        key: key, stamp: newStamp() + 1, anchor: anchor, home: nil, value: value, site: site)
      frame = inserting(record, into: target, level: 0)
      frame?.buffer.withUnsafeMutablePointerToHeader { $0.pointee.site = site }
      return
    }
    if !target.isUnique() || target.isFrozen {
      target = target.copy(capacity: target.count + (isNew ? 1 : 0))
    } else if isNew, target.count == target.capacity {
      target = target.copy(capacity: min(leafLimit, max(4, target.count * 2)))
    }
    target.assertWritable()
    let stamp = target.buffer.withUnsafeMutablePointerToHeader { $0.pointee.takeStamp() }
    let replaced = target.insert(
      FrameRecord(
        key: key, stamp: stamp, anchor: anchor, home: nil, value: value,
        site: target.header(\.site)))
    // What was built from the value replaced goes with it. Both are released once the frame is
    // whole again: a value's deinit is code Milieu does not control.
    // A node's cache, which a frame its update writes shares, evicts when the update is
    // installed.
    if let replaced, !target.header(\.flags).contains(.pending), let cache = target.cache,
      case .unbound = cache.binding
    {
      var evicted: [DerivedCell] = []
      var writes = ReplacedWrites()
      writes.insert(Stamped(key: key, stamp: replaced.stamp))
      cache.evict(&writes, into: &evicted)
      _ = consume replaced
      withExtendedLifetime(evicted) {}
    }
    frame = target
  }

  /// The number of records this leaf has room for.
  var capacity: Int { Int(header(\.capacity)) }

  /// Stores `record` in this unique, unfrozen leaf, which has room for it: over the record for
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

  /// A copy of this frame's records that `isKept` keeps, unfrozen and unshared, with room for
  /// `capacity` records in a leaf, or a trie if they are more, built in one pass: they keep
  /// their homes, stamps and sites, and it takes new stamps for what is written to it, and the
  /// site this frame gives them.
  func copy(capacity: Int, keeping isKept: (ObjectIdentifier) -> Bool = { _ in true }) -> Frame {
    let copy: Frame
    if isBranch {
      copy = Self.built(from: sources.filter { isKept(Self.key(at: $0.position)) })
    } else {
      copy = Frame.make(capacity: max(capacity, count))
      copy.buffer.withUnsafeMutablePointers { header, records in
        buffer.withUnsafeMutablePointerToElements { source in
          for position in 0..<count where isKept(source[position].key) {
            (records + Int(header.pointee.count)).initialize(
              to: source[position].copy(home: source[position].home, site: true))
            header.pointee.count += 1
          }
        }
      }
    }
    let site = header(\.site)
    copy.buffer.withUnsafeMutablePointerToHeader { $0.pointee.site = site }
    // A frame a write still fills keeps its cache: what was kept from it stays found.
    if !isFrozen, let cache {
      copy.attachCache(cache)
      copy.generation = generation
      let pending = header(\.flags).intersection(.pending)
      copy.buffer.withUnsafeMutablePointerToHeader { $0.pointee.flags.formUnion(pending) }
    }
    return copy
  }

  /// An unfrozen frame for a write at `site` to start from: a copy of `frame` with room for
  /// one more record, or an empty one, whose new records take `site` and stamps from a block
  /// of its own.
  ///
  /// For a trie, the copy is of its branch alone, whose children it shares: a write copies the
  /// frames on its key's way.
  static func writable(from frame: Frame?, site: WriteSite) -> Frame {
    let writable =
      frame.flatMap { frame in
        frame.header(\.children).map { branch($0, total: frame.count) }
      } ?? frame?.copy(capacity: frame.unsafelyUnwrapped.count + 1) ?? make(capacity: 4)
    writable.buffer.withUnsafeMutablePointerToHeader {
      $0.pointee.site = site
      $0.pointee.nextStamp = newStamp() + 1
      $0.pointee.flags.insert(.pending)
    }
    return writable
  }

  /// The block of stamps this frame's writes take now, which no other frame ever takes from; 0
  /// before its first write.
  var stampBlock: UInt64 {
    let next = header(\.nextStamp)
    return next == 0 ? 0 : (next - 1) / FrameHeader.stampBlock * FrameHeader.stampBlock
  }

  /// Whether a write took a stamp from this frame since ``writable(from:site:)`` made it.
  var isWritten: Bool { header(\.nextStamp) != stampBlock + 1 }

  /// The frame a child's values are written to while its closure runs, its records taking
  /// `site`: this thread's, which ``settled()`` empties into a frame of their size and gives
  /// back, or a new one.
  static func scratch(site: WriteSite) -> Frame {
    let scratch: Frame
    if let buffer = scratchSlot.take(as: FrameBuffer.self) {
      scratch = Frame(buffer: buffer)
    } else {
      scratch = make(capacity: 8)
      scratch.buffer.withUnsafeMutablePointerToHeader { $0.pointee.flags = .scratch }
    }
    scratch.buffer.withUnsafeMutablePointerToHeader { $0.pointee.site = site }
    return scratch
  }

  /// This thread's scratch frame, when no closure writes to it.
  private static let scratchSlot = ThreadSlot(owning: true)

  /// Whether this is a scratch frame.
  var isScratch: Bool { header(\.flags) == .scratch }

  /// This unique frame's records in a frame of their number, or `nil` if it has none, when this
  /// is a scratch frame nothing was attached to, which goes back to its thread; else this frame
  /// itself.
  consuming func settled() -> Frame? {
    guard isScratch else { return self }
    defer { Self.scratchSlot.give(buffer) }
    guard count > 0 else { return nil }
    let settled = Frame.make(capacity: count)
    if let cache = takeCache() { settled.attachCache(cache) }
    settled.buffer.withUnsafeMutablePointers { header, records in
      buffer.withUnsafeMutablePointers { scratchHeader, scratch in
        records.moveInitialize(from: scratch, count: Int(scratchHeader.pointee.count))
        header.pointee.count = scratchHeader.pointee.count
        scratchHeader.pointee.count = 0
        scratchHeader.pointee.site = nil
      }
    }
    return settled
  }

  /// Gives this scratch frame back to its thread, emptied, if nothing else holds it and nothing
  /// was attached to it; else lets it go.
  mutating func recycle() {
    guard isScratch, isUnique() else { return }
    _ = takeCache()
    buffer.withUnsafeMutablePointers { header, records in
      records.deinitialize(count: Int(header.pointee.count))
      header.pointee.count = 0
      header.pointee.site = nil
    }
    Self.scratchSlot.give(buffer)
  }

  /// Makes this unique frame a node's own frame, which never changes again: `depth` is the
  /// node's.
  mutating func freeze(depth: UInt32) {
    assertWritable()
    assert(isBranch || count <= Self.leafLimit, "a leaf holds at most a leaf's records")
    buffer.withUnsafeMutablePointerToHeader { header in
      header.pointee.depth = depth
      header.pointee.site = nil
      header.pointee.flags.remove(.pending)
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

  /// The records `values` holds, read as a read of each key finds it, whose stamps `seen` does
  /// not have for their keys: what a write that started from `seen` wrote, whole values
  /// assigned included. Sorted by hash; the caller holds both.
  static func written(in values: EnvironmentValues, over seen: EnvironmentValues) -> [Source] {
    var written: [Source] = []
    let own = values.own
    for position in own?.positions(differingFrom: seen.own) ?? [] {
      let (key, stamp) = withRecord(at: position) { ($0.pointee.key, $0.pointee.stamp) }
      if seen.stamp(of: key) != stamp {
        written.append(Source(position: position, takesSite: true))
      }
    }
    // Values assigned whole read through a base of their own: what it holds that the write did
    // not start from is written too, but where `own` holds the key.
    guard let base = values.base, base !== seen.base else { return written }
    var fromBase: [Source] = []
    for position in base.positions {
      let (key, stamp) = withRecord(at: position) { ($0.pointee.key, $0.pointee.stamp) }
      if own?.position(of: key) == nil, seen.stamp(of: key) != stamp {
        fromBase.append(Source(position: position, takesSite: true))
      }
    }
    return merging(written, fromBase)
  }

  /// The records of `frame` with those of `written` laid over them, written by a write at
  /// `site`: a new, unfrozen frame built in one pass.
  ///
  /// A trie takes the records on their keys' ways only, sharing the rest, so that a write to a
  /// large frame costs the same whatever its size.
  static func overlaying(_ written: [Source], on frame: Frame?, site: WriteSite) -> Frame {
    guard let frame, frame.isBranch || frame.count + written.count > leafLimit else {
      return built(from: merging(written, frame?.sources ?? []), site: site)
    }
    var overlaid = frame
    for source in written {
      overlaid = inserting(copy(of: source, site: site), into: overlaid, level: 0)
    }
    return overlaid
  }

  /// Two lists of sources sorted by hash merged into one, `upper`'s source winning for a key
  /// both hold.
  private static func merging(_ upper: [Source], _ lower: [Source]) -> [Source] {
    guard !upper.isEmpty, !lower.isEmpty else { return upper.isEmpty ? lower : upper }
    var merged: [Source] = []
    merged.reserveCapacity(upper.count + lower.count)
    var (next, nextBelow) = (0, 0)
    while next < upper.count || nextBelow < lower.count {
      let above = next < upper.count ? hash(key(at: upper[next].position)) : .max
      let below = nextBelow < lower.count ? hash(key(at: lower[nextBelow].position)) : .max
      if above <= below {
        merged.append(upper[next])
        next += 1
        if above == below { nextBelow += 1 }
      } else {
        merged.append(lower[nextBelow])
        nextBelow += 1
      }
    }
    return merged
  }

  /// The writes that replacing own frame `old` with `new` replaces, each with the stamp a read
  /// found before: `old`'s, or for a key `old` did not set, `inherited`'s (0 for its default).
  static func replacedWrites(from old: Frame?, to new: Frame?, over inherited: Frame?)
    -> ReplacedWrites
  {
    var replaced = ReplacedWrites()
    func add(writesOf frame: Frame?, notIn other: Frame?) {
      frame?.forEachLeaf(differingFrom: other) { leaf, count in
        for index in 0..<count {
          let (key, stamp) = withRecord(at: Position(leaf: leaf, index: index)) {
            ($0.pointee.key, $0.pointee.stamp)
          }
          guard other?.stamp(of: key) != stamp else { continue }
          replaced.insert(
            Stamped(key: key, stamp: old?.stamp(of: key) ?? inherited?.stamp(of: key) ?? 0))
        }
      }
    }
    add(writesOf: old, notIn: new)
    add(writesOf: new, notIn: old)
    return replaced
  }

  /// The frozen view of `top`, a node's own frame, laid over `base`, the view it inherits: the
  /// two merged into one leaf, or, when that would be larger than a leaf, `top`'s records
  /// stored in `base`'s trie, which shares every frame of `base` that they do not reach.
  static func view(of top: Frame, over base: Frame?) -> Frame {
    let (topCount, baseCount) = (top.count, base?.count ?? 0)
    let home = Unmanaged.passUnretained(top.buffer)
    var view: Frame
    if topCount + baseCount > leafLimit || top.isBranch || base?.isBranch == true {
      view = base ?? make(capacity: 0)
      for position in top.positions {
        WorkCount.add()
        view = inserting(
          top.record(at: position, home: home, keepsSite: false), into: view, level: 0)
      }
    } else {
      view = make(capacity: topCount + baseCount)
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
      }
    }
    view.buffer.withUnsafeMutablePointerToHeader { header in
      header.pointee.top = top
      header.pointee.base = base
      header.pointee.flags.formUnion([.frozen, .view])
    }
    return view
  }

  // MARK: Cache

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

  /// Where the derived values built from this own frame's writes are kept: its node's cache, set
  /// before the node publishes the frame, or, for free-standing values, one made when a value is
  /// first kept; set at most once while the frame lives.
  var cache: DerivedCache? {
    withAtomicWord(at: FrameHeader.cacheOffset) { $0.loadReference(as: DerivedCache.self) }
  }

  /// Gives this frame `cache` unless it has one already; returns the one it has.
  @discardableResult
  func attachCache(_ cache: DerivedCache) -> DerivedCache {
    withAtomicWord(at: FrameHeader.cacheOffset) { $0.storeReferenceIfNil(cache) }
  }

  /// Takes the cache out; called on a frame no other thread can see.
  fileprivate func takeCache() -> DerivedCache? {
    withAtomicWord(at: FrameHeader.cacheOffset) { $0.takeReference() }.map {
      uncheckedDowncast($0.takeRetainedValue(), to: DerivedCache.self)
    }
  }

  /// For a frame a node installed, its cache's generation then; for a frame an update's body
  /// writes, the generation when the update started. Set before anyone else sees the frame.
  var generation: UInt64 {
    get { header(\.generation) }
    nonmutating set { buffer.withUnsafeMutablePointerToHeader { $0.pointee.generation = newValue } }
  }

  // MARK: Stamps

  /// The process-wide source of stamps, taken in blocks of `FrameHeader.stampBlock`.
  fileprivate static let stamps = Atomic<UInt64>(0)

  /// A stamp for something that is not a record (a derived value's build, a frame's block of
  /// stamps): never reused, and never a record's.
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
      // One at a time, so that each record's teardown is inlined: a plain value's needs no call.
      // A branch has no records: its children go with its header.
      guard header.pointee.children == nil else { return }
      for position in 0..<Int(header.pointee.count) { (records + position).deinitialize(count: 1) }
    }
    _ = Frame(buffer: self).takeCache()
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

/// The fields of a record that diagnostics and the layers above read, copied out of the frame.
struct RecordInfo {
  let key: ObjectIdentifier
  let stamp: UInt64
  let origin: EnvironmentOrigin?
  /// What keeps the key's identity alive: an entry or a derived value's declaration; `nil` for a
  /// key type, which is the key itself.
  let anchor: AnyObject?

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

  /// The records of a leaf; `Int32.max` for a branch, so that a search of a few records in place
  /// is never tried on one.
  @usableFromInline var count: Int32 = 0
  @usableFromInline let capacity: Int32
  /// For a branch, the records of the trie below it.
  var total: Int32 = 0
  @usableFromInline var flags: Flags = []
  /// The depth of the node that owns the frame.
  var depth: UInt32 = .max
  /// The next stamp this frame gives a write; a multiple of the block size when it has none
  /// left.
  var nextStamp: UInt64 = 0
  /// The cache's address, retained, accessed only atomically: see `Frame.cache`.
  fileprivate var cacheWord: UInt = 0
  /// See `Frame.generation`.
  var generation: UInt64 = 0
  /// Where the records a write adds to this frame were written, for a frame a write to a node
  /// fills: the site its records take as they are made.
  var site: WriteSite?
  /// For a view, the own frame it lays over `base`, and the view below: it keeps both alive.
  var top: Frame?
  var base: Frame?
  /// For a branch, its 32 children, one for each value of five bits of a key's hash; `nil` in a
  /// leaf, which is how a branch is told from one.
  var children: [Frame?]?

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
    /// A frame an update's body writes: its node's cache evicts when the update is installed.
    static let pending = Flags(rawValue: 32)
  }

  /// A new stamp for a write to this frame.
  mutating func takeStamp() -> UInt64 {
    if nextStamp % Self.stampBlock == 0 { nextStamp = Frame.newStamp() + 1 }
    defer { nextStamp += 1 }
    return nextStamp
  }

  /// The offsets of the words accessed atomically: computed, not stored, so that no lazy
  /// global is checked on every access; the optimizer folds them to constants.
  fileprivate static var cacheOffset: Int {
    MemoryLayout<FrameHeader>.offset(of: \FrameHeader.cacheWord).unsafelyUnwrapped
  }
}

/// Where a value was written to a node: the file and line. The node's name is its cache's.
@usableFromInline
struct WriteSite: Sendable {
  let fileID: String
  let line: UInt

  @usableFromInline
  init(fileID: String, line: UInt) {
    self.fileID = fileID
    self.line = line
  }
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
  @usableFromInline var anchor: AnyObject?
  /// The own frame that holds the write, unretained; `nil` in that frame itself.
  @usableFromInline var home: Unmanaged<FrameBuffer>?
  @usableFromInline let value: StoredValue
  /// Where the value was written, once a node took it; only an own frame's records have one.
  @usableFromInline var site: WriteSite?

  init(
    key: ObjectIdentifier, stamp: UInt64, anchor: AnyObject?,
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
