extension ObservationRegistry {
  /// The declaration's key path of the stored `@Observed` property `keyPath` names on `object`,
  /// this registry's object, once its ``ObservedProperty`` record exists; `nil` when `keyPath`
  /// names no property a recording has read.
  ///
  /// What lets a registration without `.initial` read nothing of the property's value. The record
  /// is found in this registry when a recording read the property on `object` before (it lasts as
  /// long as the object); otherwise it is made from the ``ObservedPropertyCatalog`` entry that a
  /// recording on another instance of the class left. Asks the class
  /// ``KeyValueObservable/automaticallyNotifiesObservers(for:)`` when it makes the record, as the
  /// getter does; compares key paths under the locks, where no user code runs.
  ///
  /// Only for an object whose class is the key path's root: an instance of a subclass may
  /// override the property, so its key path is read. Never for an `@ObservedWeak` property
  /// (``ObservedProperty/isReadByEachRegistration``), which the catalog does not list either.
  @usableFromInline
  func recordedPropertyKeyPath<Object: KeyValueObservable>(
    named keyPath: AnyKeyPath,
    of object: Object
  ) -> AnyKeyPath? {
    // A property's record is made only once the registry serves its object (`serves(_:)`): a
    // registry that serves none yet, a new object's, has none, and its lock is not taken.
    let isServing = isServingAnObject
    // First by identity: a key path literal in the property's own module is the instance the
    // getter reports, which the record keeps.
    if isServing, hasRecord(of: keyPath) {
      return keyPath
    }
    // Then the catalog, which finds the property by the key path's identity after its first
    // time, and the record by the index the property's storage holds: no key path is compared in
    // full, however many properties are observed.
    if let entry = ObservedPropertyCatalog.entry(named: keyPath, of: Object.self) {
      guard serves(object) else { return nil }
      if !entry.hasRecord(of: object, in: self) {
        entry.makeRecord(
          of: object, in: self,
          notifiesAutomatically: Object.automaticallyNotifiesObservers(for: entry.keyPath))
      }
      return entry.keyPath
    }
    // A record the catalog does not know: one made on this object for a property its class
    // inherits, which the catalog lists under the declaring class.
    guard isServing else { return nil }
    return recordedPropertyKeyPath(named: keyPath)
  }

  /// Whether this registry has a record whose key path is the instance `keyPath`, of a property
  /// that a registration need not read.
  private func hasRecord(of keyPath: AnyKeyPath) -> Bool {
    withState { state in
      guard let position = state.position(ofPropertyIdenticalTo: keyPath) else { return false }
      // Read only where such a record exists: reading one copies it, its key path retained.
      return !state.hasPropertyReadByEachRegistration
        || !state.properties[position].isReadByEachRegistration
    }
  }

  /// The declaration's key path of the property `keyPath` names, when its record is in this
  /// registry: found by comparing key paths in full.
  private func recordedPropertyKeyPath(named keyPath: AnyKeyPath) -> AnyKeyPath? {
    withState { state in
      state.properties.firstPosition {
        !$0.isReadByEachRegistration && $0.keyPath.matches(keyPath)
      }.map { state.properties[$0].keyPath }
    }
  }
}
