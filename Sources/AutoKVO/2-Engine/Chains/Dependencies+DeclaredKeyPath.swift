/// Which `@Observed` declaration a registration's key path names: the key path its changes are
/// posted under, the property's own or its superclass's.
extension Dependencies {
  /// The key path under which changes of `keyPath` of `object` are posted.
  ///
  /// That is `keyPath` itself, except for an ``Observed`` property declared in a superclass and
  /// named through a subclass: `\Derived.items` does not compare equal to `\Base.items`, the key
  /// path the property's setter, its collection proxies and its class's own manual notifications
  /// post under, so it is replaced by it. Evaluates `keyPath` once, recording what it reads.
  static func postedKeyPath<Object: KeyValueObservable, Value>(
    of keyPath: KeyPath<Object, Value>,
    on object: Object
  ) -> AnyKeyPath {
    declaredKeyPath(of: keyPath, on: object) ?? keyPath
  }

  /// The key path of the declaration of the `@Observed` property `keyPath` names, or `nil` when it
  /// names none; see ``declaredKeyPath(of:on:value:accesses:isInherited:)``. Evaluates `keyPath` once.
  static func declaredKeyPath<Object: KeyValueObservable, Value>(
    of keyPath: KeyPath<Object, Value>,
    on object: Object
  ) -> AnyKeyPath? {
    let (value, accesses) = DependencyRecorder.record { object[keyPath: keyPath] }
    var isInherited = false
    return withUnsafePointer(to: value) { value in
      declaredKeyPath(
        of: keyPath, on: object, value: value, accesses: accesses, isInherited: &isInherited)
    }
  }

  /// The key path of the declaration of the `@Observed` property `keyPath` names, found from one
  /// evaluation of it, or `nil` when it names none (a computed property, a chain, a property that
  /// is not `@Observed`). Only the key path is copied out of the recorded read: copying the whole
  /// read would cost a registration a retain and a release of everything it holds.
  ///
  /// It names the one `@Observed` property of `object` it read, and nothing else, when it is that
  /// property's own key path; or, for a property declared in a superclass, when the property is
  /// declared in another class than `keyPath`'s root and has its type, `keyPath` is writable, as a
  /// property wrapper's is, and both read the same value, bit for bit. A computed property of a
  /// subclass that transforms one inherited property fails the last tests (a get-only one always).
  ///
  /// `isInherited` is set when the declaration is found through a subclass key path
  /// (`\Derived.items` for `\Base.items`). An `inout` flag rather than a tuple: returned with the
  /// key path, it would cost the unspecialized caller retains of its own.
  static func declaredKeyPath<Object: KeyValueObservable, Value>(
    of keyPath: KeyPath<Object, Value>,
    on object: Object,
    value: UnsafePointer<Value>,
    accesses: [DependencyRecorder.Access],
    isInherited: inout Bool
  ) -> AnyKeyPath? {
    guard accesses.count == 1, accesses[0].object === object else { return nil }
    // The common case, a property of the key path's own class, is settled by one comparison; the
    // key paths' root and value types cost more to ask for.
    if accesses[0].keyPath.matches(keyPath) { return accesses[0].keyPath }
    let inherited = inheritedDeclaredKeyPath(
      of: keyPath, on: object, value: value.pointee, read: accesses[0].keyPath)
    isInherited = inherited != nil
    return inherited
  }

  /// The rest of ``declaredKeyPath(of:on:value:accesses:isInherited:)``: whether `read`, the key path of the
  /// one property the evaluation read, declares the property `keyPath` names through a subclass.
  /// A function of its own: its `as? Value` needs the metadata of `Value?`, which must not be
  /// looked up on every registration, before the common case's comparison.
  private static func inheritedDeclaredKeyPath<Object: KeyValueObservable, Value>(
    of keyPath: KeyPath<Object, Value>,
    on object: Object,
    value: Value,
    read: AnyKeyPath
  ) -> AnyKeyPath? {
    guard type(of: read).rootType != Object.self,
      type(of: read).valueType == Value.self,
      keyPath is ReferenceWritableKeyPath<Object, Value>,
      let declaredValue = object[keyPath: read] as? Value,
      Self.haveSameBits(value, declaredValue)
    else { return nil }
    return read
  }

  private static func haveSameBits<Value>(_ first: Value, _ second: Value) -> Bool {
    withUnsafeBytes(of: first) { first in
      withUnsafeBytes(of: second) { second in first.elementsEqual(second) }
    }
  }
}
