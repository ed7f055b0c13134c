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
  /// override the property, so its key path is read.
  @usableFromInline
  func recordedPropertyKeyPath<Object: KeyValueObservable>(
    named keyPath: AnyKeyPath,
    of object: Object
  ) -> AnyKeyPath? {
    // A property's record is made only once the registry serves its object (`serves(_:)`): a
    // registry that serves none yet, a new object's, has none, and its lock is not taken.
    if isServingAnObject, let recorded = recordedPropertyKeyPath(named: keyPath) {
      return recorded
    }
    guard let entry = ObservedPropertyCatalog.entry(named: keyPath, of: Object.self),
      serves(object)
    else { return nil }
    entry.makeRecord(
      of: object, in: self,
      notifiesAutomatically: Object.automaticallyNotifiesObservers(for: entry.keyPath))
    return entry.keyPath
  }

  /// The declaration's key path of the property `keyPath` names, when its record is in this
  /// registry.
  private func recordedPropertyKeyPath(named keyPath: AnyKeyPath) -> AnyKeyPath? {
    withState { state in
      // The head first, without an iterator: most objects have one observed property.
      guard let head = state.properties.head?.keyPath else { return nil }
      if head.matches(keyPath) { return head }
      return state.properties.tail.first { $0.keyPath.matches(keyPath) }?.keyPath
    }
  }
}
