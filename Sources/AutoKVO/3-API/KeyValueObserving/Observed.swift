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
/// Mutating a value through the property (`items.append(x)`, `point.x += 1`) is a get and a set:
/// it copies the value, O(n) an append to a collection, and observers receive one `.setting`
/// change. Choose ``ObservedInPlace`` for a collection that grows large or a struct mutated in
/// place: it mutates the value where it is stored, and pays for it with a run-time exclusivity
/// check on every access (Docs/Performance.md measures both). Or mutate through
/// ``KeyValueObservable/mutableArrayValue(for:)`` or ``KeyValueObservable/mutableSetValue(for:)``,
/// which mutate in place and notify the kind and indexes of each change.
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
  /// optimizer turns `object[keyPath: storageKeyPath]` into a direct field access; the getter and
  /// the setter are ``ObservedValueStorage``'s, shared with ``ObservedInPlace``. Every access to
  /// the storage is instantaneous (no call inside it): an access spanning a call makes the
  /// compiler keep a run-time exclusivity check on every access to the property. That is why there
  /// is no `_modify` here (Docs/Performance.md, "Tried and rejected"): ``ObservedInPlace`` has one.
  @inlinable
  public static subscript<EnclosingSelf: KeyValueObservable>(
    _enclosingInstance object: EnclosingSelf,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Observed<Value>>
  ) -> Value {
    @inline(__always)
    get { value(of: object, wrappedKeyPath, storageKeyPath) }
    @inline(__always)
    set { set(newValue, of: object, wrappedKeyPath, storageKeyPath) }
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
}

extension Observed: Sendable where Value: Sendable {}

extension Observed: ObservedValueStorage {}
