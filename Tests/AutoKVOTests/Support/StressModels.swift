import AutoKVO
import Foundation

/// An observed object that several threads mutate at once. It guards its own state, as a model
/// shared between threads must, and notifies manually, so that every notification it sends goes
/// through AutoKVO's own state (registry snapshot, pending changes, lifecycle checks).
final class SharedCounter: KeyValueObservable, @unchecked Sendable {  // `stored` guarded by `lock`
  let observationRegistry = ObservationRegistry()
  private let lock = NSLock()
  private var stored = 0

  var count: Int { lock.withLock { stored } }

  static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool { false }

  func increment() {
    willChangeValue(for: \.count)
    lock.withLock { stored += 1 }
    didChangeValue(for: \.count)
  }
}

/// An observed object with an `@Observed` property that exactly one thread writes and registers
/// on at a time, so that the property set fast path is exercised under concurrency too.
// @unchecked Sendable: `level` is touched only by the thread that owns the instance right now.
final class SingleWriterSubject: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var level = 0
}

/// Two `@Observed` properties that two threads use at once, one each: one thread sets `written`
/// while the other makes the first registrations that read `registered`, so that one property's
/// `ObservedProperty` is made and listed while the other's sets take their snapshots.
// @unchecked Sendable: each property is touched by one thread only.
final class TwoPropertySubject: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var written = 0
  @Observed var registered = 0
}

/// An observer that raises its ``DeinitFlag`` first thing in `deinit` and counts its lifetime.
// @unchecked Sendable: immutable, but for `mood`, which only the thread that owns the instance
// right now touches.
final class StressObserver: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  let deinitFlag = DeinitFlag()
  /// Something another object can observe, so that the observer is observed too.
  @Observed var mood = 0
  private let tracker: LifetimeTracker

  init(tracker: LifetimeTracker) {
    self.tracker = tracker
    tracker.instanceCreated()
  }

  deinit {
    deinitFlag.raise()
    tracker.instanceDestroyed()
  }
}

/// The tick at which the mutation now running on this thread began, for the handlers it calls.
enum MutationContext {
  @TaskLocal static var startedAt = 0

  /// Runs `mutation` stamped with a fresh tick of `clock`.
  static func mutate(on clock: LogicalClock, _ mutation: () -> Void) {
    $startedAt.withValue(clock.tick(), operation: mutation)
  }
}

/// One registration made during a stress test, and what its handler saw.
///
/// A delivery is *late* when the mutation that caused it began after `cancel()` had returned
/// (both stamped on one ``LogicalClock``), or when it is made on a thread after `cancel()`
/// returned on that same thread; a delivery is *duplicated* when one mutation reaches the same
/// registration twice with the same `isPrior`.
final class DeliveryLedger: @unchecked Sendable {  // mutable state guarded by `lock`
  private let lock = NSLock()
  private var cancelledAt: Int?
  private var cancellingThreads: Set<pthread_t> = []
  private var seen: Set<[Int]> = []
  private var storedDeliveries = 0
  private var storedLate = 0
  private var storedDuplicated = 0
  private var storedToDeallocating = 0

  var deliveries: Int { lock.withLock { storedDeliveries } }
  var late: Int { lock.withLock { storedLate } }
  var duplicated: Int { lock.withLock { storedDuplicated } }
  var toDeallocatingObserver: Int { lock.withLock { storedToDeallocating } }

  /// Records one handler call, made inside ``MutationContext/mutate(on:_:)``.
  func delivered(isPrior: Bool, observerIsDeallocating: Bool) {
    let startedAt = MutationContext.startedAt
    lock.withLock {
      storedDeliveries += 1
      if let cancelledAt, startedAt > cancelledAt || cancellingThreads.contains(pthread_self()) {
        storedLate += 1
      }
      if !seen.insert([startedAt, isPrior ? 1 : 0]).inserted { storedDuplicated += 1 }
      if observerIsDeallocating { storedToDeallocating += 1 }
    }
  }

  /// Cancels the registration and stamps the moment `cancel()` returned.
  func cancel(_ handle: KeyValueObservation, clock: LogicalClock) {
    handle.cancel()
    let now = clock.tick()
    lock.withLock {
      cancelledAt = min(cancelledAt ?? now, now)
      cancellingThreads.insert(pthread_self())
    }
  }
}

/// The end of a key-path chain that another thread may release at any moment: its `value` is
/// `@Observed`, so a chain through it places a chain link on it, and it is never written.
final class ChainLeaf: KeyValueObservable, @unchecked Sendable {  // `value` is never written
  let observationRegistry = ObservationRegistry()
  @Observed var value: Int
  private let tracker: LifetimeTracker

  init(value: Int, tracker: LifetimeTracker) {
    self.value = value
    self.tracker = tracker
    tracker.instanceCreated()
  }

  deinit {
    tracker.instanceDestroyed()
  }
}

/// The root of a chain to a ``ChainLeaf`` it holds weakly, so that the leaf's last reference is
/// wherever the test puts it. Repointing it notifies manually; every evaluation of
/// `currentValue` reaches the leaf, so the registration re-discovers its chain links on every change.
final class ChainRoot: KeyValueObservable, @unchecked Sendable {  // `leaf` guarded by `lock`
  let observationRegistry = ObservationRegistry()
  private let lock = NSLock()
  private weak var leaf: ChainLeaf?

  var currentValue: Int? {
    lock.withLock { leaf }?.value
  }

  static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool { false }

  func point(to newLeaf: ChainLeaf?) {
    willChangeValue(for: \.currentValue)
    lock.withLock { leaf = newLeaf }
    didChangeValue(for: \.currentValue)
  }
}

/// Strong references to objects, dropped one at a time by whichever thread calls
/// ``releaseAll()``.
final class ReleaseQueue<Object: AnyObject>: @unchecked Sendable {  // `objects` guarded by `lock`
  private let lock = NSLock()
  private var objects: [Object]

  init(_ objects: [Object]) {
    self.objects = objects
  }

  func weakReferences() -> [WeakBox<Object>] {
    lock.withLock { objects.map { WeakBox($0) } }
  }

  func releaseAll() {
    while let object = lock.withLock({ objects.popLast() }) {
      withExtendedLifetime(object) {}  // the last reference, released here, outside the lock
    }
  }
}
