// Registration: the one entry point from `autoObserve` and its siblings into the sentinel, and the
// diagnostics for a key path that can never notify and for a chain through an unobserved hop.

extension HandlerSentinel {
  /// Registers `changeHandler`, behind its adapter (see `HandlerInput`), for changes of `keyPath`
  /// of `object`, and returns the registration. `currentValue` and `accesses` are what evaluating
  /// `keyPath` on `object` under a recorder (``DependencyRecorder/evaluate(_:on:)``) returned: the
  /// caller evaluates, so that it can do so in the user's module. `currentValue` is `nil` when
  /// the caller did not evaluate, because `keyPath` names `recordedKeyPath`, a property whose
  /// record exists; when the class declares dependencies for it, the key path is evaluated here
  /// after all, since a registration that rediscovers starts from the current value.
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
    currentValue: UnsafePointer<Value>?,
    accesses: [DependencyRecorder.Access],
    recordedKeyPath: AnyKeyPath?,
    site: RegistrationSite?
  ) -> KeyValueObservation {
    let dependencies = Dependencies.discover(
      root: object, keyPath: keyPath, value: currentValue, accesses: accesses,
      recordedKeyPath: recordedKeyPath)
    if currentValue == nil, dependencies.needsRediscovery {
      // Declared dependencies: the key path is evaluated again after each change, starting from
      // the value it has now.
      var (value, accesses) = DependencyRecorder.evaluate(keyPath, on: object)
      return register(
        observer: observer, observerRegistry: observerRegistry, object: object,
        objectRegistry: objectRegistry, keyPath: keyPath, options: options, delivery: delivery,
        handler: handler, currentValue: &value, accesses: accesses, recordedKeyPath: nil,
        site: site)
    }
    // Asked only of a path that reads nothing or goes through an unobserved hop, the rare cases.
    let notifiesAutomatically =
      (dependencies.isEmpty || dependencies.unobservedHopTargetType != nil)
      && type(of: object).automaticallyNotifiesObservers(for: keyPath)
    if dependencies.isEmpty && notifiesAutomatically {
      // A key path that reads no @Observed property is computed (or a plain stored property):
      // when it cannot be named, the registration is told by its types and value type.
      ObservationDiagnostics.reportKeyPathNeverNotifies(
        keyPath: keyPath, of: object, objectType: type(of: object), by: Observer.self,
        valueType: Value.self, site: site,
        reason: "reads no @Observed property and declares no keyPathsForValuesAffecting(_:); it "
          + "will only notify through willChangeValue(for:)/didChangeValue(for:). Mark what it "
          + "reads @Observed, or return false from automaticallyNotifiesObservers(for:) for it if "
          + "you notify it by hand.")
    }
    if notifiesAutomatically, let reached = dependencies.unobservedHopTargetType {
      reportUnobservedHop(to: reached, keyPath: keyPath, of: object, site: site)
    }
    // `self`, the metatype the caller passed, rather than the type's name: naming the generic
    // type here would look its metadata up at run time.
    let sentinel = self.init(
      observer: observer, root: object, keyPath: keyPath, options: options,
      dependencies: dependencies, delivery: delivery, currentValue: currentValue,
      handler: handler)
    let observation = sentinel.observation
    observation.attach(sentinel, to: objectRegistry, observerRegistry: observerRegistry)
    if sentinel.rediscovers {
      sentinel.replaceLinks(with: dependencies, root: object)
    }
    if options.contains(.initial), let currentValue {
      sentinel.deliverInitial(currentValue: currentValue.pointee)
    }
    return observation
  }

  /// Reports a chain that reaches `target` through a hop that no `@Observed` read explains and no
  /// manual change of its holder has shown (``Dependencies/unobservedHopTargetType``).
  private static func reportUnobservedHop(
    to reached: AnyObject.Type,
    keyPath: KeyPath<Object, Value>,
    of object: Object,
    site: RegistrationSite?
  ) {
    ObservationDiagnostics.report(
      .unobservedIntermediate,
      "\(site.openingOfCallName) \(keyPath)) of \(type(of: object)) by "
        + "\(Observer.self)\(site.diagnosticSuffix) reaches \(reached) through a hop that is not "
        + "observed (a stored property that is not @Observed, a member of a plain struct or "
        + "tuple, an element of a plain collection, or a computed property over one): replacing "
        + "what leads to the \(reached) is not seen, and the registration goes on observing the "
        + "\(reached) it reached until another change on the path is seen. Mark the hop "
        + "@Observed, or @ObservedWeak for a weak reference; if it is a constant (a let), nothing "
        + "is missed. A hop its class notifies by hand (willChangeValue(for:) and "
        + "didChangeValue(for:)) is followed from its first manual change."
    )
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
