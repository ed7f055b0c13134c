/// What a chain through objects observed with Foundation's key-value observing needs of its
/// platform: where an object's registrations live, the value of one of its keys, and a
/// registration for that key's changes.
///
/// ``KeyValueObservingRouter`` provides it (an associated stand-in registry, key-value coding,
/// and Foundation's KVO with `.prior`, through its runtime's hooks). Compiled on every platform, so
/// that Linux tests drive chains with a notifier of their own.
protocol FoundationKeyObserving: AnyObject, Sendable {
  /// The registry that holds the registrations on `object`: its associated stand-in's. Called
  /// with a strong reference to `object`.
  func registry(of object: AnyObject) -> ObservationRegistry

  /// `object`'s value for the single key `key`, as key-value coding's `value(forKey:)` reads it.
  func value(of object: AnyObject, forKey key: String) -> Any?

  /// Registers `link` for the changes of `key` of `object`: before each change (Foundation's
  /// prior notification) the platform calls ``FoundationChainLink/objectWillChange()``, after it
  /// ``FoundationChainLink/objectDidChange()``, on the changing thread. Returns what undoes the
  /// registration; the link calls it with a strong reference to `object` when it ends first.
  func observe(
    _ object: AnyObject,
    key: String,
    for link: FoundationChainLink
  ) -> @Sendable (AnyObject) -> Void
}

/// Whether a value read along a key path is a collection, which a chain of one-key registrations
/// cannot go through (each element would need a registration of its own).
func isKeyValueCollection(_ value: Any?) -> Bool {
  guard let value else { return false }
  return value is any Collection && !(value is String)
}
