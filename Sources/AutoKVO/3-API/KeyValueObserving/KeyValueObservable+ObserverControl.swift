extension KeyValueObservable {
  /// Ends every live registration this observer made on `keyPath` of `object`, and returns how
  /// many it ended.
  ///
  /// Idempotent: a second call ends nothing and returns 0. Every other registration, of this
  /// observer or of others, is untouched. FBKVOController's `unobserve(_:keyPath:)`.
  ///
  /// ```swift
  /// badge.stopObserving(person, keyPath: \.name)
  /// ```
  @discardableResult
  public func stopObserving<Object: KeyValueObservable, Value>(
    _ object: Object,
    keyPath: KeyPath<Object, Value>
  ) -> Int {
    stopObserving(
      object.observationRegistry,
      keyPath: Dependencies.postedKeyPath(of: keyPath, on: object))
  }

  /// Ends every live registration this observer made on any key path of `object`, and returns
  /// how many it ended. Idempotent. FBKVOController's `unobserve(_:)`.
  @discardableResult
  public func stopObserving(_ object: some KeyValueObservable) -> Int {
    stopObserving(object.observationRegistry, keyPath: nil)
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

  private func stopObserving(_ registry: ObservationRegistry, keyPath: AnyKeyPath?) -> Int {
    // Searched from the shorter side, this observer's registrations or the object's, so that it
    // costs the same whatever the number of the other side's. Matched by the identities of both
    // live registries (the caller holds both objects), never by an address that could belong to a
    // deallocated object.
    let observerRegistry = observationRegistry
    let candidates =
      observerRegistry.observingCount <= registry.observerCount
      ? observerRegistry.outgoingObservations : registry.incomingObservations
    let matching = candidates.filter {
      $0.isActive(observing: registry, by: observerRegistry, keyPath: keyPath)
    }
    // Ended alone: of a registration of several key paths, only the one named ends (a group
    // whose members cannot end alone ends whole).
    for observation in matching {
      observation.end(.cancelled, alone: keyPath != nil)
    }
    return matching.count
  }
}
