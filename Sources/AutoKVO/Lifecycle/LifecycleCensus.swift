import _AutoKVOShims

/// Process-wide counts of live sentinels and completed teardowns, for tests and diagnostics.
///
/// Tests read these through `@testable import` to prove that every sentinel is freed and that
/// every registration is torn down exactly once.
enum LifecycleCensus {
  private struct Words: @unchecked Sendable {  // only ever touched through the atomic shims
    let base: UnsafeMutablePointer<Int>
  }

  private static let words: Words = {
    let base = UnsafeMutablePointer<Int>.allocate(capacity: 2)
    base.initialize(repeating: 0, count: 2)
    return Words(base: base)
  }()

  static var liveSentinels: Int { autokvo_atomic_load_acquire(words.base) }
  static var teardowns: Int { autokvo_atomic_load_acquire(words.base + 1) }

  static func sentinelCreated() { _ = autokvo_atomic_add(words.base, 1) }
  static func sentinelDestroyed() { _ = autokvo_atomic_add(words.base, -1) }
  static func teardownPerformed() { _ = autokvo_atomic_add(words.base + 1, 1) }
}
