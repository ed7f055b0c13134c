/// A registration whose key path may name a changed property through another class of its
/// hierarchy (see ``ObservationRegistry/sentinels(triggeredBy:inheritedCandidates:)``).
struct InheritedCandidate {
  let sentinel: any ObservedSentinel
  /// The registration's key path, which it receives the change under if it names the property.
  let keyPath: AnyKeyPath
}

extension ObservationRegistry {
  /// Confirms each candidate outside the lock, by reading the object, and tells those that name
  /// the changed property under their own key path.
  func willChange(
    of object: AnyObject,
    _ descriptor: ChangeDescriptor,
    inheritedCandidates candidates: [InheritedCandidate]
  ) -> InheritedNotifications? {
    var notifications: InheritedNotifications = []
    for candidate in candidates
    where isSameProperty(descriptor.keyPath, candidate.keyPath, on: object) {
      let token = candidate.sentinel.willChange(
        of: object, descriptor.posted(under: candidate.keyPath))
      notifications.append(
        InheritedNotification(
          notification: PendingNotification(sentinel: candidate.sentinel, token: token),
          keyPath: candidate.keyPath))
    }
    return notifications.isEmpty ? nil : notifications
  }
  func didChange(
    of object: AnyObject,
    _ descriptor: ChangeDescriptor,
    inherited: InheritedNotifications
  ) {
    for inherited in inherited {
      inherited.notification.sentinel.didChange(
        of: object, descriptor.posted(under: inherited.keyPath),
        token: inherited.notification.token)
    }
  }

  /// Whether `registered` names the stored property `posted` names, through another class of its
  /// hierarchy; reports the change a registration may miss when that cannot be told.
  func isSameProperty(
    _ posted: AnyKeyPath, _ registered: AnyKeyPath, on object: AnyObject
  ) -> Bool {
    switch InheritedStoredProperty.identify(posted, registered, on: object) {
    case .same: return true
    case .different: return false
    case .ambiguous:
      reportAmbiguousProperty(posted: posted, registered: registered, on: object)
      return false
    }
  }

  /// Reports a manual change that a registration may or may not concern: its key path and the
  /// change's name a property of the same type through two classes of one hierarchy, and two
  /// stored properties hold the value both read (see ``InheritedStoredProperty``).
  func reportAmbiguousProperty(
    posted: AnyKeyPath, registered: AnyKeyPath, on object: AnyObject
  ) {
    ObservationDiagnostics.report(
      .keyPathNeverNotifies,
      "A change of \(describe(posted, posted: posted, on: object)) of \(type(of: object)) was not "
        + "delivered to a registration on \(describe(registered, posted: registered, on: object)): "
        + "a property that is not @Observed, named through another class of its hierarchy, is "
        + "told by its value, and several stored properties hold the same value now. Mark the "
        + "property @Observed, or notify and observe it through the same key path."
    )
  }
}
