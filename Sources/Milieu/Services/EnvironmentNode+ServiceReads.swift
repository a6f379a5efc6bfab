// The one place where the lifecycle of services reaches into how values are stored and built.
// Everything else in `Services/` uses Milieu's public API and this query, so that a new storage
// changes this file alone.
//
// It asks only what a read already records: the keys a key path read, with the stamps of the
// writes or builds they found; the kept derived values it read; and, for each of those, what its
// build read (`DerivedCell.inputs`, `.dependencies`). A value is found where that read found it:
// a built value in its cell, a written one in its frame (`EnvironmentValues.record(for:)`,
// `Frame.anyValue(at:)`). A key's default is recorded without its value, so the query cannot
// give it: a service read at its default is reached only through a key path the program names.

/// What reading some key paths in one snapshot of a node's values read: every value, once, with
/// what its build read, as the builds recorded it.
///
/// A read is identified by its ``Identity``, the key and the stamp of the write or build it came
/// from, so that a value read by two others is one read with two readers.
struct ServiceReads {
  /// A value read, as a key and the stamp of the write or build it came from: 0 for a key's
  /// default. The key is a static entry, a key type or a derived value's declaration, which live
  /// as long as the process; the stamp is given once per process.
  struct Identity: Hashable, Sendable {
    let key: ObjectIdentifier
    let stamp: UInt64
  }

  /// One value read.
  struct Read {
    /// The accessor's or the key type's name.
    let name: String
    let identity: Identity
    /// The value; `nil` for a key's default, which is recorded without its value, and for a
    /// value built anew on every read, which is its reader's alone.
    let value: (any Sendable)?
    /// Whether the value is a derived value's, built or overridden.
    let isDerived: Bool
    /// For a derived value that was built, not overridden: how long it is kept.
    let lifetime: EnvironmentValues.DerivedLifetime?
    /// What its build read first-hand, as positions in ``ServiceReads/reads``.
    var inputs: [Int] = []

    /// Whether the read found the key's default: no write, no build.
    var isDefault: Bool { identity.stamp == 0 && !isDerived }
  }

  /// What one key path read.
  struct Root {
    /// The value the key path returned.
    let value: Any
    /// The values it read first-hand, as positions in ``ServiceReads/reads``.
    let reads: [Int]
  }

  private(set) var reads: [Read] = []
  private var positions: [Identity: Int] = [:]

  /// Reads `keyPath` in `values`, building what is not built yet, and adds what it read, and
  /// what that was built from, to the graph; returns what it read, or `nil` for a key path that
  /// is not rooted in ``EnvironmentValues``.
  mutating func add(_ keyPath: AnyKeyPath, in values: EnvironmentValues) -> Root? {
    let valueType = type(of: keyPath).valueType
    guard let recorded = Self.record(valueType, keyPath, in: values) else {
      return nil
    }
    let cells = recorded.attachments.compactMap { $0 as? DerivedCell }
    var pending: [(cell: DerivedCell, position: Int)] = []
    let first = recorded.reads.filter { !$0.isInput }.map {
      position(of: $0, builtAs: cells, in: values, pending: &pending)
    }
    // Iteratively, so that a chain of thousands of derived values takes no deep stack.
    while let (cell, position) = pending.popLast() {
      reads[position].inputs = cell.inputs.map {
        self.position(of: $0, builtAs: cell.dependencies, in: values, pending: &pending)
      }
    }
    return Root(value: recorded.value, reads: first)
  }

  /// The key path's value and its reads, with the value's type opened from its metatype.
  private static func record<Value>(
    _: Value.Type, _ keyPath: AnyKeyPath, in values: EnvironmentValues
  ) -> (value: Any, reads: [ReadRecorder.Read], attachments: [any AnyObject & Sendable])? {
    guard let typed = keyPath as? KeyPath<EnvironmentValues, Value> else { return nil }
    let recorded = EnvironmentNode.record(typed, in: values)
    return (recorded.value, recorded.reads, recorded.attachments)
  }

  /// The position of `read` in the graph, added if new; a kept derived value read is queued in
  /// `pending` for its inputs. `cells` are the kept derived values read beside it.
  private mutating func position(
    of read: ReadRecorder.Read, builtAs cells: [DerivedCell], in values: EnvironmentValues,
    pending: inout [(cell: DerivedCell, position: Int)]
  ) -> Int {
    let identity = Identity(key: read.key, stamp: read.stamp)
    if let known = positions[identity] { return known }
    let cell =
      read.hasDetail
      ? cells.first { $0.derivation.key == read.key && $0.stamp == read.stamp } : nil
    // Spelled out: with `??`, an absent value would be boxed as a present `Optional`.
    var value: (any Sendable)?
    if let cell {
      value = cell.value.anyValue
    } else if let (frame, position) = values.record(for: read.key) {
      value = frame.anyValue(at: position)
    }
    let lifetime =
      cell?.derivation.lifetime
      ?? (read.stamp == 0 ? (read.detail as? AnyDerived)?.lifetime : nil)
    reads.append(
      Read(
        name: read.name.description, identity: identity, value: value,
        isDerived: read.hasDetail, lifetime: lifetime))
    positions[identity] = reads.count - 1
    if let cell { pending.append((cell, reads.count - 1)) }
    return reads.count - 1
  }
}
