extension ObservationRegistry {
  /// Tells the registrations on the `@ObservedWeak` property at `property` of `object`, this
  /// registry's object, that it was zeroed: the object it referenced is being deallocated, on this
  /// thread. `values` holds the new value, `nil`, and no old value.
  ///
  /// Told after the fact, as no set is: nobody was told before, so there is no prior call, and
  /// Swift's Observation, which does not see a `weak` property's zeroing, is not told either. Told
  /// whatever the class answers to ``KeyValueObservable/automaticallyNotifiesObservers(for:)``:
  /// a class that notifies the property by hand cannot tell of a deallocation. `object` is held
  /// by the caller for the whole call.
  func weakPropertyDidZero(
    of object: AnyObject,
    property: ObservedPropertyIndex,
    values: SetterValues
  ) {
    guard let position = property.position else {
      preconditionFailure("a zeroing of a property that has no record")
    }
    let keyPath = withState { $0.properties[position].keyPath }
    // The registrations a manual change of the property would concern: found in the registry's
    // list, as a zeroing is rare, and without the snapshot, which is built for automatic sets. A
    // registration naming the property through a subclass is posted under its declaration's key
    // path, so that no inherited candidate is asked.
    var inheritedCandidates: [InheritedCandidate]?
    let sentinels = sentinels(triggeredBy: keyPath, inheritedCandidates: &inheritedCandidates)
    sentinels.forEachElement { sentinel in
      sentinel.weakPropertyDidZero(of: object, keyPath, values: values)
    }
  }
}
