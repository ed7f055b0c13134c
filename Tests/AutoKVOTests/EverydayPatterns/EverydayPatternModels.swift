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

/// An item of a media player, with an `@Observed` title.
final class MediaItem: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  @Observed var title: String
  private let tracker: LifetimeTracker?

  init(_ title: String, tracker: LifetimeTracker? = nil) {
    self.title = title
    self.tracker = tracker
    tracker?.instanceCreated()
  }

  deinit {
    tracker?.instanceDestroyed()
  }
}

/// Holds its items in plain stored properties, the `@Observed` a newcomer forgets: a
/// non-optional one and an optional one.
final class MediaManager: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  var current: MediaItem
  var upcoming: MediaItem?
  @Observed var volume = 5

  init(current: MediaItem, upcoming: MediaItem? = nil) {
    self.current = current
    self.upcoming = upcoming
  }
}

/// Reaches its manager through an `@Observed` property: the plain hop comes second on the path.
final class MediaPlayer: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  @Observed var manager: MediaManager

  init(manager: MediaManager) {
    self.manager = manager
  }
}

/// Reaches a media item through two plain stored properties in a row.
final class MediaShelf: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  var manager: MediaManager

  init(manager: MediaManager) {
    self.manager = manager
  }
}

/// A media item whose title a writer thread replaces (`startReplacingTitles(of:until:)`).
protocol TitledMedia: AnyObject, Sendable {
  var title: String { get set }
}

/// A media item whose title a media thread replaces while the UI registers, as in a video player.
// @unchecked Sendable: `title` is written by one thread only; the registrations under test read
// nothing of it, which ThreadSanitizer checks.
final class StreamedItem: KeyValueObservable, TitledMedia, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var title = String(repeating: "title ", count: 8)
}

/// Tells a writer thread when to stop, and the test when it did.
final class WriterControl: @unchecked Sendable {  // `stopRequested` is guarded by `lock`
  private let lock = NSLock()
  private var stopRequested = false
  let finished = DispatchSemaphore(value: 0)

  var shouldStop: Bool { lock.withLock { stopRequested } }

  func stop() {
    lock.withLock { stopRequested = true }
    finished.wait()
  }
}

/// Replaces the title of each of `items`, in turn, with a new heap-allocated string until
/// `control` says stop.
func startReplacingTitles(of items: [some TitledMedia], until control: WriterControl) {
  Thread.detachNewThread {
    var generation = 0
    while !control.shouldStop {
      generation += 1
      for item in items {
        item.title = String(repeating: "title ", count: 8) + "\(generation)"
      }
    }
    control.finished.signal()
  }
}

/// A stored property that declares a dependency on another: a change of `discount` is a change of
/// `subtotal` too.
final class Invoice: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  @Observed var subtotal = 100
  @Observed var discount = 0

  static func keyPathsForValuesAffecting(_ keyPath: AnyKeyPath) -> Set<AnyKeyPath> {
    keyPath == \Invoice.subtotal ? [\Invoice.discount] : []
  }
}

/// A media item of a class of its own, so that the test that registers on new objects controls
/// the first registration on its property in the process.
// @unchecked Sendable: `title` is written by one thread only; the registrations under test read
// nothing of it, which ThreadSanitizer checks.
final class ArrivingItem: KeyValueObservable, TitledMedia, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var title = String(repeating: "title ", count: 8)
}

/// Properties around an `@Observed` one, so that a registration that writes anything but the
/// property's own record would show in them.
final class LabeledCounter: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  var before: UInt8 = 7
  @Observed var count = 1
  var after: UInt32 = 9
  @Observed var label = "a"
}
