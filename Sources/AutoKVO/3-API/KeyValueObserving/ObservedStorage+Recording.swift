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
    let property = registry.withPropertyLock { object[keyPath: storageKeyPath].property }
    guard property == .none else { return property }
    // A registry stored by two objects serves the first: the other's reads make no property in
    // it, so that its sets reach none of the first one's registrations.
    guard registry.serves(object) else { return nil }
    // Asked before taking the lock: the class's answer is its own code.
    let notifiesAutomatically = type(of: object).automaticallyNotifiesObservers(
      for: wrappedKeyPath)
    // Where the storage keeps the index, in bytes from the object's address: the same in every
    // instance of the class and its subclasses. The catalog knows it once a recording has read
    // the property on an instance of the class; the first time, it is found here, by a direct
    // field access (the key path is a literal here): `storageKeyPath` is never made into a key
    // path object, which the getter would pay for on every call.
    if !isReadByEachRegistration,
      let known = ObservedPropertyCatalog.indexOffset(of: wrappedKeyPath, in: EnclosingSelf.self)
    {
      return makeRecord(
        of: object, wrappedKeyPath, indexOffset: known, learned: false, in: registry,
        notifiesAutomatically: notifiesAutomatically,
        isReadByEachRegistration: isReadByEachRegistration)
    }
    // Taking the address is an `inout` access to the whole storage, which writes nothing but
    // which ThreadSanitizer counts as a write of it: once per class and property, in the process,
    // for a property the catalog lists; once per object for one it does not (SwiftConcurrency.md,
    // "Thread safety").
    let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    let indexOffset = registry.withPropertyLock {
      withUnsafeMutablePointer(to: &object[keyPath: storageKeyPath].property) {
        UnsafeRawPointer($0) - base
      }
    }
    return makeRecord(
      of: object, wrappedKeyPath, indexOffset: indexOffset, learned: !isReadByEachRegistration,
      in: registry, notifiesAutomatically: notifiesAutomatically,
      isReadByEachRegistration: isReadByEachRegistration)
  }

  /// Makes the property's ``ObservedProperty`` record on `object`, unless another thread made it
  /// meanwhile (the first one made stays), stores its index in the storage, whose index lies
  /// `indexOffset` bytes from `object`'s address, and returns it. When the getter has just
  /// `learned` that offset, tells the catalog, so that the other instances of the class make the
  /// record without reading the property, and without learning the offset again.
  ///
  /// Writes the index word alone, by its address, as the catalog does:
  /// `object[keyPath: storageKeyPath].property = …` would be a modifying access to all of `_x`,
  /// which ThreadSanitizer reports against another thread's plain read of the value beside the
  /// index, although the two touch different bytes. So the first registration on a property of an
  /// object races nothing that a read of the property does not. Out of line: it runs once per
  /// object and property.
  @usableFromInline
  @inline(never)
  static func makeRecord<EnclosingSelf: KeyValueObservable, Value>(
    of object: EnclosingSelf,
    _ wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
    indexOffset: Int,
    learned: Bool,
    in registry: ObservationRegistry,
    notifiesAutomatically: Bool,
    isReadByEachRegistration: Bool
  ) -> ObservedPropertyIndex {
    let entry = ObservedPropertyCatalog.Entry(keyPath: wrappedKeyPath, indexOffset: indexOffset)
    // The catalog lists the properties a recording read on instances of the class itself.
    if learned, type(of: object) == EnclosingSelf.self {
      ObservedPropertyCatalog.add(entry, for: EnclosingSelf.self)
    }
    return entry.makeRecord(
      of: object, in: registry, notifiesAutomatically: notifiesAutomatically,
      isReadByEachRegistration: isReadByEachRegistration)
  }
}
