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
  /// The key path may be a stored ``Observed`` property, a computed property that reads
  /// `@Observed` properties, or a chain through other observable objects (`\.dog?.name`):
  /// registration evaluates it and records which `@Observed` properties it reads, and, for
  /// anything but a stored property, does so again after every change. A key path that reads no
  /// `@Observed` property, declares no dependency and is not excluded from automatic
  /// notification is reported as an ``ObservationDiagnostic``: it could only ever notify through
  /// ``willChangeValue(for:)``.
  ///
  /// - Parameters:
  ///   - object: The object to observe. It is not retained.
  ///   - keyPath: The property to observe.
  /// ## Actors
  ///
  /// A handler registered from an actor-isolated context — a `@MainActor` view model — assumes
  /// that actor, so it only ever runs there: synchronously when the change happens on that actor
  /// (for the main actor: on the main thread), otherwise asynchronously on it (for the main actor,
  /// on the main queue, in order). A handler registered from nonisolated code runs synchronously
  /// on the mutating thread.
  ///
  /// - Parameters:
  ///   - object: The object to observe. It is not retained.
  ///   - keyPath: The property to observe.
  ///   - options: What to deliver; `[.old, .new]` by default. With `.initial`, the handler is
  ///     called once before this method returns.
  ///   - isolation: The actor the handler assumes; leave the default, the caller's isolation.
  ///   - changeHandler: Called with the observer, the object and the change.
  /// - Returns: A handle you may keep to cancel early, or drop: dropping it does not end the
  ///   observation.
  @discardableResult
  public func autoObserve<Object: KeyValueObservable, Value>(
    _ object: Object,
    keyPath: KeyPath<Object, Value>,
    options: ObservationOptions = [.old, .new],
    isolation: isolated (any Actor)? = #isolation,
    changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
  ) -> KeyValueObservation {
    let (currentValue, dependencies) = Dependencies.discover(root: object, keyPath: keyPath)
    if dependencies.isEmpty && type(of: object).automaticallyNotifiesObservers(for: keyPath) {
      ObservationDiagnostics.report(
        .keyPathNeverNotifies,
        "autoObserve(_:keyPath: \(keyPath)) on \(Object.self) reads no @Observed property and "
          + "declares no keyPathsForValuesAffecting(_:); it will only notify through "
          + "willChangeValue(for:)/didChangeValue(for:). Mark what it reads @Observed, or return "
          + "false from automaticallyNotifiesObservers(for:) for it if you notify it by hand."
      )
    }

    let observation = KeyValueObservation()
    let observedSentinel = TypedObservedSentinel(
      registry: object.observationRegistry,
      observation: observation,
      observer: self,
      root: object,
      keyPath: keyPath,
      options: options,
      dependencies: dependencies,
      isolation: isolation,
      handler: changeHandler
    )
    let observerSentinel = ObserverSentinel(
      registry: observationRegistry,
      observation: observation
    )
    // Both objects are alive for the whole call (`self` and `object` are strong here), so both
    // registries are too; linking the sentinels before either registry holds one means the
    // registration can never be ended half-built.
    observation.attachUnpublished(observed: observedSentinel, observer: observerSentinel)
    object.observationRegistry.attach(observedSentinel)
    observationRegistry.attach(observerSentinel)
    observedSentinel.installRelays(for: dependencies)

    if options.contains(.initial) {
      observedSentinel.deliverInitial(currentValue: currentValue, object: object)
    }
    return observation
  }

  /// Observes `keyPath` of every object in `objects`, as one ``autoObserve(_:keyPath:options:changeHandler:)``
  /// call per object: each registration ends by itself when its object or this observer is
  /// deallocated. KVO's `addObserver(_:toObjectsAt:forKeyPath:options:context:)`.
  ///
  /// ```swift
  /// board.autoObserve(team.members, keyPath: \.status) { board, member, change in
  ///     board.refresh(member)
  /// }
  /// ```
  ///
  /// - Returns: One handle per object, in the order of `objects`.
  @discardableResult
  public func autoObserve<Objects: Sequence, Value>(
    _ objects: Objects,
    keyPath: KeyPath<Objects.Element, Value>,
    options: ObservationOptions = [.old, .new],
    isolation: isolated (any Actor)? = #isolation,
    changeHandler: @escaping (Self, Objects.Element, KeyValueChange<Value>) -> Void
  ) -> [KeyValueObservation] where Objects.Element: KeyValueObservable {
    objects.map { object in
      autoObserve(
        object, keyPath: keyPath, options: options, isolation: isolation,
        changeHandler: changeHandler)
    }
  }
}
