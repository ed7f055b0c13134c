// Registration: the one entry point from `autoObserve` and its siblings into the sentinel, and the
// diagnostic for a key path that can never notify.

extension HandlerSentinel {
  /// Registers `changeHandler`, behind its adapter (see `HandlerInput`), for changes of `keyPath`
  /// of `object`, and returns the registration. `currentValue` and `accesses` are what evaluating
  /// `keyPath` on `object` under a recorder (``DependencyRecorder/evaluate(_:on:)``) returned: the
  /// caller evaluates, so that it can do so in the user's module.
  ///
  /// `objectRegistry`, `object`'s, takes ownership of the observed-side sentinel and `observerRegistry` of
  /// the observer-side one; the registration ends, exactly once, when either registry is released
  /// or the handle is cancelled. Neither side is retained.
  static func register(
    observer: Observer,
    observerRegistry: ObservationRegistry,
    object: Object,
    objectRegistry: ObservationRegistry,
    keyPath: KeyPath<Object, Value>,
    options: ObservationOptions,
    delivery: HandlerDelivery,
    handler: @escaping AdaptedHandler<Observer, Object>,
    currentValue: Value,
    accesses: [DependencyRecorder.Access],
    site: RegistrationSite?
  ) -> KeyValueObservation {
    let dependencies = Dependencies.discover(
      root: object, keyPath: keyPath, value: currentValue, accesses: accesses)
    if dependencies.isEmpty && type(of: object).automaticallyNotifiesObservers(for: keyPath) {
      // A key path that reads no @Observed property is computed (or a plain stored property):
      // when it cannot be named, the registration is told by its types and value type.
      let named = PropertyNames.name(of: keyPath, on: object).map { "keyPath: \($0)" }
      ObservationDiagnostics.report(
        .keyPathNeverNotifies,
        "autoObserve(_:\(named ?? "keyPath:")) of \(type(of: object)) by \(Observer.self)"
          + site.diagnosticSuffix
          + (named == nil ? ", a key path to a \(Value.self) AutoKVO cannot name," : "")
          + " reads no @Observed property and declares no keyPathsForValuesAffecting(_:); it will "
          + "only notify through willChangeValue(for:)/didChangeValue(for:). Mark what it reads "
          + "@Observed, or return false from automaticallyNotifiesObservers(for:) for it if you "
          + "notify it by hand."
      )
    }
    // `self`, the metatype the caller passed, rather than the type's name: naming the generic
    // type here would look its metadata up at run time.
    let sentinel = self.init(
      observer: observer, root: object, keyPath: keyPath, options: options,
      dependencies: dependencies, delivery: delivery, currentValue: currentValue,
      handler: handler)
    let observation = sentinel.observation
    // Both objects are alive for the whole call (the caller holds them), so both registries are
    // too; the registration knows both before either holds a sentinel, so it can never be ended
    // half-built.
    observation.attachUnpublished(
      observedRegistry: objectRegistry, observerRegistry: observerRegistry)
    objectRegistry.attach(sentinel)
    observerRegistry.attach(ObserverSentinel(observation: observation))
    if sentinel.rediscovers {
      sentinel.replaceLinks(with: dependencies, root: object)
    }
    if options.contains(.initial) {
      sentinel.deliverInitial(currentValue: currentValue)
    }
    return observation
  }

  /// Delivers the registration-time call requested with `.initial`. Called inside `register`,
  /// as part of the registration: synchronously, unless the handler must run on a queue the
  /// caller is not on (the rule is `HandlerDelivery.whileRegistering(_:)`'s, shared with the
  /// Foundation path).
  func deliverInitial(currentValue: Value) {
    let newValue = options.contains(.new) ? currentValue : nil
    let change = KeyValueChange(kind: .setting, newValue: newValue)
    delivery.whileRegistering { deliver(change) }
  }
}
