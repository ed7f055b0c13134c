#if canImport(Observation) && !canImport(ObjectiveC)
  import Observation
  import _AutoKVOShims

  /// The observed-side sentinel of a registration on an `@Observable` model: a class that
  /// conforms to Observation's `Observable` and not to ``KeyValueObservable``, whose changes its
  /// `ObservationRegistrar` reports, through its ``ModelChangeTracking`` (``ModelTracking`` but in
  /// the tests).
  ///
  /// The model has no ``ObservationRegistry``, so each such registration has one of its own, its
  /// *model registry*, which owns this sentinel as any registry owns its object's sentinels, and
  /// which nothing but the tracking's callbacks retains. The lifecycle is then the engine's own
  /// (Docs/Design.md): when the model is deallocated, its registrar releases the callbacks, the
  /// model registry's `deinit` ends the registration, exactly once, and releases the sentinel; when
  /// the observer is deallocated or the handle is cancelled, the registration detaches the sentinel
  /// from the model registry and tells it (``wasDetached()``), and the sentinel removes the
  /// callbacks.
  ///
  /// The callbacks hold the sentinel too, so that a change reaches it with no look-up; it is freed
  /// once both the callbacks and the model registry have let it go. Every delivery checks first
  /// that the registration is still active.
  // @unchecked Sendable: `pending` and `tracking` are Sendable, and the rest is immutable; the
  // handler, which need not be Sendable, runs where `delivery` says, as every handler does.
  final class ModelSentinel<Observer: AnyObject, Object: AnyObject & Observation.Observable, Value>:
    ModelChangeReceiver, ExternallyNotifiedSentinel, @unchecked Sendable
  {
    let observation = KeyValueObservation()

    /// Both sides, and the check every delivery passes (see `HandlerSentinel.gate`).
    let gate: DeliveryGate
    let property: ModelProperty<Object, Value>
    let options: ObservationOptions
    let delivery: HandlerDelivery
    let handler: AdaptedHandler<Observer, Object>
    let tracking: any ModelChangeTracking

    /// Whether Observation calls before each change: to read the old value, to send a prior
    /// call, or to tell a change that began before the registration (one made inside a prior
    /// call, `ModelPriorCalls`) from the ones after it.
    let needsWillSet: Bool

    /// The old values read before the changes in progress.
    let pending = PendingOldValues<Value>()

    init(
      observer: borrowing Observer,
      model: borrowing Object,
      property: ModelProperty<Object, Value>,
      options: ObservationOptions,
      delivery: HandlerDelivery,
      handler: @escaping AdaptedHandler<Observer, Object>,
      tracking: any ModelChangeTracking
    ) {
      gate = DeliveryGate(observer: copy observer, root: copy model)
      self.property = property
      self.tracking = tracking
      self.options = options
      self.delivery = delivery
      self.handler = handler
      needsWillSet =
        !options.isDisjoint(with: [.old, .prior]) || ModelPriorCalls.isRunningOnThisThread
    }

    deinit {
      // The callbacks are gone (they hold this sentinel); a tracking never installed, or ended by
      // the model's deallocation, may still be marked ended.
      tracking.abandon()
      gate.release()
    }

    func observes(_ object: AnyObject, keyPath: AnyKeyPath?) -> Bool {
      gate.rootIs(object) && (keyPath.map { property.keyPath.matches($0) } ?? true)
    }

    /// The registration was cancelled, or its observer deallocated: the callbacks go. Once the
    /// model's deallocation has begun, its registrar releases them itself, possibly on this thread
    /// and under its lock (a deinit that its release runs may have ended this registration):
    /// nothing may call into it then.
    func wasDetached() {
      if gate.loadRoot(as: Object.self) == nil {
        tracking.abandon()
      } else {
        tracking.cancel()
      }
    }
  }

  /// Marks the prior calls of registrations on `@Observable` models running on this thread: a
  /// registration made inside one is made while a change is in progress, and must not receive it.
  enum ModelPriorCalls {
    static var isRunningOnThisThread: Bool {
      autokvo_model_prior_calls() != 0
    }

    static func run(_ body: () -> Void) {
      let previous = autokvo_model_prior_calls()
      autokvo_set_model_prior_calls(previous + 1)
      defer { autokvo_set_model_prior_calls(previous) }
      body()
    }
  }
#endif
