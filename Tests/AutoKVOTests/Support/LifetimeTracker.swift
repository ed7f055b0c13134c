import Foundation

/// Counts the live instances created through it, so a test can assert that everything a scenario
/// created was freed.
final class LifetimeTracker: @unchecked Sendable {  // `live` is guarded by `lock`
  private let lock = NSLock()
  private var live = 0
  private var created = 0

  var liveCount: Int { lock.withLock { live } }
  var createdCount: Int { lock.withLock { created } }

  func instanceCreated() {
    lock.withLock {
      live += 1
      created += 1
    }
  }

  func instanceDestroyed() {
    lock.withLock { live -= 1 }
  }
}

/// A plain object that reports its lifetime to a tracker; tests capture it in handlers to prove
/// that a handler closure was released.
final class Token: @unchecked Sendable {  // immutable
  let tracker: LifetimeTracker

  init(_ tracker: LifetimeTracker) {
    self.tracker = tracker
    tracker.instanceCreated()
  }

  deinit {
    tracker.instanceDestroyed()
  }
}

/// A reference slot that one thread hands to another, so that the receiving thread can drop
/// the last strong reference at a moment of its choosing.
// @unchecked Sendable: used by one thread at a time, the handoff ordered by a barrier.
final class Handoff<Object: AnyObject>: @unchecked Sendable {
  var object: Object?

  init(_ object: Object) {
    self.object = object
  }

  func release() {
    object = nil
  }
}
