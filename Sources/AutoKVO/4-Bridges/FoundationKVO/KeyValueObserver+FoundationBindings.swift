// What the Apple-only `autoBind` and `autoObserve(_:keyPaths:)` forms for an `NSObject` object do
// once they have read each key path's `@objc` string: the calls of `3-API/Bindings/`, made of the
// Foundation registration that `autoObserve` makes for an `NSObject`. Compiled on every platform,
// so that the tests drive them with a router whose runtime is their own.

extension KeyValueObserver {
  /// Keeps `keyPath` of this object equal to `objectKeyPath` of `object`, transformed, through
  /// Foundation's KVO (`router`): the work of the `NSObject`-object forms of `autoBind`.
  /// `keyPathString` is `objectKeyPath`'s `@objc` string, `nil` when it has none: then nothing is
  /// registered, and a diagnostic says why.
  func bindWithFoundation<Runtime, Object: AnyObject, Source, Value>(
    through router: KeyValueObservingRouter<Runtime>,
    _ keyPath: ReferenceWritableKeyPath<Self, Value>,
    _ object: Object,
    _ objectKeyPath: KeyPath<Object, Source>,
    keyPathString: String?,
    _ delivery: HandlerDelivery,
    site: RegistrationSite,
    transform: @escaping (Source) -> Value
  ) -> KeyValueObservation {
    if let refusal = refusalOfBindingToItself(
      keyPath, of: object, objectKeyPath, call: "autoBind", site: site)
    {
      return refusal
    }
    return observeWithFoundation(
      through: router, object, objectKeyPath, keyPathString: keyPathString, OneWayBinding.options,
      delivery, OneWayBinding.handler(writing: keyPath, from: objectKeyPath, transform: transform),
      site: site)
  }
}

extension KeyValueObservable {
  /// Observes `keyPaths` of `object` through Foundation's KVO (`router`), one registration per
  /// distinct key path grouped under the one handle this returns: the work of the `NSObject`-object
  /// form of `autoObserve(_:keyPaths:)`. `keyPathStrings` holds each key path's `@objc` string, in
  /// the order of `keyPaths`: a key path without one is reported, as `autoObserve` reports it, and
  /// left out, and the others are observed; when none has one, nothing is registered.
  func observeKeyPathsWithFoundation<Runtime, Object: AnyObject>(
    through router: KeyValueObservingRouter<Runtime>,
    _ object: Object,
    _ keyPaths: [PartialKeyPath<Object>],
    keyPathStrings: [String?],
    _ options: ObservationOptions,
    _ delivery: HandlerDelivery,
    _ changeHandler: @escaping (Self, Object, PartialKeyPath<Object>, AnyKeyValueChange) -> Void,
    site: RegistrationSite
  ) -> KeyValueObservation {
    var observable: [(keyPath: PartialKeyPath<Object>, string: String)] = []
    for (keyPath, string) in zip(keyPaths, keyPathStrings) {
      if let string {
        observable.append((keyPath, string))
      } else {
        // Reports the key path, and registers nothing.
        _ = reportWithoutRegistering(keyPath, of: object, through: router, site: site)
      }
    }
    guard !observable.isEmpty || keyPaths.isEmpty else { return .refused() }
    return registerGroupedKeyPaths(object, observable.map(\.keyPath), site: site) { keyPath in
      let string = observable.first { $0.keyPath === keyPath }?.string
      func register<Value>(as _: Value.Type) -> KeyValueObservation {
        observeWithFoundation(
          through: router, object, unsafeDowncast(keyPath, to: KeyPath<Object, Value>.self),
          keyPathString: string, options, delivery,
          { observer, object, change in
            changeHandler(observer, object, keyPath, AnyKeyValueChange(change))
          }, site: site)
      }
      return _openExistential(type(of: keyPath).valueType, do: register)
    }
  }

  /// What the Foundation registration of a key path with no `@objc` string does: reports it, and
  /// returns a handle that has already ended.
  private func reportWithoutRegistering<Runtime, Object: AnyObject>(
    _ keyPath: PartialKeyPath<Object>,
    of object: Object,
    through router: KeyValueObservingRouter<Runtime>,
    site: RegistrationSite
  ) -> KeyValueObservation {
    func report<Value>(as _: Value.Type) -> KeyValueObservation {
      observeWithFoundation(
        through: router, object, unsafeDowncast(keyPath, to: KeyPath<Object, Value>.self),
        keyPathString: nil, [], .synchronous, { (_: Self, _: Object, _: KeyValueChange<Value>) in },
        site: site)
    }
    return _openExistential(type(of: keyPath).valueType, do: report)
  }
}
