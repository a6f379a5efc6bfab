import MilieuTestSupport
import Testing

@Suite struct SplitMix64Tests {
  /// The seeded tests of every target share this generator; its first outputs for a seed match
  /// the reference implementation's (two copies of it once had a constant mistyped).
  @Test func matchesTheReferenceSequence() {
    var random = SplitMix64(seed: 1_234_567)
    let outputs = [random.next(), random.next(), random.next()]
    #expect(
      outputs == [6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423])
  }
}
