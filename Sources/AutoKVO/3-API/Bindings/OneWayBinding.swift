/// The handler of a one-way binding: writes a property of the target with the whole value of the
/// observed key path after each change, transformed, unless it is equal to the target's, and
/// never while the binding's own write is in progress on the same thread (``BindingWrites``).
///
/// Made once per binding; every form of `autoBind` registers it as an ordinary handler, so the
/// binding is the target's registration on the object, and ends as any registration does.
enum OneWayBinding {
  /// The options a binding registers with: the initial sync, and the value each set carries.
  static let options: ObservationOptions = [.initial, .new]

  static func handler<Target: AnyObject, Object: AnyObject, Source, Value>(
    writing keyPath: ReferenceWritableKeyPath<Target, Value>,
    from objectKeyPath: KeyPath<Object, Source>,
    transform: @escaping (Source) -> Value
  ) -> (Target, Object, KeyValueChange<Source>) -> Void {
    let writes = BindingWrites()
    let equality = RuntimeEquality<Value>()
    return { target, object, change in
      writes.writeUnlessEcho {
        let value = transform(change.wholeValue(of: objectKeyPath, on: object))
        guard !equality.areKnownEqual(target[keyPath: keyPath], value) else { return }
        target[keyPath: keyPath] = value
      }
    }
  }
}

extension KeyValueChange {
  /// The key path's whole value after this change: the new value a set carries, or, after a
  /// collection mutation (whose new value is the inserted elements only), the key path read again.
  func wholeValue<Object>(of keyPath: KeyPath<Object, Value>, on object: Object) -> Value {
    if kind == .setting, let newValue { return newValue }
    return object[keyPath: keyPath]
  }
}

extension KeyValueObservable {
  /// Refuses a binding of `keyPath` of this object to the same key path of the same object, with
  /// a ``ObservationDiagnostic/Kind/bindingToItself`` diagnostic. Returns whether it refused.
  func refusesBindingToItself<Object: AnyObject>(
    _ keyPath: AnyKeyPath,
    of object: Object,
    _ objectKeyPath: AnyKeyPath,
    call: String,
    site: RegistrationSite
  ) -> Bool {
    guard self === object, keyPath == objectKeyPath else { return false }
    ObservationDiagnostics.report(
      .bindingToItself,
      "\(call)(\(keyPath), …, keyPath: \(objectKeyPath)) of \(Self.self)"
        + "\(Optional(site).diagnosticSuffix) binds a property of an object to itself: nothing was "
        + "registered, and the returned observation is already cancelled.")
    return true
  }
}
