import AutoKVO
import Foundation

/// The observed model of most tests.
// @unchecked Sendable: tests hand instances between threads in sequence, ordered by barriers.
final class Person: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var name: String
  @Observed var age: Int
  private let tracker: LifetimeTracker?

  /// A computed property that reads two `@Observed` properties.
  var summary: String { "\(name) (\(age))" }

  init(name: String = "Ann", age: Int = 30, tracker: LifetimeTracker? = nil) {
    self.name = name
    self.age = age
    self.tracker = tracker
    tracker?.instanceCreated()
  }

  deinit {
    tracker?.instanceDestroyed()
  }
}

/// A subclass, to show `@Observed` works through inheritance.
final class Employee: PersonBase, @unchecked Sendable {  // single-threaded tests
  @Observed var title = "Engineer"
}

class PersonBase: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var name = "Base"
}

/// The observer of most tests: records what its handlers received.
// @unchecked Sendable: `storedLog` is guarded by `lock`; the rest is immutable.
final class Watcher: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  private let lock = NSLock()
  private var storedLog: [String] = []
  private let tracker: LifetimeTracker?

  init(tracker: LifetimeTracker? = nil) {
    self.tracker = tracker
    tracker?.instanceCreated()
  }

  deinit {
    tracker?.instanceDestroyed()
  }

  var log: [String] { lock.withLock { storedLog } }

  func record(_ entry: String) {
    lock.withLock { storedLog.append(entry) }
  }
}

/// A model whose `balance` is notified manually only.
final class Account: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var balance = 0
  @Observed var owner = "Ann"
  /// Not `@Observed`: notified only by will/did pairs.
  var note = ""

  static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool {
    keyPath != \Account.balance
  }
}

/// Formats a change compactly for log comparisons: `kind old->new` with `prior` marked.
func describe<Value>(_ change: KeyValueChange<Value>) -> String {
  let old = change.oldValue.map { "\($0)" } ?? "nil"
  let new = change.newValue.map { "\($0)" } ?? "nil"
  return "\(change.isPrior ? "prior " : "")\(change.kind) \(old)->\(new)"
}
