import AutoKVO
import Foundation

/// A base class with an `@Observed` size, as a newcomer writes one.
// @unchecked Sendable: each test's shapes are used from one thread at a time.
class Shape: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var size = 1
}

/// Overrides `size` with a computed property that scales what the base stores.
final class ScaledShape: Shape, @unchecked Sendable {
  override var size: Int {
    get { super.size * 10 }
    set { super.size = newValue / 10 }
  }
}

/// Registers from its own `deinit`, as the observer, and records what `autoObserve` returned.
final class FarewellObserver: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  private let person: Person
  private let outcome: Handoff<KeyValueObservation>?
  private let log: Watcher

  init(observing person: Person, log: Watcher, outcome: Handoff<KeyValueObservation>) {
    self.person = person
    self.log = log
    self.outcome = outcome
  }

  deinit {
    let log = log
    outcome?.object = autoObserve(person, keyPath: \.name, options: [.initial, .new]) {
      _, _, change in
      log.record("farewell \(change.newValue!)")
    }
  }
}

/// Registers a watcher on itself from its own `deinit`, as the observed object.
final class FarewellModel: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  @Observed var title = "last"
  private let watcher: Watcher
  private let outcome: Handoff<KeyValueObservation>

  init(watcher: Watcher, outcome: Handoff<KeyValueObservation>) {
    self.watcher = watcher
    self.outcome = outcome
  }

  deinit {
    outcome.object = watcher.autoObserve(self, keyPath: \.title, options: [.initial, .new]) {
      w, _, change in
      w.record("farewell \(change.newValue!)")
    }
  }
}

#if canImport(Observation) && !canImport(ObjectiveC)
  import Observation

  /// An `@Observable` model that registers a watcher on itself from its own `deinit`.
  @Observable final class FarewellBoard: @unchecked Sendable {  // one thread per test
    var score = 0
    @ObservationIgnored private let watcher: Watcher
    @ObservationIgnored private let outcome: Handoff<KeyValueObservation>

    init(watcher: Watcher, outcome: Handoff<KeyValueObservation>) {
      self.watcher = watcher
      self.outcome = outcome
    }

    deinit {
      outcome.object = watcher.autoObserve(self, keyPath: \.score, options: [.initial, .new]) {
        w, _, change in
        w.record("farewell \(change.newValue!)")
      }
    }
  }
#endif

/// A volume clamped by its own `didSet`, and one clamped before it is stored.
final class Speaker: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  @Observed var volume = 0 {
    didSet { if volume > 10 { volume = 10 } }
  }
  @Observed private var storedLevel = 0

  /// Clamped before it is stored: observers of `\.level` hear one change per set.
  var level: Int {
    get { storedLevel }
    set { storedLevel = min(newValue, 10) }
  }
}

/// A model whose registry is injected, as a dependency-injection container might do it.
final class InjectedPerson: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry: ObservationRegistry
  @Observed var name: String
  var manualScore = 0

  init(name: String, registry: ObservationRegistry) {
    self.name = name
    observationRegistry = registry
  }

  static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool {
    keyPath != \InjectedPerson.manualScore
  }
}

/// An observer whose registry is injected.
final class InjectedWatcher: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry: ObservationRegistry

  init(registry: ObservationRegistry) {
    observationRegistry = registry
  }
}

/// A base class with an `@Observed` array, and a subclass that adds nothing.
class Bookshelf: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  @Observed var books: [String] = []
}

final class CornerBookshelf: Bookshelf, @unchecked Sendable {}
