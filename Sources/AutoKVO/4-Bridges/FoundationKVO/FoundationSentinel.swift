/// The observed-side sentinel of a registration whose notifications come from outside AutoKVO's
/// engine — Foundation's key-value observing on Apple platforms — and are delivered to the
/// observer while the registration is active.
///
/// A notifier finds the sentinel (through a ``RegistrationContextTable``) and calls
/// ``deliver(_:)``. No change the engine posts concerns it: it has no primary key path and no
/// trigger. Compiled on every platform, with a generic payload, so that Linux tests exercise it
/// with a notifier of their own.
///
/// What depends on the observer's and the object's types lives in two closures made by
/// ``register(observer:observerRegistry:object:objectRegistry:delivery:handler:detachFromLiveObject:)``,
/// so that the notifier sees one type per payload: `deliverNow` loads both sides from weak
/// references (a weak load answers `nil` from the moment a deallocation begins, on any thread) and
/// calls the handler; `detach` hands the object to `detachFromLiveObject` when the sentinel is
/// released while the object is alive. Neither closure captures the sentinel, and a delivery
/// scheduled on a queue captures only `deliverNow`: it may run after the sentinel is gone, which
/// only weak references outlive, so this sentinel does not use a ``DeliveryGate``.
// @unchecked Sendable: immutable; the handler runs where `delivery` says.
final class FoundationSentinel<Payload>: ExternallyNotifiedSentinel, @unchecked Sendable {
  let observation: KeyValueObservation
  /// The key path registered with Foundation's KVO, which `stopObserving` matches.
  let foundationKeyPath: String?

  /// Where the handler runs (see `HandlerDelivery`).
  private let delivery: HandlerDelivery
  /// Calls the handler with the payload if the registration is active and both sides are alive.
  private let deliverNow: (Payload) -> Void
  /// Undoes what the registration attached to the observed object, if it is still alive.
  private let detach: () -> Void

  private init(
    observation: KeyValueObservation,
    foundationKeyPath: String,
    delivery: HandlerDelivery,
    deliverNow: @escaping (Payload) -> Void,
    detach: @escaping () -> Void
  ) {
    self.foundationKeyPath = foundationKeyPath
    self.delivery = delivery
    self.deliverNow = deliverNow
    self.detach = detach
    self.observation = observation
  }

  deinit {
    // Released always outside every AutoKVO lock (see KeyValueObservation.end).
    detach()
  }

  /// Delivers one notification to the observer, unless the registration has ended or either side
  /// has begun deallocating.
  func deliver(_ payload: Payload) {
    guard case .synchronous = delivery else {
      return delivery.run { [deliverNow] in deliverNow(payload) }
    }
    deliverNow(payload)
  }

  /// Runs `body`, the call that registers this sentinel with its notifier, as the registration
  /// it is (see `HandlerDelivery.whileRegistering(_:)`): a notification delivered on this thread
  /// meanwhile is the registration-time (`.initial`) call.
  func whileRegistering<Result>(_ body: () -> Result) -> Result {
    delivery.whileRegistering(body)
  }

  /// Registers `observer` for the notifications a notifier will report about `object`, and
  /// returns the observed-side sentinel; its `observation` is the registration's handle.
  ///
  /// `objectRegistry` takes ownership of the returned sentinel and `observerRegistry` of the
  /// observer-side one; the registration ends, exactly once, when either registry is released
  /// or the handle is cancelled. Neither side is retained. `detachFromLiveObject` undoes what the
  /// registration attached to the observed object (on Apple platforms, the association whose
  /// release removes the Foundation registration); it runs only with a strong reference to the
  /// object, so it never touches an object that another thread is deallocating, whose own
  /// deallocation then does the undoing, on its thread.
  static func register<Observer: AnyObject, Object: AnyObject>(
    observer: Observer,
    observerRegistry: ObservationRegistry,
    object: Object,
    objectRegistry: ObservationRegistry,
    keyPath: String,
    delivery: HandlerDelivery,
    handler: @escaping (Observer, Object, Payload) -> Void,
    detachFromLiveObject: @escaping (Object) -> Void
  ) -> FoundationSentinel {
    let observation = KeyValueObservation()
    let observedSentinel = FoundationSentinel(
      observation: observation,
      foundationKeyPath: keyPath,
      delivery: delivery,
      deliverNow: { [weak observer, weak object] payload in
        // Checked per call, and where the handler runs: nothing may be delivered after cancel()
        // returned there, and the weak loads keep both sides alive for the handler's duration.
        guard observation.isActive, let observer, let object else { return }
        handler(observer, object, payload)
      },
      detach: { [weak object] in
        // The strong load succeeds only if the object has not begun deallocating, and then it
        // cannot begin until this reference is dropped.
        if let object { detachFromLiveObject(object) }
      }
    )
    observation.attach(observedSentinel, to: objectRegistry, observerRegistry: observerRegistry)
    return observedSentinel
  }
}
