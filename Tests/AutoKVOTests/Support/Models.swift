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
    keyPath != \Account.balance && keyPath != \Account.note
  }
}

/// Formats a change compactly for log comparisons: `kind old->new` with `prior` marked.
func describe<Value>(_ change: KeyValueChange<Value>) -> String {
  let old = change.oldValue.map { "\($0)" } ?? "nil"
  let new = change.newValue.map { "\($0)" } ?? "nil"
  return "\(change.isPrior ? "prior " : "")\(change.kind) \(old)->\(new)"
}

/// An intermediate object for key-path chains.
final class Dog: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var name: String
  @Observed var toy: Toy?
  private let tracker: LifetimeTracker?

  /// Computed from `name`: a chain that ends here reads it again on every change.
  var loudName: String { name.uppercased() }

  init(_ name: String, tracker: LifetimeTracker? = nil) {
    self.name = name
    self.tracker = tracker
    tracker?.instanceCreated()
  }

  deinit {
    tracker?.instanceDestroyed()
  }
}

/// The third level of a chain.
final class Toy: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var color: String

  init(_ color: String) {
    self.color = color
  }
}

/// The root of key-path chains: a strong optional dog, a strong non-optional pet, and a weak
/// walker that is not @Observed.
final class Owner: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var dog: Dog?
  @Observed var pet: Dog
  weak var walker: Dog?
  @Observed var useNickname = false
  @Observed var nickname = "Nick"

  /// Reads `nickname` only in one branch.
  var displayName: String { useNickname ? nickname : pet.name }

  init(dog: Dog? = nil, pet: Dog = Dog("Rex")) {
    self.dog = dog
    self.pet = pet
  }
}

/// Declared dependencies: `fullName` reads a stored property that is not `@Observed`, and
/// `keyPathsForValuesAffecting` names the `@Observed` ones that drive it, with a cycle.
final class Document: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var first = "A"
  @Observed var last = "B"
  var cache = ""

  var fullName: String { "\(first) \(last)" }
  var title: String { cache }
  var alias: String { cache }

  static func keyPathsForValuesAffecting(_ keyPath: AnyKeyPath) -> Set<AnyKeyPath> {
    switch keyPath {
    case \Document.title: [\Document.alias, \Document.first]
    case \Document.alias: [\Document.title, \Document.last]
    default: []
    }
  }
}

/// A model with collection properties.
final class Playlist: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var songs: [String] = []
  @Observed var tags: Set<String> = []
  var manualSongs: [String] = []
  var manualTags: Set<String> = []

  var songCount: Int { songs.count }

  static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool {
    keyPath != \Playlist.manualSongs && keyPath != \Playlist.manualTags
  }
}
