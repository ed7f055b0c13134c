// What `@Observed` and `@ObservedInPlace` share: a storage that holds the value itself, and the
// getter and setter of their enclosing-instance subscripts, written once for both.

/// The storage of a property that holds its value where it is declared: ``Observed``'s and
/// ``ObservedInPlace``'s, whose getters and setters are the same code.
@usableFromInline
protocol ObservedValueStorage<Value>: ObservedStorage {
  associatedtype Value
  /// The property's value.
  var storedValue: Value { get set }
}

extension ObservedValueStorage {
  /// The getter of the property's enclosing-instance subscript.
  ///
  /// Always inlined into the property's accessors, where both key paths are literals, so that the
  /// optimizer turns `object[keyPath: storageKeyPath]` into a direct field access.
  @inlinable
  @inline(__always)
  static func value<EnclosingSelf: KeyValueObservable>(
    of object: EnclosingSelf,
    _ wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
    _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
  ) -> Value {
    // Nothing unless the class conforms to Observation's `Observable` too: the compiler chose
    // the witness at the conformance (see `KeyValueObservable+SwiftObservation.swift`).
    EnclosingSelf._swiftObservationAccess(object, keyPath: wrappedKeyPath)
    if DependencyRecorder.isAnyThreadRecording {
      noteAccess(object: object, wrappedKeyPath, storageKeyPath)
    }
    return object[keyPath: storageKeyPath].storedValue
  }

  /// The setter of the property's enclosing-instance subscript: stores `newValue`, notifying.
  ///
  /// Always inlined into the property's setter, where both key paths are literals. It names
  /// neither key path on any of its paths: the compiler instantiates a key-path literal at the
  /// accessor's entry whenever any path through the accessor uses it, so a setter that mentioned
  /// `wrappedKeyPath` even in its notifying branch paid for it on every set. The notifying branch
  /// finds the property's key path in its ``ObservedProperty`` instead, by the index the storage
  /// holds.
  @inlinable
  @inline(__always)
  static func set<EnclosingSelf: KeyValueObservable>(
    _ newValue: Value,
    of object: EnclosingSelf,
    _ wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
    _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
  ) {
    // Observation hears of the set first and last, around AutoKVO's own notifications, as an
    // `@Observable` property's `willSet` and `didSet`; for a class that does not conform to its
    // `Observable`, these are nothing, and the setter names no key path on any of its paths.
    EnclosingSelf._swiftObservationWillSet(object, keyPath: wrappedKeyPath)
    defer { EnclosingSelf._swiftObservationDidSet(object, keyPath: wrappedKeyPath) }
    // The replaced value is swapped out and released when this setter returns, outside the
    // write access to the storage and after observers were notified: its deinit may read this
    // property (a key-path chain through it re-evaluates when it dies), and it must not look
    // like a second change while this one is being delivered.
    var replacedValue = newValue
    let registry = object.observationRegistry
    // The storage holds the index of the property's `ObservedProperty` in the registry, a plain
    // number: nothing is retained to find the property's registrations.
    if registry.isObserved {
      Observed<Value>.performNotifyingSet(
        of: object, registry, newValue, replacing: &replacedValue,
        property: { object[keyPath: storageKeyPath].property },
        exchange: { swap(&object[keyPath: storageKeyPath].storedValue, &$0) })
    } else {
      // Tells the optimizer that this branch is the fast path, so that it inlines the property's
      // setter where it is called (within its module); without a hint the setter is just above
      // its inlining threshold, and an unobserved set would pay for a call.
      _onFastPath()
      swap(&object[keyPath: storageKeyPath].storedValue, &replacedValue)
    }
  }

  /// Tells the recorder of this thread, if any, that the property was read, and gives the
  /// property its ``ObservedProperty`` the first time a recording on this thread reads it; or
  /// performs the in-place mutation a collection proxy on this thread asked for.
  /// Inlined, so that its storage accesses are direct field accesses like the accessors' own.
  @inlinable
  @inline(__always)
  static func noteAccess<EnclosingSelf: KeyValueObservable>(
    object: EnclosingSelf,
    _ wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
    _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
  ) {
    if let mutation = InPlaceMutation.take(on: object, property: wrappedKeyPath, Value.self) {
      // Moved out, mutated while uniquely referenced, moved back: every storage access stays
      // instantaneous, and the mutation never copies the value.
      var value = InPlaceMutation.takePlaceholder(of: mutation, Value.self)
      swap(&object[keyPath: storageKeyPath].storedValue, &value)
      value = InPlaceMutation.perform(mutation, on: consume value)
      swap(&object[keyPath: storageKeyPath].storedValue, &value)
      return
    }
    guard DependencyRecorder.isRecordingOnThisThread,
      let property = recordedProperty(
        of: object, wrappedKeyPath, storageKeyPath, isReadByEachRegistration: false)
    else { return }
    DependencyRecorder.noteAccessWhileRecording(
      object: object, keyPath: wrappedKeyPath, property: property,
      value: object[keyPath: storageKeyPath].storedValue)
  }
}
