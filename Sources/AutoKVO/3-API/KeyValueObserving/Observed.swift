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
      if registry.isObserved {
        performNotifyingSet(
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
  }

  /// A set of a property of an object that registrations observe: tells the registrations the set
  /// concerns, if any, that it is about to happen, stores `newValue` with `exchange`, which swaps
  /// it with the storage's value, and lends both values to the registrations. `replacedValue`
  /// holds `newValue` on entry and the replaced value on return, for the setter to release after
  /// it returns. The notifying branch of ``Observed``'s setter and of ``ObservedWeak``'s; inlined
  /// there, where `property` and `exchange` are direct, instantaneous storage accesses.
  @inlinable
  @inline(__always)
  static func performNotifyingSet(
    of object: AnyObject,
    _ registry: ObservationRegistry,
    _ newValue: consuming Value,
    replacing replacedValue: inout Value,
    property: () -> ObservedPropertyIndex,
    exchange: (inout Value) -> Void
  ) {
    if let change = registry.willPerformAutomaticChange(of: object, property: property) {
      exchange(&replacedValue)
      var lentValue = consume newValue
      didPerformAutomaticChange(
        registry, object, change, oldValue: &replacedValue, newValue: &lentValue)
    } else {
      exchange(&replacedValue)
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
    guard DependencyRecorder.isRecordingOnThisThread,
      let property = recordedProperty(
        of: object, wrappedKeyPath, storageKeyPath, isReadByEachRegistration: false)
    else { return }
    DependencyRecorder.noteAccessWhileRecording(
      object: object, keyPath: wrappedKeyPath, property: property,
      value: object[keyPath: storageKeyPath].storedValue)
  }
}

extension Observed: Sendable where Value: Sendable {}

extension Observed: ObservedStorage {}
