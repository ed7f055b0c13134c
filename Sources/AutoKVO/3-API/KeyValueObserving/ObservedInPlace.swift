/// A property of a ``KeyValueObservable`` class that notifies its observers on every set and on
/// every mutation through it, which it makes where the value is stored, without copying it.
///
/// Choose it over ``Observed`` for a collection that grows large (`items.append(x)` in a loop) and
/// for a struct mutated in place (`items[i].isDone = true`, `count += 1`): through an ``Observed``
/// property each such mutation is a get and a set, which copies the value, O(n) for a collection;
/// through this one it is O(1). The price is a run-time exclusivity check on every access of the
/// property, which Docs/Performance.md measures; keep ``Observed`` for everything else.
///
/// ```swift
/// final class Table: KeyValueObservable {
///     let observationRegistry = ObservationRegistry()
///     @ObservedInPlace var rows: [Int] = []
/// }
///
/// let table = Table()
/// for row in 0..<100_000 { table.rows.append(row) }  // O(1) each
/// ```
///
/// Each mutation through the property notifies once, as a set of an ``Observed`` property does: a
/// change of kind ``ChangeKind/setting``, whose ``KeyValueChange/newValue`` is the value after the
/// mutation (shared, not copied), whose ``KeyValueChange/oldValue`` is the value before it, and
/// whose ``ObservationOptions/prior`` call comes before the mutation begins. Handlers run after the
/// mutation ended, and may read the property.
///
/// > Important: The default options of
/// ``KeyValueObservable/autoObserve(_:keyPath:options:isolation:file:line:changeHandler:)-8q4jl``
/// include ``ObservationOptions/old``, and an old value is a copy of the value the mutation then
/// changes: every mutation a registration with ``ObservationOptions/old`` observes copies the
/// collection, O(n). An observer that wants each mutation in constant time passes `[.new]`.
///
/// An in-place `append` reports a ``ChangeKind/setting`` change of the whole value: observe
/// through ``KeyValueObservable/mutableArrayValue(for:)`` or
/// ``KeyValueObservable/mutableSetValue(for:)`` to mutate and report kinds and indexes, which
/// work on this property as on an ``Observed`` one.
///
/// Everything else is ``Observed``'s: an assignment is a set, with the same notifications; manual
/// notification, ``KeyValueObservable/automaticallyNotifiesObservers(for:)``, dependencies and
/// key-path chains through it, the ``KeyValueObservable/changes(for:options:bufferingPolicy:)-43ndc``
/// sequence and, in a class that also conforms to Observation's `Observable`,
/// `withObservationTracking` and SwiftUI, to which a mutation is a `withMutation`
/// (<doc:ObservationAndSwiftUI>).
///
/// As with a stored property, the value must not be read during a mutation through the property
/// (from a closure the mutation calls, or a deinit it runs): that is an exclusivity violation.
///
/// `ObservedInPlace` is `Sendable` when its `Value` is. It adds no synchronization of its own: the
/// enclosing class decides which threads may set the property.
@propertyWrapper
public struct ObservedInPlace<Value> {
  @usableFromInline
  var storedValue: Value

  /// The property's identity among its object's observed properties (see ``Observed``'s). Read
  /// and written only under the enclosing object's registry lock.
  @usableFromInline
  var property: ObservedPropertyIndex

  /// Creates the property with its initial value.
  public init(wrappedValue: Value) {
    storedValue = wrappedValue
    property = .none
  }

  /// Unavailable: `@ObservedInPlace` reaches its value through the enclosing object.
  @available(
    *, unavailable,
    message:
      "@ObservedInPlace is only available on properties of classes that conform to KeyValueObservable"
  )
  public var wrappedValue: Value {
    get { fatalError("unreachable: @ObservedInPlace is accessed through its enclosing instance") }
    set { fatalError("unreachable: @ObservedInPlace is accessed through its enclosing instance") }
  }

  /// Reads, writes and mutates the property through its enclosing object, notifying on writes
  /// and mutations.
  ///
  /// The getter and the setter are ``Observed``'s (``ObservedValueStorage``). The `_modify` yields
  /// the storage itself, so that the mutation finds its value uniquely referenced; around it, the
  /// notifications of a set. The compiler keeps the storage's key path in the property's own
  /// `_modify`, which makes every access of the property check exclusivity at run time
  /// (Docs/Performance.md, "Tried and rejected"): the cost ``Observed`` does not pay.
  @inlinable
  public static subscript<EnclosingSelf: KeyValueObservable>(
    _enclosingInstance object: EnclosingSelf,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, ObservedInPlace<Value>>
  ) -> Value {
    @inline(__always)
    get { value(of: object, wrappedKeyPath, storageKeyPath) }
    @inline(__always)
    set { set(newValue, of: object, wrappedKeyPath, storageKeyPath) }
    @inline(__always)
    _modify {
      // As the `@Observable` macro's `_modify`: a read, then the set's `willSet` and `didSet`,
      // which Observation's `withMutation` is.
      EnclosingSelf._swiftObservationAccess(object, keyPath: wrappedKeyPath)
      EnclosingSelf._swiftObservationWillSet(object, keyPath: wrappedKeyPath)
      defer { EnclosingSelf._swiftObservationDidSet(object, keyPath: wrappedKeyPath) }
      let registry = object.observationRegistry
      // The registrations are told before the access begins (their prior calls read the
      // property), and after it ended, even when the mutation throws: a handler may read the
      // property. One `yield` only, so that the optimizer can inline this accessor into the
      // property's own.
      let change =
        registry.isObserved
        ? registry.willPerformAutomaticChange(
          of: object, property: { object[keyPath: storageKeyPath].property }) : nil
      // The old value is copied only for a registration that reads it, the one copy that is
      // inherent: the mutation then finds the value shared.
      var oldValue =
        if let change, registry.readsOldValue(change) {
          Optional(object[keyPath: storageKeyPath].storedValue)
        } else {
          Value?.none
        }
      defer {
        if let change {
          // A copy that shares the mutated value's storage, released after the delivery, so that
          // the next mutation finds the value uniquely referenced again.
          var newValue = object[keyPath: storageKeyPath].storedValue
          didMutate(registry, object, change, oldValue: &oldValue, newValue: &newValue)
        }
      }
      yield &object[keyPath: storageKeyPath].storedValue
    }
  }

  /// Lends the mutation's values to the registrations `change` holds, by address: the old value
  /// when a registration reads it (``Observed``'s delivery), otherwise the new value alone.
  @inlinable
  @inline(__always)
  static func didMutate(
    _ registry: ObservationRegistry,
    _ object: AnyObject,
    _ change: SetInProgress,
    oldValue: inout Value?,
    newValue: inout Value
  ) {
    if oldValue != nil {
      return Observed<Value>.didPerformAutomaticChange(
        registry, object, change, oldValue: &oldValue!, newValue: &newValue)
    }
    _withUnprotectedUnsafePointer(to: &newValue) { newValue in
      registry.didPerformAutomaticChange(
        of: object, change,
        values: SetterValues(
          oldValue: nil, newValue: UnsafeRawPointer(newValue), valueType: Value.self))
    }
  }
}

extension ObservedInPlace: Sendable where Value: Sendable {}

extension ObservedInPlace: ObservedValueStorage {}
