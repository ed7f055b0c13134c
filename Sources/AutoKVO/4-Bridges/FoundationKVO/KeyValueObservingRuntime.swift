/// What AutoKVO needs of the Objective-C runtime to observe objects with Foundation's key-value
/// observing: the hooks a ``KeyValueObservingRouter`` calls, and nothing else.
///
/// On Apple platforms `ObjectiveCKeyValueObserving` supplies them: `addObserver` and
/// `removeObserver` with the router's one `NSObject` observer, key-value coding's `value(forKey:)`
/// and `value(forKeyPath:)`, and the runtime's associated objects. Compiled on every platform, so
/// that the tests drive the real router with a runtime of their own, which reports changes when a
/// test says so.
///
/// Every hook is called with a strong reference to `object`, and with no AutoKVO lock held.
protocol KeyValueObservingRuntime: AssociationStore {
  /// The keys of the change dictionaries this runtime reports.
  associatedtype ChangeKey: KeyValueChangeDictionaryKey

  /// Registers the router's observer for `keyPath` of `object`, with Foundation's `options`
  /// (``ObservationOptions`` has their raw values) and `context`: from now on, the runtime calls
  /// ``KeyValueObservingRouter/route(_:context:)`` on the changing thread for every change, and,
  /// with `.initial`, once before this returns.
  func addObserver(
    to object: AnyObject, forKeyPath keyPath: String, options: ObservationOptions,
    context: UnsafeMutableRawPointer)

  /// Removes exactly the registration `addObserver` made with `keyPath` and `context`. Called
  /// once per registration, from the deallocation of `object` (its associated objects' release)
  /// or with a strong reference to it.
  func removeObserver(
    from object: AnyObject, forKeyPath keyPath: String, context: UnsafeMutableRawPointer)

  /// `object`'s value for the key path `keyPath` (one key, or several separated by dots), as
  /// key-value coding reads it.
  func value(of object: AnyObject, forKeyPath keyPath: String) -> Any?
}

/// Objects attached to other objects, released with them: the Objective-C runtime's associated
/// objects. What ties a registration's end to the deallocation of an object that has no
/// ``ObservationRegistry`` of its own.
///
/// The store releases an object's associated objects inside its deallocation, on the deallocating
/// thread, after its own `deinit` and its stored properties and before its memory is freed.
protocol AssociationStore: AnyObject, Sendable {
  /// The object associated with `object` under `key`, if any.
  func associatedObject(of object: AnyObject, key: UnsafeRawPointer) -> AnyObject?

  /// Associates `value` with `object` under `key`, retained, replacing (and releasing) the
  /// previous one; `nil` removes it.
  func setAssociatedObject(_ value: AnyObject?, of object: AnyObject, key: UnsafeRawPointer)
}

/// The keys of a Foundation change dictionary, by role: `NSKeyValueChangeKey` on Apple platforms,
/// whose constants have these names; a type of the tests' elsewhere.
protocol KeyValueChangeDictionaryKey: Hashable {
  /// The change's kind, a ``ChangeKind`` raw value.
  static var kindKey: Self { get }
  static var newKey: Self { get }
  static var oldKey: Self { get }
  /// The indexes of a collection change, an `IndexSet`.
  static var indexesKey: Self { get }
  /// `true` in the notification sent before a change (`.prior`).
  static var notificationIsPriorKey: Self { get }
}
