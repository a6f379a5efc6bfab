/// A small, fast, seeded random number generator (Vigna's SplitMix64), so that a test that
/// makes random choices makes the same ones on every run and a failure reproduces.
///
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let choice = Int.random(in: 0..<16, using: &random)
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// Creates a generator whose sequence the seed determines.
  public init(seed: UInt64) {
    state = seed
  }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = state
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }
}
