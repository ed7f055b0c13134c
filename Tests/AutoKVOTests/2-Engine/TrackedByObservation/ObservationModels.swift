import AutoKVO
import Foundation
import Observation

/// A model observed by both AutoKVO and Swift's Observation: the two conformances and nothing
/// else. `nickname` is a plain stored property, which Observation does not track, as with
/// `@ObservationIgnored`.
// @unchecked Sendable: tests hand instances between threads in sequence, ordered by barriers.
final class Contact: KeyValueObservable, Observable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var firstName = "Ann"
  @Observed var lastName = "Lee"
  @Observed var friends: [Contact] = []
  var nickname = "A"
  private let tracker: LifetimeTracker?

  /// A computed property, tracked through the two `@Observed` properties it reads.
  var fullName: String { "\(firstName) \(lastName)" }

  init(firstName: String = "Ann", tracker: LifetimeTracker? = nil) {
    self.firstName = firstName
    self.tracker = tracker
    tracker?.instanceCreated()
  }

  deinit {
    tracker?.instanceDestroyed()
  }
}

/// A conforming class whose properties are notified by hand, by collection proxies, or both.
// @unchecked Sendable: single-threaded tests.
final class Bookcase: KeyValueObservable, Observable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var books: [String] = []
  @Observed var tags: Set<String> = []
  /// Notified by hand only: automatic notification is off for it.
  @Observed var balance = 0

  static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool {
    keyPath != \Bookcase.balance
  }

  func deposit(_ amount: Int) {
    willChangeValue(for: \.balance)
    balance += amount
    didChangeValue(for: \.balance)
  }
}

/// A conforming superclass and a subclass that adds a property of its own.
class Vehicle: KeyValueObservable, Observable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var wheels = 4
}

final class Truck: Vehicle, @unchecked Sendable {  // single-threaded tests
  @Observed var load = 0
}

/// A class that conforms to `Observable` in an extension of its own.
final class Lamp: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var isOn = false
}

extension Lamp: Observable {}

/// Counts `onChange` calls of trackings and what they saw, from any thread.
final class TrackingLog: @unchecked Sendable {  // `entries` is guarded by `lock`
  private let lock = NSLock()
  private var entries: [String] = []

  var all: [String] { lock.withLock { entries } }
  var count: Int { lock.withLock { entries.count } }

  func record(_ entry: String) {
    lock.withLock { entries.append(entry) }
  }
}

/// Tracks the reads `apply` makes and records `entry()` in `log` when one of them changes, once,
/// as `withObservationTracking(_:onChange:)` does.
func track(_ log: TrackingLog, _ apply: () -> Void, entry: @escaping @Sendable () -> String) {
  withObservationTracking(apply) { log.record(entry()) }
}
