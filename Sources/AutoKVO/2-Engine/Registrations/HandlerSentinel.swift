import Foundation

/// The observed-side sentinel of a registration with a typed handler: evaluates the registered
/// key path and calls the handler with the observer, the object and a ``KeyValueChange``.
///
/// Every engine registration the user makes is one: `autoObserve`'s closure, the classic
/// `observeValue(forKeyPath:of:change:context:)` callback and the `changes(for:)` sequence differ
/// only in the handler. When the key path is more than one stored `@Observed` property — a
/// computed property or a chain through other objects — its dependencies are discovered again
/// after every change, and ``ChainLinkSentinel``s on the other objects it reaches forward their
/// changes here.
// @unchecked Sendable: `coldState.extraTriggers` is guarded by the observed object's registry lock,
// `coldState.links` by `observation`'s lock, and the rest is immutable; the handler, which need
// not be Sendable, runs where `delivery` says, as KVO's run on the mutating thread.
// `@usableFromInline` only so that the inlinable `register` can name its specialization: the
// metadata is then found in the caller's module, through a cache, not looked up at run time.
@usableFromInline
final class HandlerSentinel<Observer: AnyObject, Object: KeyValueObservable, Value>:
  ObservedSentinel, ChainLinkOwner, @unchecked Sendable
{
  let observation: KeyValueObservation

  let primaryKeyPath: AnyKeyPath?

  /// Both sides, and the check every delivery passes. Notification must never reach an observer
  /// that is being deallocated, possibly on another thread; nor may it hand over the observed
  /// object once its deallocation has begun: a set made inside the object's own `deinit`, or a
  /// registration made there with `.initial`, must not give the dying object to a handler, which
  /// could keep it past its deallocation. The object's registry, and with it this registration,
  /// outlives the object's `deinit` body, so the registration alone cannot tell.
  let gate: DeliveryGate

  /// The observed object, retained, unless its deallocation has begun: the root from which a
  /// change a chain link forwards re-reads the key path.
  var root: Object? { gate.loadRoot(as: Object.self) }

  let keyPath: KeyPath<Object, Value>
  let options: ObservationOptions
  /// The user's handler behind an adapter that builds the change (see `HandlerInput`), called
  /// with the observer and the object.
  let handler: AdaptedHandler<Observer, Object>

  /// What only some registrations need, out of line: `nil` for a handler that runs synchronously
  /// on a single stored property, the common case, whose sentinel then stays small.
  let coldState: ColdState?

  final class ColdState {
    /// Where the handler runs (see `HandlerDelivery`).
    let delivery: HandlerDelivery
    /// Whether the key path is more than one stored property, so that its dependencies are
    /// discovered again after every change.
    let rediscovers: Bool
    /// Further key paths of the observed object whose changes concern the registration, found by
    /// dependency discovery. Guarded by the observed object's registry lock.
    var extraTriggers: [AnyKeyPath]
    /// The links this registration placed on other objects. Guarded by `observation`'s lock.
    var links: [any ChainLink] = []
    /// For a key path evaluated where the handler runs (`evaluatesWhereHandlerRuns`), the value
    /// its last evaluation read: the old value of the next change. Guarded by `observation`'s
    /// lock. Boxed: a field of the generic `Value` type would make the layout of this class, and
    /// so every access to it from the unspecialized engine, depend on run-time metadata.
    var lastValue: Any?

    init(delivery: HandlerDelivery, rediscovers: Bool, extraTriggers: [AnyKeyPath]) {
      self.delivery = delivery
      self.rediscovers = rediscovers
      self.extraTriggers = extraTriggers
    }
  }

  /// Where the handler runs (see `HandlerDelivery`). Inlined, as `rediscovers`: every set asks
  /// both, from the delivery code in other files.
  var delivery: HandlerDelivery {
    @inline(__always) get { coldState?.delivery ?? .synchronous }
  }

  var rediscovers: Bool {
    @inline(__always) get { coldState?.rediscovers ?? false }
  }

  /// Whether the key path is evaluated again after every change, on the queue or actor where
  /// the handler runs rather than on the mutating thread: a registration made on an actor reads
  /// its key path only there, since its getters may assume that actor.
  var evaluatesWhereHandlerRuns: Bool {
    guard let coldState else { return false }
    return coldState.rediscovers && !coldState.delivery.isSynchronous
  }

  /// What it does not store is borrowed: an initializer takes its arguments owned by default,
  /// which would make the registration retain the observer, the object, the whole `Dependencies`
  /// and the delivery for the call, and the initializer release what it did not keep.
  init(
    observer: borrowing Observer,
    root: borrowing Object,
    keyPath: KeyPath<Object, Value>,
    options: ObservationOptions,
    dependencies: borrowing Dependencies,
    delivery: borrowing HandlerDelivery,
    currentValue: UnsafePointer<Value>?,
    handler: @escaping AdaptedHandler<Observer, Object>
  ) {
    observation = KeyValueObservation()
    primaryKeyPath = dependencies.postedKeyPath
    gate = DeliveryGate(observer: copy observer, root: copy root)
    self.keyPath = keyPath
    self.options = options
    // Extra triggers imply rediscovery (`Dependencies.needsRediscovery`).
    if delivery.isSynchronous, !dependencies.needsRediscovery {
      self.coldState = nil
    } else {
      let coldState = ColdState(
        delivery: copy delivery, rediscovers: dependencies.needsRediscovery,
        extraTriggers: dependencies.extraRootTriggers)
      if coldState.rediscovers, !delivery.isSynchronous {
        // The old value of the first change of a key path evaluated where the handler runs.
        guard let currentValue else {
          preconditionFailure("a registration that rediscovers is made with its current value")
        }
        coldState.lastValue = currentValue.pointee
      }
      self.coldState = coldState
    }
    self.handler = handler
  }

  deinit {
    // The registration has ended (this sentinel is only released after its registry let it go):
    // its links on other objects end with it. Runs outside every lock.
    for link in coldState?.links ?? [] {
      link.observation.end(.cancelled)
    }
    gate.release()
  }

  var isTriggeredByPrimaryKeyPathOnly: Bool {
    coldState?.extraTriggers.isEmpty ?? true
  }

  func isTriggered(by keyPath: AnyKeyPath) -> Bool {
    // Unwrapped before comparing: `==` on two optionals goes through the generic `Equatable`
    // witness, `AnyKeyPath`'s own `==` does not.
    if let primaryKeyPath, primaryKeyPath.matches(keyPath) { return true }
    guard let coldState else { return false }
    return coldState.extraTriggers.contains { $0.matches(keyPath) }
  }

  /// A registration on exactly the property being set (one that does not rediscover its
  /// dependencies is triggered by no other set) takes the setter's values in ``didSet``: it
  /// reads nothing before the change unless it sends a prior call.
  var needsNoticeBeforeSet: Bool {
    rediscovers || options.contains(.prior)
  }

  /// A registration that asks for the old value reads the setter's in ``didSet``.
  var readsSetterOldValue: Bool {
    options.contains(.old)
  }

  /// And reads the leaf's in ``linkedLeafDidSet(values:)``, for the same reason.
  var readsLeafSetterOldValue: Bool {
    options.contains(.old)
  }
}
