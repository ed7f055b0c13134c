import _AutoKVOShims

extension ObservationRegistry {
  /// Performs `change`, an automatic set of `keyPath` on `object`, notifying the registrations it
  /// concerns before and after. Called by `@Observed` only when the object has observers.
  @usableFromInline
  func performAutomaticChange<Object: KeyValueObservable>(
    of object: Object,
    keyPath: AnyKeyPath,
    _ change: () -> Void
  ) {
    guard type(of: object).automaticallyNotifiesObservers(for: keyPath) else {
      change()
      return
    }
    let notifications = willChange(of: object, keyPath: keyPath)
    change()
    didChange(of: object, notifications)
  }

  /// Starts a manual change of `keyPath`: reads old values and sends prior calls now, and keeps
  /// them for the matching ``didChangeValue(of:keyPath:)`` on the same thread.
  func willChangeValue(of object: AnyObject, keyPath: AnyKeyPath) {
    let notifications = willChange(of: object, keyPath: keyPath)
    let pending = PendingChange(
      thread: autokvo_thread_identity(),
      keyPath: keyPath,
      notifications: notifications
    )
    withState { $0.pendingChanges.append(pending) }
  }

  /// Completes the innermost pending manual change of `keyPath` on this thread; reports a
  /// diagnostic when there is none.
  func didChangeValue(of object: AnyObject, keyPath: AnyKeyPath) {
    let thread = autokvo_thread_identity()
    let pending = withState { state -> PendingChange? in
      guard
        let index = state.pendingChanges.lastIndex(where: {
          $0.thread == thread && $0.keyPath == keyPath
        })
      else { return nil }
      return state.pendingChanges.remove(at: index)
    }
    guard let pending else {
      ObservationDiagnostics.report(
        .unmatchedDidChange,
        "didChangeValue(for: \(keyPath)) on \(type(of: object)) has no matching "
          + "willChangeValue(for:) on this thread; no notification was sent."
      )
      return
    }
    didChange(of: object, pending.notifications)
  }

  private func willChange(
    of object: AnyObject,
    keyPath: AnyKeyPath
  ) -> [(sentinel: ObservedSentinel, oldValue: Any?)] {
    // The snapshot is taken once: a registration made by a handler during this change is not
    // notified of it.
    sentinels(triggeredBy: keyPath).map { sentinel in
      (sentinel, sentinel.willChange(of: object))
    }
  }

  private func didChange(
    of object: AnyObject,
    _ notifications: [(sentinel: ObservedSentinel, oldValue: Any?)]
  ) {
    for (sentinel, oldValue) in notifications {
      sentinel.didChange(of: object, oldValue: oldValue)
    }
  }
}
