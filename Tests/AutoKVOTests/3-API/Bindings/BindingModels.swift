import AutoKVO
import Foundation

/// The observed model of the several-key-path and binding tests.
// @unchecked Sendable: single-threaded tests, except the threading ones, which order their
// accesses with queues, actors and barriers.
final class Profile: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var name: String
  @Observed var age: Int
  @Observed var nickname: String?
  @Observed var tags: [String] = []
  @Observed var level: Double = 0
  @Observed var blob = Blob(1)
  @Observed var pet: Dog?
  /// Not `@Observed` and not declared: can never notify.
  var plain = 0
  /// Notified by hand only.
  var manual = 0
  private let tracker: LifetimeTracker?

  /// Computed: reads `name`.
  var greeting: String { "Hello, \(name)" }
  /// Computed: reads `name` twice, along two paths.
  var doubled: String { name + greeting }

  /// Keeps at most 10 (a clamping setter).
  var atMostTen: Double {
    get { level }
    set { level = Swift.min(newValue, 10) }
  }

  init(name: String = "Ann", age: Int = 30, tracker: LifetimeTracker? = nil) {
    self.name = name
    self.age = age
    self.tracker = tracker
    tracker?.instanceCreated()
  }

  deinit {
    tracker?.instanceDestroyed()
  }

  static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool {
    keyPath != \Profile.manual
  }
}

/// A value that is not `Equatable`.
struct Blob: Sendable {
  var number: Int
  init(_ number: Int) { self.number = number }
}

/// The target of the binding tests: counts every write of each property.
// @unchecked Sendable: as `Profile`.
final class Badge: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var storedText = ""
  @Observed var storedOptional: String?
  @Observed var storedLevel: Double = 0
  @Observed var storedBlob = Blob(0)
  @Observed var storedTags: [String] = []
  var writes: [String] = []
  private let tracker: LifetimeTracker?
  /// Runs inside the setter of `text`, after the store, when set.
  var onTextWrite: (() -> Void)?

  init(tracker: LifetimeTracker? = nil) {
    self.tracker = tracker
    tracker?.instanceCreated()
  }

  deinit {
    tracker?.instanceDestroyed()
  }

  /// Observable through `storedText`; counts its writes.
  var text: String {
    get { storedText }
    set {
      writes.append("text=\(newValue)")
      storedText = newValue
      onTextWrite?()
    }
  }

  var optionalText: String? {
    get { storedOptional }
    set {
      writes.append("optionalText=\(newValue ?? "nil")")
      storedOptional = newValue
    }
  }

  var level: Double {
    get { storedLevel }
    set {
      writes.append("level=\(newValue)")
      storedLevel = newValue
    }
  }

  /// Keeps at least 12 (a clamping setter that can never agree with `Profile.atMostTen`).
  var atLeastTwelve: Double {
    get { storedLevel }
    set {
      writes.append("atLeastTwelve=\(newValue)")
      storedLevel = Swift.max(newValue, 12)
    }
  }

  var blob: Blob {
    get { storedBlob }
    set {
      writes.append("blob=\(newValue.number)")
      storedBlob = newValue
    }
  }

  var tags: [String] {
    get { storedTags }
    set {
      writes.append("tags=\(newValue)")
      storedTags = newValue
    }
  }

  /// A plain property: never notifies.
  var plainText = ""
}

/// A mutable value a test's closures share.
final class Cell<Value>: @unchecked Sendable {  // single-threaded test use
  var value: Value

  init(_ value: Value) { self.value = value }
}
