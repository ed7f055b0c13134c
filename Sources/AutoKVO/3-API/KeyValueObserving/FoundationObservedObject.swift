#if canImport(ObjectiveC)
  /// An observed object that Foundation's KVO can observe as well: an `NSObject`, whose
  /// conformance the Foundation bridge declares (`4-Bridges/FoundationKVO`).
  ///
  /// The portable `autoObserve` of a ``KeyValueObservable`` object asks it first, so that an
  /// `NSObject` that is also ``KeyValueObservable`` has its `@objc` key paths observed by
  /// Foundation's KVO and its `@Observed` ones by AutoKVO's engine, with no overload constrained
  /// to both; `stopObserving` asks it to end the former. This layer cannot name the bridge; the
  /// bridge conforms to this.
  @usableFromInline
  protocol FoundationObservedObject: AnyObject {
    /// Registers `keyPath` of `object` (this object) with Foundation's KVO when it is an `@objc`
    /// key path; `nil`, having registered nothing, when it is not.
    func registerWithFoundationIfObjectiveC<
      Observer: KeyValueObservable, Object: KeyValueObservable, Value
    >(
      by observer: Observer,
      of object: Object,
      _ keyPath: KeyPath<Object, Value>,
      _ options: ObservationOptions,
      _ delivery: HandlerDelivery,
      _ changeHandler: @escaping (Observer, Object, KeyValueChange<Value>) -> Void,
      site: RegistrationSite
    ) -> KeyValueObservation?

    /// Ends every live registration with Foundation's KVO that the observer whose registry is
    /// `observerRegistry` made on `keyPath` of this object (any key path, when `nil`), and
    /// returns how many it ended.
    func endFoundationRegistrations(
      by observerRegistry: ObservationRegistry,
      keyPath: AnyKeyPath?
    ) -> Int
  }
#endif
