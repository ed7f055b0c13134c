extension KeyValueObservable {
  /// Ends every live registration this observer made on `keyPath` of `object`, and returns how
  /// many it ended.
  ///
  /// Idempotent: a second call ends nothing and returns 0. Every other registration, of this
  /// observer or of others, is untouched. FBKVOController's `unobserve(_:keyPath:)`. On Apple
  /// platforms, for an `NSObject` that is also ``KeyValueObservable``, it also ends the
  /// registrations made with Foundation's KVO on the key path's `@objc` string.
  ///
  /// ```swift
  /// badge.stopObserving(person, keyPath: \.name)
  /// ```
  @discardableResult
  public func stopObserving<Object: KeyValueObservable, Value>(
    _ object: Object,
    keyPath: KeyPath<Object, Value>
  ) -> Int {
    observationRegistry.endRegistrations(
      on: object.observationRegistry, keyPath: Dependencies.postedKeyPath(of: keyPath, on: object))
      + endFoundationRegistrations(on: object, keyPath: keyPath)
  }

  /// Ends every live registration this observer made on any key path of `object`, and returns
  /// how many it ended. Idempotent. FBKVOController's `unobserve(_:)`.
  @discardableResult
  public func stopObserving(_ object: some KeyValueObservable) -> Int {
    observationRegistry.endRegistrations(on: object.observationRegistry, keyPath: nil)
      + endFoundationRegistrations(on: object, keyPath: nil)
  }

  /// Ends every live registration this observer made, and returns how many it ended.
  /// Idempotent. FBKVOController's `unobserveAll()`.
  @discardableResult
  public func stopObservingAll() -> Int {
    let observations = observationRegistry.outgoingObservations
    for observation in observations {
      observation.cancel()
    }
    return observations.count
  }

  /// The live registrations this observer made, in registration order.
  ///
  /// Each handle's ``KeyValueObservation/cancel()`` ends one of them.
  public var activeObservations: [KeyValueObservation] {
    observationRegistry.outgoingObservations
  }

  /// Ends the registrations with Foundation's KVO this observer made on `keyPath` (any key path,
  /// when `nil`) of `object`, when it is also an `NSObject` (Apple platforms); 0 otherwise.
  private func endFoundationRegistrations(on object: AnyObject, keyPath: AnyKeyPath?) -> Int {
    #if canImport(ObjectiveC)
      if let foundationObject = object as? any FoundationObservedObject {
        return foundationObject.endFoundationRegistrations(
          by: observationRegistry, keyPath: keyPath)
      }
    #endif
    return 0
  }

  /// Ends every live registration this observer made on `keyPath` (any key path, when `nil`) of
  /// `object`, an object with no registry of its own (an `@Observable` model, an `NSObject`
  /// observed by Foundation's KVO), and returns how many this call ended. Only this observer's
  /// registrations can be searched: such an object lists none.
  func stopObservingObjectWithoutRegistry(_ object: AnyObject, keyPath: AnyKeyPath?) -> Int {
    let observerRegistry = observationRegistry
    var ended = 0
    for observation in observerRegistry.outgoingObservations {
      // Asked after the registration's lock is released: see `ObservedSentinel.observes`. Ended
      // alone when one key path is named, as on an object with a registry.
      guard let sentinel = observation.observedSentinel(ifMadeBy: observerRegistry),
        sentinel.observes(object, keyPath: keyPath),
        observation.end(.cancelled, alone: keyPath != nil)
      else { continue }
      ended += 1
    }
    return ended
  }
}

extension ObservationRegistry {
  /// Ends every live registration that the observer whose registry this is made on `keyPath`
  /// (any key path, when `nil`) of the object whose registry is `registry`, and returns how many
  /// it ended: what every `stopObserving` of an object with a registry does.
  func endRegistrations(on registry: ObservationRegistry, keyPath: AnyKeyPath?) -> Int {
    // Searched from the shorter side, this observer's registrations or the object's, so that it
    // costs the same whatever the number of the other side's. Matched by the identities of both
    // live registries (the caller holds both objects), never by an address that could belong to a
    // deallocated object.
    let candidates =
      observingCount <= registry.observerCount
      ? outgoingObservations : registry.incomingObservations
    let matching = candidates.filter {
      $0.isActive(observing: registry, by: self, keyPath: keyPath)
    }
    // Ended alone: of a registration of several key paths, only the one named ends (a group
    // whose members cannot end alone ends whole).
    for observation in matching {
      observation.end(.cancelled, alone: keyPath != nil)
    }
    return matching.count
  }
}
