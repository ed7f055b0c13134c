import _AutoKVOShims

extension ObservationRegistry {
  /// Performs a collection mutation of `keyPath` on `object`, notifying with `descriptor` (kind,
  /// indexes, elements) instead of the `.setting` change the property's setter would post.
  ///
  /// - Parameters:
  ///   - descriptor: The change as known before the mutation (kind, indexes, old elements).
  ///   - mutate: The mutation.
  ///   - completeDescriptor: Fills in what is known only after the mutation (new elements).
  func performCollectionChange(
    of object: AnyObject,
    _ descriptor: ChangeDescriptor,
    mutate: () -> Void,
    completeDescriptor: (inout ChangeDescriptor) -> Void
  ) {
    tellSwiftObservation(.willSet, of: object, keyPath: descriptor.keyPath)
    defer { tellSwiftObservation(.didSet, of: object, keyPath: descriptor.keyPath) }
    var inherited: InheritedNotifications?
    let notifications = willChange(of: object, descriptor, inherited: &inherited)
    let thread = autokvo_thread_identity()
    withState { $0.suppressedKeyPaths.append((thread, descriptor.keyPath)) }
    mutate()
    withState { state in
      if let index = state.suppressedKeyPaths.lastIndex(where: {
        $0.thread == thread && $0.keyPath.matches(descriptor.keyPath)
      }) {
        state.suppressedKeyPaths.remove(at: index)
      }
    }
    var completed = descriptor
    if !notifications.isEmpty || inherited != nil { completeDescriptor(&completed) }
    didChange(of: object, completed, notifications, inherited: inherited)
  }
}
