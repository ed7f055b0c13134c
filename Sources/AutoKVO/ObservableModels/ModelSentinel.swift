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
  /// from the model registry, and the sentinel's `deinit` removes the callbacks.
  ///
  /// Each callback finds the sentinel through the model registry, under its lock, while the
  /// registry still holds it: a callback that finds it gone removes its installation instead.
  // @unchecked Sendable: `pending` is guarded by `pendingLock`, `tracking` is Sendable, and the
  // rest is immutable; the handler, which need not be Sendable, runs where `delivery` says, as
  // every handler does.
  final class ModelSentinel<Observer: AnyObject, Object: AnyObject & Observation.Observable, Value>:
    ModelChangeReceiver, @unchecked Sendable
  {
    let observation = KeyValueObservation()

    /// Both sides, and the check every delivery passes (see `HandlerSentinel.gate`).
    let gate: DeliveryGate
    let keyPath: KeyPath<Object, Value>
    let options: ObservationOptions
    let delivery: HandlerDelivery
    let handler: AdaptedHandler<Observer, Object>
    let tracking = ModelTracking()

    /// Whether Observation calls before each change: to read the old value, to send a prior
    /// call, or to tell a change that began before the registration (one made inside a prior
    /// call, `ModelPriorCalls`) from the ones after it.
    let needsWillSet: Bool

    /// The old values read before the changes in progress, with the thread of each, until each
    /// change's `didSet` takes its own: the last one its thread left. Guarded by `pendingLock`.
    private var pending: [(thread: UnsafeRawPointer, oldValue: Any)] = []
    private let pendingLock = Lock()

    init(
      observer: borrowing Observer,
      model: borrowing Object,
      keyPath: KeyPath<Object, Value>,
      options: ObservationOptions,
      delivery: HandlerDelivery,
      handler: @escaping AdaptedHandler<Observer, Object>
    ) {
      gate = DeliveryGate(observer: copy observer, root: copy model)
      self.keyPath = keyPath
      self.options = options
      self.delivery = delivery
      self.handler = handler
      needsWillSet =
        !options.isDisjoint(with: [.old, .prior]) || ModelPriorCalls.isRunningOnThisThread
    }

    deinit {
      // The registration has ended, and the model registry let this sentinel go. Once the
      // model's deallocation has begun, its registrar releases the callbacks, possibly on this
      // thread and under its lock: nothing may call into it then.
      if gate.loadRoot(as: Object.self) == nil {
        tracking.abandon()
      } else {
        tracking.cancel()
      }
      gate.release()
      pendingLock.destroy()
    }

    // MARK: ObservedSentinel

    /// No change the engine posts concerns this sentinel: the model registry has no object of its
    /// own, and the model's changes arrive through `tracking`.
    var primaryKeyPath: AnyKeyPath? { nil }

    func isTriggered(by keyPath: AnyKeyPath) -> Bool { false }

    func willChange(of object: AnyObject, _ change: ChangeDescriptor) -> Any? { nil }

    func didChange(of object: AnyObject, _ change: ChangeDescriptor, token: Any?) {}

    var needsNoticeBeforeSet: Bool { false }

    // MARK: Registration

    /// Registers `handler` for changes of `keyPath` of `model`, and returns the registration: an
    /// ended one, after a diagnostic, when reading `keyPath` accesses nothing Observation tracks.
    static func register(
      observer: Observer,
      observerRegistry: ObservationRegistry,
      model: Object,
      keyPath: KeyPath<Object, Value>,
      options: ObservationOptions,
      delivery: HandlerDelivery,
      handler: @escaping AdaptedHandler<Observer, Object>,
      site: RegistrationSite?
    ) -> KeyValueObservation {
      let modelRegistry = ObservationRegistry()
      let sentinel = self.init(
        observer: observer, model: model, keyPath: keyPath, options: options,
        delivery: delivery, handler: handler)
      let observation = sentinel.observation
      observation.attachUnpublished(
        observedRegistry: modelRegistry, observerRegistry: observerRegistry)
      modelRegistry.attach(sentinel)
      observerRegistry.attach(ObserverSentinel(observation: observation))
      guard let currentValue = sentinel.install(on: model, modelRegistry: modelRegistry) else {
        let named = PropertyNames.name(of: keyPath, on: model).map { "keyPath: \($0)" }
        ObservationDiagnostics.report(
          .keyPathNeverNotifies,
          "autoObserve(_:\(named ?? "keyPath:")) of \(Object.self) by \(Observer.self)"
            + site.diagnosticSuffix
            + (named == nil ? ", a key path to a \(Value.self) AutoKVO cannot name," : "")
            + " reads nothing Observation tracks (an @ObservationIgnored property, a let, or a "
            + "property of a class that is not @Observable), so it could never notify. Nothing "
            + "is registered: the returned observation is already cancelled."
        )
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

    /// Installs the tracking of `keyPath` on `model`, replacing the previous installation, with
    /// callbacks that reach this sentinel through `modelRegistry` (see ``ModelTracking``). Returns
    /// the value read, or `nil` when the read accessed nothing Observation tracks.
    func install(on model: Object, modelRegistry: ObservationRegistry) -> Value? {
      // Unretained, so that the callbacks keep alive only the model registry, which owns the
      // sentinel. Read only under the registry's lock, once the registry is found to hold it
      // still: the registry's own reference keeps it alive there.
      unowned(unsafe) let unretained: any ModelChangeReceiver = self
      let willSet: (@Sendable (ModelTracking.Change) -> Void)?
      if needsWillSet {
        willSet = { [modelRegistry] change in
          guard
            let receiver = modelRegistry.withState({ $0.incoming.isEmpty ? nil : unretained })
          else {
            return change.cancelInstallation()
          }
          receiver.modelWillSet(change)
        }
      } else {
        willSet = nil
      }
      let keyPath = keyPath
      return tracking.install(
        reading: { model[keyPath: keyPath] },
        willSet: willSet,
        didSet: { [modelRegistry] change in
          guard
            let receiver = modelRegistry.withState({ $0.incoming.isEmpty ? nil : unretained })
          else {
            return change.cancelInstallation()
          }
          receiver.modelDidSet(change, modelRegistry: modelRegistry)
        })
    }

    // MARK: Changes

    /// Before a change: reads the old value for the change's `didSet`, and sends the prior call.
    func modelWillSet(_ change: ModelTracking.Change) {
      // A model whose deallocation has begun is not read: a registrar may call `willSet` from
      // its object's deinit (a Swift 6.2 runtime did).
      guard observation.isActive, let model = gate.loadRoot(as: Object.self) else { return }
      let oldValue = model[keyPath: keyPath]
      let thread = autokvo_thread_identity()
      pendingLock.withLock { pending.append((thread, oldValue)) }
      if options.contains(.prior) {
        sendPriorCall(oldValue: oldValue)
      }
    }

    @inline(never)
    func sendPriorCall(oldValue: Value) {
      let prior = KeyValueChange(
        kind: .setting, oldValue: options.contains(.old) ? oldValue : nil, isPrior: true)
      ModelPriorCalls.run { deliver(prior) }
    }

    /// After a change: delivers it, with the old value its `willSet` read.
    func modelDidSet(_ change: ModelTracking.Change, modelRegistry: ObservationRegistry) {
      var oldValue: Any?
      if needsWillSet {
        // None left by this thread: the change began before the registration was made, or
        // before the registration or a side of it was gone.
        guard let taken = takeOldValue() else { return }
        oldValue = taken
      }
      guard change.dependenciesAreFixed || isOwnProperty(change) else {
        return rediscover(oldValue: oldValue, modelRegistry: modelRegistry, change: change)
      }
      guard case .synchronous = delivery else {
        return schedule(oldValue: oldValue)
      }
      gate.open(observation) { (observer: Observer, model: Object) in
        let newValue = model[keyPath: keyPath]
        if let oldValue {
          withUnsafePointer(to: oldValue as! Value) { oldValue in
            withUnsafePointer(to: newValue) { newValue in
              handler(
                observer, model,
                HandlerInput(
                  oldValue: options.contains(.old) ? UnsafeRawPointer(oldValue) : nil,
                  newValue: options.contains(.new) ? UnsafeRawPointer(newValue) : nil))
            }
          }
        } else {
          withUnsafePointer(to: newValue) { newValue in
            handler(
              observer, model,
              HandlerInput(
                oldValue: nil, newValue: options.contains(.new) ? UnsafeRawPointer(newValue) : nil)
            )
          }
        }
      }
    }

    /// The old value this thread's latest `willSet` read, taken.
    private func takeOldValue() -> Any? {
      let thread = autokvo_thread_identity()
      return pendingLock.withLock {
        guard let index = pending.lastIndex(where: { $0.thread == thread }) else { return nil }
        return pending.remove(at: index).oldValue
      }
    }

    /// Whether the change is of the registered key path itself, a property Observation tracks:
    /// what a read of it accesses then never changes, and the tracking is told so. Asked until
    /// it is known; a key path through other objects or computed from other properties is never
    /// one.
    @inline(never)
    func isOwnProperty(_ change: ModelTracking.Change) -> Bool {
      guard let changed = change.changedKeyPath, changed.matches(keyPath) else { return false }
      tracking.markDependenciesFixed()
      return true
    }

    /// Delivers a change of a key path whose accesses may differ after it (a computed property, a
    /// chain through other objects): reads the key path again, installing its tracking anew, and
    /// ends the registration when its model is gone or it no longer reads anything tracked.
    @inline(never)
    func rediscover(oldValue: Any?, modelRegistry: ObservationRegistry, change: ModelTracking.Change) {
      guard let model = gate.loadRoot(as: Object.self) else {
        // A change of another object the key path reads, after the model's deallocation began:
        // the registration ends now, and these callbacks go.
        observation.end(.observedDeallocated)
        return change.cancelInstallation()
      }
      guard let newValue = install(on: model, modelRegistry: modelRegistry) else {
        ObservationDiagnostics.report(
          .keyPathNeverNotifies,
          "A change of \(Object.self) left a key path to a \(Value.self), observed by "
            + "\(Observer.self), reading nothing Observation tracks, so it could never notify "
            + "again: the registration has ended."
        )
        return observation.cancel()
      }
      var change = KeyValueChange<Value>(kind: .setting)
      if options.contains(.old) { change.oldValue = oldValue.map { $0 as! Value } }
      if options.contains(.new) { change.newValue = newValue }
      deliver(change)
    }

    /// Reads the new value now, and delivers the change where `delivery` says.
    @inline(never)
    func schedule(oldValue: Any?) {
      guard let model = gate.loadRoot(as: Object.self) else { return }
      var change = KeyValueChange<Value>(kind: .setting)
      if options.contains(.old) { change.oldValue = oldValue.map { $0 as! Value } }
      if options.contains(.new) { change.newValue = model[keyPath: keyPath] }
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

  /// What a tracking's callbacks call on the sentinel they serve, whatever its types.
  protocol ModelChangeReceiver: ObservedSentinel {
    func modelWillSet(_ change: ModelTracking.Change)
    func modelDidSet(_ change: ModelTracking.Change, modelRegistry: ObservationRegistry)
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
