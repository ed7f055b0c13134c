// What the Apple-only public `autoObserve` forms for `NSObject`s do once they have read what only
// the Objective-C runtime knows (a key path's `@objc` string, whether a class is an `NSObject`):
// the checks, the diagnostics and the choice of engine. Compiled on every platform, so that the
// tests drive them with a router whose runtime is their own.

extension KeyValueObserver {
  /// Registers with Foundation's KVO through `router`: the work of the typed form for
  /// `NSObject`s. `keyPathString` is `keyPath`'s `@objc` string, `nil` when it has none: then
  /// nothing is registered, and a diagnostic says why.
  func observeWithFoundation<Runtime, Object: AnyObject, Value>(
    through router: KeyValueObservingRouter<Runtime>,
    _ object: Object,
    _ keyPath: KeyPath<Object, Value>,
    keyPathString: String?,
    _ options: ObservationOptions,
    _ delivery: HandlerDelivery,
    _ changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void,
    site: RegistrationSite? = nil
  ) -> KeyValueObservation {
    guard let keyPathString else {
      ObservationDiagnostics.report(
        .unsupportedKeyPath,
        "\(keyPath) is not an @objc key path, so Foundation's KVO cannot observe it and nothing "
          + "was registered\(site.diagnosticSuffix); mark the property @objc dynamic, or make \(Object.self) "
          + "KeyValueObservable and the property @Observed."
      )
      return .refused()
    }
    guard let observerRegistry = registryForObserving(in: router.runtime) else {
      return .refused()
    }
    return router.registerTyped(
      observer: self, observerRegistry: observerRegistry, object: object,
      keyPath: keyPathString, options: options, delivery: delivery, changeHandler: changeHandler)
  }

  /// Registers with AutoKVO's engine, with this object's stand-in in `store` as the engine's
  /// observer: the form for an observer that is not itself ``KeyValueObservable``.
  func observeWithEngineThroughStandIn<Object: KeyValueObservable, Value>(
    in store: some AssociationStore,
    _ object: Object,
    _ keyPath: KeyPath<Object, Value>,
    _ options: ObservationOptions,
    _ delivery: HandlerDelivery,
    _ changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void,
    site: RegistrationSite? = nil
  ) -> KeyValueObservation {
    // The stand-in is the engine's observer; it lives until this object's associated objects
    // are released. It is still alive while this object deallocates, so the weak load below
    // is what keeps a notification from reaching a deallocating observer. The engine runs the
    // closure where `delivery` says, so the load happens there too.
    ObservationStandIn.standIn(for: self, in: store).register(
      object, keyPath, options, delivery,
      { [weak self] _, object, change in
        guard let self else { return }
        changeHandler(self, object, change)
      }, site: site)
  }

  /// Foundation's KVO for a key path that has an `@objc` string (`keyPathString`), the engine
  /// through the stand-in otherwise.
  func observeChoosingEngine<Runtime, Object: KeyValueObservable, Value>(
    through router: KeyValueObservingRouter<Runtime>,
    _ object: Object,
    _ keyPath: KeyPath<Object, Value>,
    keyPathString: String?,
    _ options: ObservationOptions,
    _ delivery: HandlerDelivery,
    _ changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void,
    site: RegistrationSite? = nil
  ) -> KeyValueObservation {
    guard keyPathString != nil else {
      return observeWithEngineThroughStandIn(
        in: router.runtime, object, keyPath, options, delivery, changeHandler, site: site)
    }
    return observeWithFoundation(
      through: router, object, keyPath, keyPathString: keyPathString, options, delivery,
      changeHandler, site: site)
  }

  /// Registers a chain of `@Observed` properties (`head`), then `@objc` keys (`tail`): the work
  /// of the `autoObserve(_:keyPath:then:…)` forms. `evaluate` reads the whole path, `nil` when
  /// the head leads to no object. `tailString` is `tail`'s `@objc` string, and
  /// `intermediateIsObjectiveC` whether `Intermediate` is an `NSObject` class: without both,
  /// nothing is registered, and a diagnostic says why.
  func observeThroughEngineThenFoundation<Runtime, Object: KeyValueObservable, Intermediate, Value>(
    through router: KeyValueObservingRouter<Runtime>,
    _ object: Object,
    _ head: ChainHead<Object>,
    _ tail: KeyPath<Intermediate, Value>,
    tailString: String?,
    intermediateIsObjectiveC: Bool,
    evaluate: @escaping (Object) -> Value?,
    _ options: ObservationOptions,
    _ delivery: HandlerDelivery,
    _ changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void,
    site: RegistrationSite?
  ) -> KeyValueObservation {
    guard intermediateIsObjectiveC, let tailString else {
      ObservationDiagnostics.report(
        .unsupportedKeyPath,
        "\(tail), after \(head.name ?? "the head"), is not an @objc key path of an NSObject, so "
          + "Foundation's KVO cannot observe it and nothing was registered"
          + "\(site.diagnosticSuffix); mark its properties @objc dynamic, or, when "
          + "\(Intermediate.self) is KeyValueObservable, observe the whole path as one key path."
      )
      return .refused()
    }
    guard let observerRegistry = registryForObserving(in: router.runtime),
      let rootRegistry = object.stableObservationRegistry(toBeUsedTo: "observe", site: site)
    else { return .refused() }
    return FoundationChainSentinel.register(
      observer: self, observerRegistry: observerRegistry, root: object,
      rootRegistry: rootRegistry, head: head,
      keys: tailString.split(separator: ".", omittingEmptySubsequences: false).map(String.init),
      options: options, delivery: delivery, platform: router, evaluate: evaluate,
      handler: { observer, object, change in
        changeHandler(observer, object, change.flatteningAbsentLeaf())
      })
  }
}

extension KeyValueObservable {
  /// Foundation's KVO for a key path that has an `@objc` string (`keyPathString`), the engine
  /// with this object's own registry otherwise.
  func observeChoosingEngineWithOwnRegistry<Runtime, Object: KeyValueObservable, Value>(
    through router: KeyValueObservingRouter<Runtime>,
    _ object: Object,
    _ keyPath: KeyPath<Object, Value>,
    keyPathString: String?,
    _ options: ObservationOptions,
    _ delivery: HandlerDelivery,
    _ changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void,
    site: RegistrationSite? = nil
  ) -> KeyValueObservation {
    guard let keyPathString else {
      return register(object, keyPath, options, delivery, changeHandler, site: site)
    }
    guard let observerRegistry = stableObservationRegistry(toBeUsedTo: "observe with") else {
      return .refused()
    }
    return router.registerTyped(
      observer: self, observerRegistry: observerRegistry, object: object,
      keyPath: keyPathString, options: options, delivery: delivery,
      changeHandler: changeHandler)
  }
}
