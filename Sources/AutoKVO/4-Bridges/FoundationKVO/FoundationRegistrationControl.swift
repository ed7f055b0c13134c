// What the Apple-only `stopObserving` and `activeObservations` forms for `NSObject`s do once they
// have read what only the Objective-C runtime knows (a key path's `@objc` string): the search of
// the object's stand-in registry, where every registration with Foundation's KVO on it lives.
// Compiled on every platform, so that the tests drive it with a runtime of their own.

extension ObservationRegistry {
  /// Ends every live registration with Foundation's KVO that the observer whose registry this is
  /// made on `keyPath` of `object` (any key path, when `nil`), and returns how many it ended.
  /// `store` holds the object's stand-in; an object without one has no such registration.
  func endFoundationRegistrations(
    on object: AnyObject,
    keyPath: String?,
    in store: some AssociationStore
  ) -> Int {
    guard let registry = ObservationStandIn.existing(for: object, in: store)?.observationRegistry
    else { return 0 }
    var ended = 0
    for observation in registry.incomingObservations {
      // The key path is immutable: compared once the registration's lock is released.
      guard let sentinel = observation.observedSentinel(ifMadeBy: self, on: registry),
        let registered = sentinel.foundationKeyPath, keyPath == nil || registered == keyPath,
        // Ended alone when one key path is named: of a registration of several key paths, only
        // the one named ends, as on an object with a registry.
        observation.end(.cancelled, alone: keyPath != nil)
      else { continue }
      ended += 1
    }
    return ended
  }
}
