/// The observed-side sentinel of a registration whose notifications come from outside AutoKVO's
/// engine — Foundation's key-value observing on Apple platforms — and are relayed to the
/// observer while the registration is active.
///
/// A notifier finds the sentinel (through a ``RegistrationContextTable``) and calls
/// ``relay(_:)``. The sentinel never reacts to `@Observed` sets: it has no triggering key paths.
// @unchecked Sendable: immutable, as ObservedSentinel; the lifecycle lives in `observation`.
class RelayedObservedSentinel<Payload>: ObservedSentinel, @unchecked Sendable {
  /// Delivers one notification to the observer, unless the registration has ended or either side
  /// has begun deallocating.
  func relay(_ payload: Payload) {
    preconditionFailure("RelayedObservedSentinel.relay must be overridden")
  }

  /// Runs `body`, the call that registers this sentinel with its notifier, as the registration
  /// it is (see `HandlerDelivery.whileRegistering(_:)`): a notification relayed on this thread
  /// meanwhile is the registration-time (`.initial`) call.
  func whileRegistering<Result>(_ body: () -> Result) -> Result {
    preconditionFailure("RelayedObservedSentinel.whileRegistering must be overridden")
  }

  override func willChange(of object: AnyObject, _ change: ChangeDescriptor) -> Any? { nil }

  override func didChange(of object: AnyObject, _ change: ChangeDescriptor, token: Any?) {}
}

/// The typed relayed sentinel: holds the observer and the observed object weakly, runs the
/// handler where its `HandlerDelivery` says, and hands the observed object to
/// `detachFromLiveObject` when it is released while that object is alive.
///
/// The sentinel is released when its registration ends, or with the observed object's registry.
/// `detachFromLiveObject` undoes what the registration attached to the observed object (on Apple
/// platforms, the association whose release removes the Foundation registration). It runs only
/// with a strong reference to the object, so it never touches an object that another thread is
/// deallocating; in that case the object's own deallocation does the undoing, on its thread.
// @unchecked Sendable: immutable; the handler runs where `delivery` says.
final class TypedRelayedObservedSentinel<Observer: AnyObject, Object: AnyObject, Payload>:
  RelayedObservedSentinel<Payload>, @unchecked Sendable
{
  /// Weak: a weak load answers `nil` from the moment the observer's deallocation begins, on any
  /// thread, so nothing is delivered to a deallocating observer.
  private weak var observer: Observer?
  /// Weak for the same reason, and so that ``deinit`` can tell whether the object is still alive.
  private weak var object: Object?
  /// Where the handler runs (see `HandlerDelivery`).
  private let delivery: HandlerDelivery
  private let handler: (Observer, Object, Payload) -> Void
  private let detachFromLiveObject: (Object) -> Void

  private init(
    registry: ObservationRegistry,
    observation: KeyValueObservation,
    observer: Observer,
    object: Object,
    delivery: HandlerDelivery,
    handler: @escaping (Observer, Object, Payload) -> Void,
    detachFromLiveObject: @escaping (Object) -> Void
  ) {
    self.observer = observer
    self.object = object
    self.delivery = delivery
    self.handler = handler
    self.detachFromLiveObject = detachFromLiveObject
    super.init(
      registry: registry,
      observation: observation,
      primaryKeyPath: nil,
      extraTriggers: []
    )
  }

  deinit {
    // The strong load succeeds only if the object has not begun deallocating, and then it cannot
    // begin until this reference is dropped, so `detachFromLiveObject` works on a live object.
    // It fails once the object's deallocation has begun on any thread; that deallocation then
    // releases what the registration attached to it, on the deallocating thread. The sentinel is
    // always released outside every AutoKVO lock (see KeyValueObservation.end).
    if let object {
      detachFromLiveObject(object)
    }
  }

  override func whileRegistering<Result>(_ body: () -> Result) -> Result {
    delivery.whileRegistering(body)
  }

  override func relay(_ payload: Payload) {
    guard case .synchronous = delivery else {
      return delivery.run { self.deliverNow(payload) }
    }
    deliverNow(payload)
  }

  private func deliverNow(_ payload: Payload) {
    // Checked per call, and where the handler runs: nothing may be delivered after cancel()
    // returned there, and a weak load keeps both sides alive for the duration of the handler
    // once it succeeds.
    guard observation.isActive, let observer, let object else { return }
    handler(observer, object, payload)
  }

  /// Registers `observer` for the notifications a notifier will relay about `object`, and
  /// returns the observed-side sentinel; its `observation` is the registration's handle.
  ///
  /// `objectRegistry` takes ownership of the returned sentinel and `observerRegistry` of the
  /// observer-side one; the registration ends, exactly once, when either registry is released
  /// or the handle is cancelled. Neither side is retained.
  static func register(
    observer: Observer,
    observerRegistry: ObservationRegistry,
    object: Object,
    objectRegistry: ObservationRegistry,
    delivery: HandlerDelivery,
    handler: @escaping (Observer, Object, Payload) -> Void,
    detachFromLiveObject: @escaping (Object) -> Void
  ) -> TypedRelayedObservedSentinel {
    let observation = KeyValueObservation()
    let observedSentinel = TypedRelayedObservedSentinel(
      registry: objectRegistry,
      observation: observation,
      observer: observer,
      object: object,
      delivery: delivery,
      handler: handler,
      detachFromLiveObject: detachFromLiveObject
    )
    let observerSentinel = ObserverSentinel(registry: observerRegistry, observation: observation)
    // As in autoObserve: both sides are alive for the whole call, and the handle links both
    // sentinels before either registry holds one, so the registration is never ended half-built.
    observation.attachUnpublished(observed: observedSentinel, observer: observerSentinel)
    objectRegistry.attach(observedSentinel)
    observerRegistry.attach(observerSentinel)
    return observedSentinel
  }
}
