extension ObservationRegistry {
  /// The declaration's key path of the `@Observed` property `keyPath` names on this registry's
  /// object, when a recording has read that property before (its ``ObservedProperty`` record lasts
  /// as long as the object); `nil` otherwise.
  ///
  /// What lets a registration without `.initial` read nothing of the property's value: its record
  /// says which property the key path names, so the key path is not evaluated. Compares key paths
  /// under the lock; runs no user code. The caller asks ``isServingAnObject`` first: a property's
  /// record is made only once the registry serves its object (``serves(_:)``), so a registry that
  /// serves none yet, a new object's, has none, and the lock is not taken.
  @usableFromInline
  func recordedPropertyKeyPath(named keyPath: AnyKeyPath) -> AnyKeyPath? {
    withState { state in
      // The head first, without an iterator: most objects have one observed property, and a
      // registration on an object none was read of yet pays for one load.
      guard let head = state.properties.head?.keyPath else { return nil }
      if head.matches(keyPath) { return head }
      return state.properties.tail.first { $0.keyPath.matches(keyPath) }?.keyPath
    }
  }
}
