/// The handler of a one-way binding: writes a property of the target with the whole value of the
/// observed key path after each change, transformed, unless it is equal to the target's, and
/// never while the binding's own write is in progress on the same thread (``BindingWrites``).
///
/// Made once per binding; every form of `autoBind` registers it as an ordinary handler, so the
/// binding is the target's registration on the object, and ends as any registration does.
@usableFromInline
enum OneWayBinding {
  /// The options a binding registers with: the initial sync, and the value each set carries.
  @usableFromInline
  static var options: ObservationOptions { [.initial, .new] }

  /// Inlinable, so that it is specialized where `autoBind` is called: its key paths are then
  /// usually literals, which the optimizer turns into direct accesses of the properties.
  @inlinable
  static func handler<Target: AnyObject, Object: AnyObject, Source, Value>(
    writing keyPath: ReferenceWritableKeyPath<Target, Value>,
    from objectKeyPath: KeyPath<Object, Source>,
    transform: @escaping (Source) -> Value
  ) -> (Target, Object, KeyValueChange<Source>) -> Void {
    let writes = BindingWrites()
    let equality = RuntimeEquality<Value>()
    return { target, object, change in
      guard let thread = writes.beginWrite() else { return }
      defer { writes.endWrite(on: thread) }
      let value = transform(change.wholeValue(of: objectKeyPath, on: object))
      guard !equality.areKnownEqual(target[keyPath: keyPath], value) else { return }
      target[keyPath: keyPath] = value
    }
  }
}

extension KeyValueChange {
  /// The key path's whole value after this change: the new value a set carries, or, after a
  /// collection mutation (whose new value is the inserted elements only), the key path read again.
  @inlinable
  func wholeValue<Object>(of keyPath: KeyPath<Object, Value>, on object: Object) -> Value {
    if kind == .setting, let newValue { return newValue }
    return object[keyPath: keyPath]
  }
}

extension KeyValueObserver {
  /// Refuses a binding of `keyPath` of this object to the same key path of the same object, with
  /// a ``ObservationDiagnostic/Kind/bindingToItself`` diagnostic: returns the refused handle, or
  /// `nil` for a binding between two properties.
  @usableFromInline
  func refusalOfBindingToItself(
    _ keyPath: AnyKeyPath,
    of object: AnyObject,
    _ objectKeyPath: AnyKeyPath,
    call: String,
    site: RegistrationSite
  ) -> KeyValueObservation? {
    guard self === object, keyPath == objectKeyPath else { return nil }
    ObservationDiagnostics.report(
      .bindingToItself,
      "\(call)(\(keyPath), …, keyPath: \(objectKeyPath)) of \(Self.self)"
        + "\(Optional(site).diagnosticSuffix) binds a property of an object to itself: nothing was "
        + "registered, and the returned observation is already cancelled.")
    return .refused()
  }
}
