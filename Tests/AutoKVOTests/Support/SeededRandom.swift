import Foundation

/// A small, fast, reproducible random number generator (SplitMix64): the same seed gives the same
/// sequence on every platform and every run, so a failing seed can be replayed.
struct SeededRandom: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = state
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }

  /// True with probability `percent` / 100.
  mutating func chance(_ percent: Int) -> Bool {
    Int.random(in: 0..<100, using: &self) < percent
  }
}

/// Reads a positive integer from the environment, for the knobs that make long local runs
/// (`AUTOKVO_LIFECYCLE_PROGRAMS=1000000 swift test`) without changing the normal run.
func environmentCount(_ name: String, default defaultValue: Int) -> Int {
  guard let text = ProcessInfo.processInfo.environment[name], let value = Int(text), value > 0
  else { return defaultValue }
  return value
}
