/// Derived cells by the identity of their derivation: a small open-addressing hash map.
///
/// A dictionary hashes an `ObjectIdentifier` with SipHash, which cost more than the rest of a
/// derived value's cached read. The keys here are addresses of live objects, so a multiplicative
/// hash of the address spreads them well enough. A key once stored keeps its place; storing
/// `nil` empties the place but keeps the key, so lookups never need tombstones, and a table
/// holds at most the derivations ever kept in it.
struct CellMap {
  /// The first key stored (0 for none) and its cell: most anchors keep one derived value, and
  /// need no array.
  private var firstKey: UInt = 0
  private var firstCell: DerivedCell?
  /// The other keys (0 for an empty place), made at the second key.
  private var keys: [UInt] = []
  private var cells: [DerivedCell?] = []
  private var used = 0

  /// Where `key` is in `keys`, or the empty place where it would go; `keys` is not empty.
  @inline(__always)
  private func position(of key: UInt) -> Int {
    let mask = keys.count - 1
    var position = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    while keys[position] != key && keys[position] != 0 { position = (position + 1) & mask }
    return position
  }

  subscript(key: ObjectIdentifier) -> DerivedCell? {
    get {
      let bits = UInt(bitPattern: key)
      if bits == firstKey { return firstCell }
      return keys.isEmpty ? nil : cells[position(of: bits)]
    }
    set {
      let bits = UInt(bitPattern: key)
      if bits == firstKey || firstKey == 0 {
        guard newValue != nil || firstKey != 0 else { return }
        firstKey = bits
        firstCell = newValue
        return
      }
      if keys.isEmpty {
        guard newValue != nil else { return }
        keys = Array(repeating: 0, count: 4)
        cells = Array(repeating: nil, count: 4)
      }
      var position = position(of: bits)
      if keys[position] == 0 {
        guard newValue != nil else { return }
        if (used + 1) * 2 > keys.count {
          grow()
          position = self.position(of: bits)
        }
        keys[position] = bits
        used += 1
      }
      cells[position] = newValue
    }
  }

  /// The cells stored.
  var values: [DerivedCell] { ([firstCell] + cells).compactMap { $0 } }

  private mutating func grow() {
    let (oldKeys, oldCells) = (keys, cells)
    keys = Array(repeating: 0, count: oldKeys.count * 2)
    cells = Array(repeating: nil, count: oldKeys.count * 2)
    for (key, cell) in zip(oldKeys, oldCells) where key != 0 {
      let position = position(of: key)
      keys[position] = key
      cells[position] = cell
    }
  }
}
