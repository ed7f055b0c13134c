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
/// `Observed` is `Sendable` when its `Value` is. It adds no synchronization of its own: the
/// enclosing class decides which threads may set the property.
@propertyWrapper
public struct Observed<Value> {
  @usableFromInline
  var storedValue: Value

  /// Creates the property with its initial value.
  public init(wrappedValue: Value) {
    storedValue = wrappedValue
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
  /// optimizer turns `object[keyPath: storageKeyPath]` into a direct field access, also inside the
  /// change closure. Left as a call (the subscript is too large for the inliner's default
  /// threshold), every access applied its key paths through the runtime: about 1,800
  /// instructions for a set on an unobserved object instead of about 360 (Docs/Performance.md).
  /// The two key paths are still instantiated on every access; only a macro could avoid that.
  @inlinable
  public static subscript<EnclosingSelf: KeyValueObservable>(
    _enclosingInstance object: EnclosingSelf,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Observed<Value>>
  ) -> Value {
    @inline(__always)
    get {
      DependencyRecorder.noteAccess(object: object, keyPath: wrappedKeyPath)
      return object[keyPath: storageKeyPath].storedValue
    }
    @inline(__always)
    set {
      // The replaced value is swapped out and released when this setter returns, outside the
      // write access to the storage and after observers were notified: its deinit may read this
      // property (a key-path chain through it re-evaluates when it dies), and it must not look
      // like a second change while this one is being delivered.
      var replacedValue = newValue
      let registry = object.observationRegistry
      guard registry.isObserved else {
        swap(&object[keyPath: storageKeyPath].storedValue, &replacedValue)
        return
      }
      registry.performAutomaticChange(of: object, keyPath: wrappedKeyPath) {
        swap(&object[keyPath: storageKeyPath].storedValue, &replacedValue)
      }
    }
  }
}

extension Observed: Sendable where Value: Sendable {}
