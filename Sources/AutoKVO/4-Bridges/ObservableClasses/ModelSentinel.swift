#if canImport(Observation) && !canImport(ObjectiveC)
  import Observation
  import _AutoKVOShims

  /// The observed-side sentinel of a registration on an `@Observable` model: a class that
  /// conforms to Observation's `Observable` and not to ``KeyValueObservable``, whose changes its
  /// `ObservationRegistrar` reports (``ModelTracking``).
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
    let tracking: ModelTracking

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
      handler: @escaping AdaptedHandler<Observer, Object>
    ) {
      gate = DeliveryGate(observer: copy observer, root: copy model)
      self.property = property
      tracking = ModelTracking(keyPath: property.keyPath)
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

    // MARK: Registration

    /// Registers `handler` for changes of the property of `model` that `access` reads, and returns
    /// the registration: an ended one, after a diagnostic, when reading the property accesses
    /// nothing Observation tracks.
    static func register(
      observer: Observer,
      observerRegistry: ObservationRegistry,
      model: Object,
      access: @escaping ModelPropertyAccess<Object>,
      options: ObservationOptions,
      delivery: HandlerDelivery,
      handler: @escaping AdaptedHandler<Observer, Object>,
      site: RegistrationSite?
    ) -> KeyValueObservation {
      let modelRegistry = ObservationRegistry()
      let property = ModelProperty<Object, Value>(access, on: model)
      let sentinel = self.init(
        observer: observer, model: model, property: property, options: options,
        delivery: delivery, handler: handler)
      let observation = sentinel.observation
      observation.attach(sentinel, to: modelRegistry, observerRegistry: observerRegistry)
      guard let currentValue = sentinel.install(on: model, modelRegistry: modelRegistry) else {
        ObservationDiagnostics.reportKeyPathNeverNotifies(
          keyPath: property.keyPath, of: model, objectType: Object.self, by: Observer.self,
          valueType: Value.self, site: site,
          reason: "reads nothing Observation tracks (an @ObservationIgnored property, a let, or a "
            + "property of a class that is not @Observable), so it could never notify. Nothing "
            + "is registered: the returned observation is already cancelled.")
        observation.cancel()
        return observation
      }
      if options.contains(.initial) {
        let change = KeyValueChange(
          kind: .setting, newValue: options.contains(.new) ? currentValue : nil)
        delivery.whileRegistering { sentinel.deliver(change) }
      }
      return observation
    }

    /// Installs the tracking of the property on `model`, replacing the previous installation, with
    /// callbacks that keep `modelRegistry`, which owns this sentinel, alive (see
    /// ``ModelTracking``). Returns the value read, or `nil` when the read accessed nothing
    /// Observation tracks.
    func install(on model: Object, modelRegistry: any AnyObject & Sendable) -> Value? {
      // Read through the key path object, not the access: a getter inlined into the access would
      // report its read under a key path instance of its own, equal to the one the model's setter
      // reports, but not the same object, and Observation's registrar would then compare the two
      // in full on every change.
      let keyPath = property.keyPath
      return tracking.install(
        reading: { model[keyPath: keyPath] }, notifiesBeforeChange: needsWillSet,
        owner: modelRegistry, receiver: self)
    }

    // MARK: Changes

    /// Before a change: reads the old value for the change's `didSet`, and sends the prior call.
    /// Returns whether the callbacks are still wanted.
    ///
    /// When the key path is a tracked property of the model itself (`dependenciesAreFixed`), the
    /// change is the model's own, made by code that holds it: it is read without a retain.
    func modelWillChange(dependenciesAreFixed: Bool) -> Bool {
      guard observation.isActive else { return false }
      if dependenciesAreFixed, gate.withRootMakingChange(as: Object.self, { willSet(of: $0) }) {
        return true
      }
      guard let model = gate.loadRoot(as: Object.self) else {
        // The model's deallocation has begun: a change of another object the key path reads (a
        // chain's), or a registrar's call from its object's deinit (a Swift 6.2 runtime made
        // one). The registration ends now, and these callbacks go.
        observation.end(.observedDeallocated)
        return false
      }
      willSet(of: model)
      return true
    }

    private func willSet(of model: Object) {
      pending.push(thread: autokvo_thread_identity()) { property.read(model, into: $0) }
      if options.contains(.prior) {
        sendPriorCall(model: model)
      }
    }

    @inline(never)
    func sendPriorCall(model: Object) {
      var prior = KeyValueChange<Value>(kind: .setting)
      prior.isPrior = true
      if options.contains(.old) { prior.oldValue = property.read(model) }
      ModelPriorCalls.run { deliver(prior) }
    }

    /// After a change: delivers it, with the old value its `willSet` read. Returns whether the
    /// callbacks are still wanted.
    func modelDidChange(
      dependenciesAreFixed: Bool, owner modelRegistry: any AnyObject & Sendable
    ) -> Bool {
      guard needsWillSet else {
        return didSet(oldValue: nil, dependenciesAreFixed, modelRegistry)
      }
      var stillWanted = true
      let found = pending.popLatest(thread: autokvo_thread_identity()) { oldValue in
        stillWanted = didSet(
          oldValue: UnsafeRawPointer(oldValue), dependenciesAreFixed, modelRegistry)
      }
      // None found: this thread's change began before the registration was made, or before the
      // registration or a side of it was gone.
      return found ? stillWanted : true
    }

    /// Delivers a change; `oldValue`, the address of a `Value`, is `nil` when no `willSet` read it.
    /// An address without its type, so that the unspecialized code asks for no metadata of an
    /// optional typed pointer.
    private func didSet(
      oldValue: UnsafeRawPointer?, _ dependenciesAreFixed: Bool,
      _ modelRegistry: any AnyObject & Sendable
    ) -> Bool {
      guard dependenciesAreFixed else {
        return rediscover(oldValue: oldValue, modelRegistry: modelRegistry)
      }
      guard case .synchronous = delivery else {
        schedule(oldValue: oldValue)
        return true
      }
      // The key path is a tracked property of the model itself: this change is the model's own,
      // made by code that holds it.
      gate.openInChangeOfRoot(observation) { (observer: Observer, model: Object) in
        guard options.contains(.new) else {
          return handler(
            observer, model,
            HandlerInput(oldValue: options.contains(.old) ? oldValue : nil, newValue: nil))
        }
        property.withValue(of: model) { newValue in
          handler(
            observer, model,
            HandlerInput(
              oldValue: options.contains(.old) ? oldValue : nil,
              newValue: UnsafeRawPointer(newValue)))
        }
      }
      return true
    }

    /// Delivers a change of a key path whose accesses may differ after it (a computed property, a
    /// chain through other objects): reads the key path again, installing its tracking anew, and
    /// ends the registration when its model is gone or it no longer reads anything tracked.
    @inline(never)
    func rediscover(oldValue: UnsafeRawPointer?, modelRegistry: any AnyObject & Sendable) -> Bool {
      guard let model = gate.loadRoot(as: Object.self) else {
        // A change of another object the key path reads, after the model's deallocation began:
        // the registration ends now, and these callbacks go.
        observation.end(.observedDeallocated)
        return false
      }
      guard let newValue = install(on: model, modelRegistry: modelRegistry) else {
        ObservationDiagnostics.report(
          .keyPathNeverNotifies,
          "A change of \(Object.self) left a key path to a \(Value.self), observed by "
            + "\(Observer.self), reading nothing Observation tracks, so it could never notify "
            + "again: the registration has ended."
        )
        observation.cancel()
        return true
      }
      var change = KeyValueChange<Value>(kind: .setting)
      if options.contains(.old) {
        change.oldValue = oldValue?.assumingMemoryBound(to: Value.self).pointee
      }
      if options.contains(.new) { change.newValue = newValue }
      deliver(change)
      return true
    }

    /// Reads the new value now, and delivers the change where `delivery` says.
    @inline(never)
    func schedule(oldValue: UnsafeRawPointer?) {
      guard let model = gate.loadRoot(as: Object.self) else { return }
      var change = KeyValueChange<Value>(kind: .setting)
      if options.contains(.old) {
        change.oldValue = oldValue?.assumingMemoryBound(to: Value.self).pointee
      }
      if options.contains(.new) { change.newValue = property.read(model) }
      deliver(change)
    }

    func deliver(_ change: KeyValueChange<Value>) {
      delivery.run {
        self.gate.open(self.observation) { (observer: Observer, model: Object) in
          withUnsafePointer(to: change) {
            self.handler(observer, model, HandlerInput(change: $0))
          }
        }
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
