/// A property of a ``KeyValueObservable`` class that notifies its observers on every set.
///
/// As with KVO's automatic notification, setting a value equal to the current one still
/// notifies. Works in subclasses too.
///
/// ```swift
/// final class Person: KeyValueObservable {
///     let observationRegistry = ObservationRegistry()
///     @Observed var name = "Ann"
///     @Observed var age = 30
/// }
/// ```
///
/// A set on an object nobody observes skips all notification work after one load and branch;
/// Docs/Performance.md measures what it and every other access cost.
///
/// Mutating a collection through the property (`items.append(x)`) is a get and a set: it copies
/// the collection, O(n) an append, and observers receive one `.setting` change. In loops over
/// large collections append through ``KeyValueObservable/mutableArrayValue(for:)`` or
/// ``KeyValueObservable/mutableSetValue(for:)``, which mutate in place and notify the kind and
/// indexes of each change.
///
/// In a class that also conforms to Observation's `Observable`, the property is tracked by
/// `withObservationTracking`, `Observations` and SwiftUI, as an `@Observable` property is: see the
/// article <doc:ObservationAndSwiftUI>.
///
/// `Observed` is `Sendable` when its `Value` is. It adds no synchronization of its own: the
/// enclosing class decides which threads may set the property.
@propertyWrapper
public struct Observed<Value> {
  @usableFromInline
  var storedValue: Value

  /// The property's identity among its object's observed properties, the position of its
  /// ``ObservedProperty`` in the object's registry: `none` until a registration first reads the
  /// property, then set once, for the life of the object. Read and written only under the
  /// enclosing object's registry lock (``ObservationRegistry/withPropertyLock(_:)``), and written
  /// only by its address (see `makeRecord`), so that no write touches the value beside it.
  @usableFromInline
  var property: ObservedPropertyIndex

  /// Creates the property with its initial value.
  public init(wrappedValue: Value) {
    storedValue = wrappedValue
    property = .none
  }

  /// Unavailable: `@Observed` reaches its value through the enclosing object.
  @available(
    *, unavailable,
    message:
      "@Observed is only available on properties of classes that conform to KeyValueObservable"
  )
  public var wrappedValue: Value {
    get { fatalError("unreachable: @Observed is accessed through its enclosing instance") }
    set { fatalError("unreachable: @Observed is accessed through its enclosing instance") }
  }

  /// Reads and writes the property through its enclosing object, notifying on writes.
  ///
  /// Always inlined into the property's accessors, where both key paths are literals, so that the
  /// optimizer turns `object[keyPath: storageKeyPath]` into a direct field access. The setter
  /// names neither key path on any of its paths: the compiler instantiates a key-path literal at
  /// the accessor's entry whenever any path through the accessor uses it, so a setter that
  /// mentioned `wrappedKeyPath` even in its notifying branch paid for it on every set. The
  /// notifying branch finds the property's key path in its ``ObservedProperty`` instead, by the
  /// index the storage holds. Every
  /// access to the storage is instantaneous (no call inside it): an access spanning a call makes
  /// the compiler keep a run-time exclusivity check on every access to the property.
  @inlinable
  public static subscript<EnclosingSelf: KeyValueObservable>(
    _enclosingInstance object: EnclosingSelf,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Observed<Value>>
  ) -> Value {
    @inline(__always)
    get {
      // Nothing unless the class conforms to Observation's `Observable` too: the compiler chose
      // the witness at the conformance (see `KeyValueObservable+SwiftObservation.swift`).
      EnclosingSelf._swiftObservationAccess(object, keyPath: wrappedKeyPath)
      if DependencyRecorder.isAnyThreadRecording {
        noteAccess(object: object, wrappedKeyPath, storageKeyPath)
      }
      return object[keyPath: storageKeyPath].storedValue
    }
    @inline(__always)
    set {
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
      if registry.isObserved,
        let change = registry.willPerformAutomaticChange(
          of: object, property: { object[keyPath: storageKeyPath].property })
      {
        swap(&object[keyPath: storageKeyPath].storedValue, &replacedValue)
        var lentValue = consume newValue
        didPerformAutomaticChange(
          registry, object, change, oldValue: &replacedValue, newValue: &lentValue)
      } else {
        // Tells the optimizer that this branch is the fast path, so that it inlines the property's
        // setter where it is called (within its module); without a hint the setter is just above
        // its inlining threshold, and an unobserved set would pay for a call.
        _onFastPath()
        swap(&object[keyPath: storageKeyPath].storedValue, &replacedValue)
      }
    }
  }

  /// Lends the set's values to the registrations `change` holds, by address: the setter's own
  /// variables, the value it replaced and the value it stored, so that nothing is copied.
  /// Specialized for `Value` and inlined into the setter's notifying branch.
  ///
  /// The addresses are taken with `_withUnprotectedUnsafePointer`, the standard library's form that
  /// adds no stack protector. `withUnsafePointer` makes the compiler protect the whole function
  /// that takes an address, so it would have to be a call of its own to spare a set nobody
  /// observes, and every observed set would pay for that call. The `inout` form, because not every
  /// standard library this package builds against has the `borrowing` one: the macOS 13.3 SDK of
  /// the Darwin type-check lacks it.
  @inlinable
  @inline(__always)
  static func didPerformAutomaticChange(
    _ registry: ObservationRegistry,
    _ object: AnyObject,
    _ change: SetInProgress,
    oldValue: inout Value,
    newValue: inout Value
  ) {
    _withUnprotectedUnsafePointer(to: &oldValue) { oldValue in
      _withUnprotectedUnsafePointer(to: &newValue) { newValue in
        registry.didPerformAutomaticChange(
          of: object, change,
          values: SetterValues(oldValue: oldValue, newValue: newValue, valueType: Value.self))
      }
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
    _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Observed<Value>>
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
    guard DependencyRecorder.isRecordingOnThisThread else { return }
    let registry = object.observationRegistry
    var property = registry.withPropertyLock { object[keyPath: storageKeyPath].property }
    if property == .none {
      // A registry stored by two objects serves the first: the other's reads make no property in
      // it, so that its sets reach none of the first one's registrations.
      guard registry.serves(object) else { return }
      // Asked before taking the lock: the class's answer is its own code.
      let notifiesAutomatically = type(of: object).automaticallyNotifiesObservers(
        for: wrappedKeyPath)
      // Where the storage keeps the index, in bytes from the object's address: the same in every
      // instance of the class and its subclasses. The catalog knows it once a recording has read
      // the property on an instance of the class; the first time, it is found here, by a direct
      // field access (the key path is a literal here): `storageKeyPath` is never made into a key
      // path object, which the getter would pay for on every call.
      if let known = ObservedPropertyCatalog.indexOffset(of: wrappedKeyPath, in: EnclosingSelf.self)
      {
        property = makeRecord(
          of: object, wrappedKeyPath, indexOffset: known, learned: false, in: registry,
          notifiesAutomatically: notifiesAutomatically)
      } else {
        // Taking the address is an `inout` access to the whole storage, which writes nothing but
        // which ThreadSanitizer counts as a write of it: once per class and property, in the
        // process (SwiftConcurrency.md, "Thread safety").
        let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        let indexOffset = registry.withPropertyLock {
          withUnsafeMutablePointer(to: &object[keyPath: storageKeyPath].property) {
            UnsafeRawPointer($0) - base
          }
        }
        property = makeRecord(
          of: object, wrappedKeyPath, indexOffset: indexOffset, learned: true, in: registry,
          notifiesAutomatically: notifiesAutomatically)
      }
    }
    DependencyRecorder.noteAccessWhileRecording(
      object: object, keyPath: wrappedKeyPath, property: property)
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
  static func makeRecord<EnclosingSelf: KeyValueObservable>(
    of object: EnclosingSelf,
    _ wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
    indexOffset: Int,
    learned: Bool,
    in registry: ObservationRegistry,
    notifiesAutomatically: Bool
  ) -> ObservedPropertyIndex {
    let entry = ObservedPropertyCatalog.Entry(keyPath: wrappedKeyPath, indexOffset: indexOffset)
    // The catalog lists the properties a recording read on instances of the class itself.
    if learned, type(of: object) == EnclosingSelf.self {
      ObservedPropertyCatalog.add(entry, for: EnclosingSelf.self)
    }
    return entry.makeRecord(
      of: object, in: registry, notifiesAutomatically: notifiesAutomatically)
  }
}

extension Observed: Sendable where Value: Sendable {}

extension Observed: ObservedStorage {
  var observedProperty: ObservedPropertyIndex { property }
}
