extension KeyValueObservable {
  /// Observes `keyPath` of `object` until this observer or `object` is deallocated, whichever
  /// goes first, with no teardown code.
  ///
  /// The handler receives this observer, the observed object and the change; it runs
  /// synchronously on the thread that mutates `object`, with no AutoKVO lock held, so it may
  /// mutate, register, cancel or release anything. It is never called once either side has
  /// begun deallocating, and it is released when the registration ends.
  ///
  /// ```swift
  /// badge.autoObserve(person, keyPath: \.name, options: [.initial, .new]) { badge, person, change in
  ///     badge.text = change.newValue ?? ""
  /// }
  /// ```
  ///
  /// The key path may be a stored `@Observed` property or a computed property that reads
  /// `@Observed` properties of `object`: registration evaluates it once and records which
  /// properties it reads.
  ///
  /// - Parameters:
  ///   - object: The object to observe. It is not retained.
  ///   - keyPath: The property to observe.
  ///   - options: What to deliver; `[.old, .new]` by default. With `.initial`, the handler is
  ///     called once before this method returns.
  ///   - changeHandler: Called with the observer, the object and the change.
  /// - Returns: A handle you may keep to cancel early, or drop: dropping it does not end the
  ///   observation.
  @discardableResult
  public func autoObserve<Object: KeyValueObservable, Value>(
    _ object: Object,
    keyPath: KeyPath<Object, Value>,
    options: ObservationOptions = [.old, .new],
    changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
  ) -> KeyValueObservation {
    let (currentValue, accesses) = DependencyRecorder.record { object[keyPath: keyPath] }
    var triggers: [AnyKeyPath] = [keyPath]
    for access in accesses where access.object === object && !triggers.contains(access.keyPath) {
      triggers.append(access.keyPath)
    }

    let observation = KeyValueObservation()
    let observedSentinel = TypedObservedSentinel(
      registry: object.observationRegistry,
      observation: observation,
      observer: self,
      object: object,
      keyPath: keyPath,
      options: options,
      triggers: triggers,
      handler: changeHandler
    )
    let observerSentinel = ObserverSentinel(
      registry: observationRegistry,
      observation: observation
    )
    // Both objects are alive for the whole call (`self` and `object` are strong here), so both
    // registries are too; attaching before either registry holds a sentinel means the
    // registration can never be ended half-built.
    observation.attach(observed: observedSentinel, observer: observerSentinel)
    object.observationRegistry.attach(observedSentinel)
    observationRegistry.attach(observerSentinel)

    if options.contains(.initial) {
      observedSentinel.deliverInitial(currentValue: currentValue, object: object)
    }
    return observation
  }
}
