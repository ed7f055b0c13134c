import _AutoKVOShims

/// What an `@Observed` property's accessors ask of its object's registry before any change
/// begins: whether anyone observes the object, the lock that guards the property's index, and
/// the property's record, made by its first read.
extension ObservationRegistry {
  /// Whether any registration observes this registry's object: the one load an unobserved set
  /// costs. Read without the lock (see `observedFlag`).
  @inlinable
  var isObserved: Bool {
    autokvo_observed_flag_load(observedFlag) != 0
  }

  /// Whether a change of this registry's object must be told to anyone: a registration observes
  /// the object, or Swift's Observation may be tracking it. What a collection proxy asks before
  /// it describes a change: relaxed loads only, no lock.
  @inlinable
  var isObservedOrTracked: Bool {
    isObserved || isTrackedBySwiftObservation
  }

  /// Runs `body`, which reads or writes the ``ObservedPropertyIndex`` of one of this object's
  /// `@Observed` properties, under this registry's lock. Inlined into the property's accessors,
  /// so that the storage access inside `body` stays a direct, instantaneous field access.
  @inlinable
  @inline(__always)
  func withPropertyLock<Result>(_ body: () -> Result) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return body()
  }

  /// A new ``ObservedProperty`` for the property declared at `keyPath`, kept by this registry for
  /// the life of its object, and its index, for the property's storage. Called under
  /// `withPropertyLock(_:)`, by the property's getter. (A registration attached before the record
  /// existed and triggered by the property joins its snapshot when the first set builds it.)
  /// `isReadByEachRegistration`: see ``ObservedProperty/isReadByEachRegistration``.
  @usableFromInline
  func makePropertyWhileLocked(
    keyPath: AnyKeyPath,
    notifiesAutomatically: Bool,
    isReadByEachRegistration: Bool
  ) -> ObservedPropertyIndex {
    ObservedPropertyIndex(
      position: stateWhileLocked.pointee.appendProperty(
        ObservedProperty(
          keyPath: keyPath, notifiesAutomatically: notifiesAutomatically,
          isReadByEachRegistration: isReadByEachRegistration)))
  }
}
