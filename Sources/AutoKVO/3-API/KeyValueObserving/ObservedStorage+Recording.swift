// What the getters of `@Observed` and `@ObservedWeak` share when a recording reads them: the
// property's record in its object's registry, made the first time, and its index in the storage.

extension ObservedStorage {
  /// The property's ``ObservedPropertyIndex``, made the first time a recording on this thread
  /// reads it; `nil` when the object's registry serves another object, whose registrations the
  /// property must not reach. Called by the getter's recording branch, on a thread that records.
  ///
  /// Inlined into the getter, where both key paths are literals, so that its storage accesses are
  /// direct field accesses like the accessors' own. `isReadByEachRegistration`: see
  /// ``ObservedProperty/isReadByEachRegistration``; such a property is not listed in the
  /// ``ObservedPropertyCatalog``, so that no registration makes its record without reading it.
  @inlinable
  @inline(__always)
  static func recordedProperty<EnclosingSelf: KeyValueObservable, Value>(
    of object: EnclosingSelf,
    _ wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
    _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>,
    isReadByEachRegistration: Bool
  ) -> ObservedPropertyIndex? {
    let registry = object.observationRegistry
    var property = registry.withPropertyLock { object[keyPath: storageKeyPath].property }
    guard property == .none else { return property }
    // A registry stored by two objects serves the first: the other's reads make no property in
    // it, so that its sets reach none of the first one's registrations.
    guard registry.serves(object) else { return nil }
    // Asked before taking the lock: the class's answer is its own code.
    let notifiesAutomatically = type(of: object).automaticallyNotifiesObservers(
      for: wrappedKeyPath)
    property = registry.withPropertyLock {
      // Another thread may have made it meanwhile; the first one made stays.
      if object[keyPath: storageKeyPath].property == .none {
        object[keyPath: storageKeyPath].property = registry.makePropertyWhileLocked(
          keyPath: wrappedKeyPath, notifiesAutomatically: notifiesAutomatically,
          isReadByEachRegistration: isReadByEachRegistration)
      }
      return object[keyPath: storageKeyPath].property
    }
    // The other instances of the class can now make the record without reading the property:
    // the catalog keeps where the storage's index lies. Its address is taken by a direct field
    // access here, where the key path is a literal, and through the key-path runtime's address
    // projection in a debug build; neither reads the value.
    if !isReadByEachRegistration, type(of: object) == EnclosingSelf.self,
      !ObservedPropertyCatalog.contains(wrappedKeyPath, of: EnclosingSelf.self)
    {
      let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
      let indexOffset = registry.withPropertyLock {
        withUnsafeMutablePointer(to: &object[keyPath: storageKeyPath].property) {
          UnsafeRawPointer($0) - base
        }
      }
      ObservedPropertyCatalog.add(
        ObservedPropertyCatalog.Entry(keyPath: wrappedKeyPath, indexOffset: indexOffset),
        for: EnclosingSelf.self)
    }
    return property
  }
}
