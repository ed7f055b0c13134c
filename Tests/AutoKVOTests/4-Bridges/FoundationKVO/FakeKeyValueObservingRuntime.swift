import Foundation

@testable import AutoKVO

/// An object of ``FakeKeyValueObservingRuntime``: its key-value coding values, and the objects
/// associated with it, released when it is deallocated, as the Objective-C runtime releases an
/// object's associated objects after its own `deinit`.
class FakeRuntimeObject: @unchecked Sendable {  // `values` and `associations` are guarded by `lock`
  fileprivate let lock = NSLock()
  fileprivate var values: [String: Any] = [:]
  fileprivate var associations: [UnsafeRawPointer: AnyObject] = [:]
  private let tracker: LifetimeTracker?

  init(_ values: [String: Any] = [:], tracker: LifetimeTracker? = nil) {
    self.values = values
    self.tracker = tracker
    tracker?.instanceCreated()
  }

  deinit {
    tracker?.instanceDestroyed()
  }

  var associationCount: Int { lock.withLock { associations.count } }

  /// The key-value coding value of `key`: what a typed property of a subclass reads, as an
  /// `@objc` property's getter reads what its setter stored.
  func value(forKey key: String) -> Any? { lock.withLock { values[key] } }
}

/// The keys of the fake runtime's change dictionaries.
enum FakeChangeKey: KeyValueChangeDictionaryKey {
  case kind, new, old, indexes, prior

  static var kindKey: FakeChangeKey { .kind }
  static var newKey: FakeChangeKey { .new }
  static var oldKey: FakeChangeKey { .old }
  static var indexesKey: FakeChangeKey { .indexes }
  static var notificationIsPriorKey: FakeChangeKey { .prior }
}

/// Stands in for the Objective-C runtime under a real ``KeyValueObservingRouter``: it keeps the
/// registrations the router adds, reports a change of a ``FakeRuntimeObject``'s key to each of
/// them through the router, as Foundation's KVO does for a KVO-compliant setter, and counts what
/// the router asks of it.
final class FakeKeyValueObservingRuntime: KeyValueObservingRuntime, @unchecked Sendable {
  // `registrations`, `removals` and `unmatchedRemovals` are guarded by `lock`; `router` is set once,
  // before any registration.
  typealias ChangeKey = FakeChangeKey
  typealias Router = KeyValueObservingRouter<FakeKeyValueObservingRuntime>

  private struct Registration {
    let object: ObjectIdentifier
    let keyPath: String
    let options: ObservationOptions
    let context: UnsafeMutableRawPointer
  }

  private let lock = NSLock()
  private var registrations: [Registration] = []
  private var removals = 0
  private var unmatchedRemovals = 0
  private(set) unowned(unsafe) var router: Router!

  /// A runtime and the router that uses it.
  static func makeRouter() -> Router {
    let runtime = FakeKeyValueObservingRuntime()
    let router = Router(runtime: runtime)
    runtime.router = router
    return router
  }

  /// The number of registrations the router has added and not removed.
  var registrationCount: Int { lock.withLock { registrations.count } }
  /// The number of removals of a registration that existed.
  var removalCount: Int { lock.withLock { removals } }
  /// The number of removals of a registration that did not exist, where Foundation would raise.
  var unmatchedRemovalCount: Int { lock.withLock { unmatchedRemovals } }

  /// Sets `key` of `object` to `value`, telling every registration on it as KVO does: the prior
  /// notification to those that asked for it, the store, then the notification after it.
  func set(_ value: Any?, forKey key: String, of object: FakeRuntimeObject) {
    let concerned = lock.withLock {
      registrations.filter { $0.object == ObjectIdentifier(object) && $0.keyPath == key }
    }
    let old = self.value(of: object, forKeyPath: key)
    for registration in concerned where registration.options.contains(.prior) {
      var change: [FakeChangeKey: Any] = [.kind: ChangeKind.setting.rawValue, .prior: true]
      if registration.options.contains(.old) { change[.old] = old ?? NSNull() }
      router.route(change, context: registration.context)
    }
    object.lock.withLock { object.values[key] = value }
    for registration in concerned {
      var change: [FakeChangeKey: Any] = [.kind: ChangeKind.setting.rawValue]
      if registration.options.contains(.old) { change[.old] = old ?? NSNull() }
      if registration.options.contains(.new) { change[.new] = value ?? NSNull() }
      router.route(change, context: registration.context)
    }
  }

  func addObserver(
    to object: AnyObject, forKeyPath keyPath: String, options: ObservationOptions,
    context: UnsafeMutableRawPointer
  ) {
    lock.withLock {
      registrations.append(
        Registration(
          object: ObjectIdentifier(object), keyPath: keyPath, options: options, context: context))
    }
    if options.contains(.initial) {
      var change: [FakeChangeKey: Any] = [.kind: ChangeKind.setting.rawValue]
      if options.contains(.new) {
        change[.new] = value(of: object, forKeyPath: keyPath) ?? NSNull()
      }
      router.route(change, context: context)
    }
  }

  func removeObserver(
    from object: AnyObject, forKeyPath keyPath: String, context: UnsafeMutableRawPointer
  ) {
    lock.withLock {
      if let index = registrations.firstIndex(where: {
        $0.object == ObjectIdentifier(object) && $0.keyPath == keyPath && $0.context == context
      }) {
        registrations.remove(at: index)
        removals += 1
      } else {
        unmatchedRemovals += 1
      }
    }
  }

  func value(of object: AnyObject, forKeyPath keyPath: String) -> Any? {
    var current: Any? = object
    for key in keyPath.split(separator: ".") {
      guard let holder = current as? FakeRuntimeObject else { return nil }
      current = holder.lock.withLock { holder.values[String(key)] }
    }
    return current
  }

  func associatedObject(of object: AnyObject, key: UnsafeRawPointer) -> AnyObject? {
    let holder = Self.holder(object)
    return holder.lock.withLock { holder.associations[key] }
  }

  func setAssociatedObject(_ value: AnyObject?, of object: AnyObject, key: UnsafeRawPointer) {
    let holder = Self.holder(object)
    // The replaced object is released after the lock, as the runtime releases it after its own.
    let replaced = holder.lock.withLock {
      defer { holder.associations[key] = value }
      return holder.associations[key]
    }
    withExtendedLifetime(replaced) {}
  }

  private static func holder(_ object: AnyObject) -> FakeRuntimeObject {
    guard let holder = object as? FakeRuntimeObject else {
      preconditionFailure("the fake runtime associates objects with FakeRuntimeObjects only")
    }
    return holder
  }
}
