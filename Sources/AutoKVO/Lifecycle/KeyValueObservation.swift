/// A handle to one registration, which ends by itself exactly once when the observer or the
/// observed object is deallocated, or earlier when you call ``cancel()``.
///
/// A notification is never delivered to a deallocated or deallocating observer, and ending a
/// registration never crashes, whichever side goes first, on whichever thread. You may keep the
/// handle to cancel early, or drop it: dropping it does not end the observation.
///
/// ```swift
/// let observation = badge.autoObserve(person, keyPath: \.name) { badge, _, change in
///     badge.text = change.newValue ?? ""
/// }
/// observation.cancel()  // optional: the registration also ends when either side is freed
/// ```
public final class KeyValueObservation: @unchecked Sendable {  // mutable state guarded by `lock`
  private var lock: Lock { LifecycleLocks.lock(for: self) }

  // Guarded by `lock`.
  private var lifecycle = RegistrationLifecycle()

  // The two sentinels, linked without ownership: each is owned by its side's registry, which
  // holds it until this registration ends. `unowned(unsafe)` is valid while `lifecycle` is
  // active, and both are read only under `lock` while it is; a registry's deinit ends every
  // registration it holds, under this lock, before releasing its sentinels.
  private unowned(unsafe) var observedSentinel: ObservedSentinel?
  private unowned(unsafe) var observerSentinel: ObserverSentinel?

  init() {}

  /// Whether the registration has ended: by ``cancel()``, or because the observer or the
  /// observed object was deallocated.
  public var isCancelled: Bool {
    !isActive
  }

  /// Ends the registration now: no notification is delivered after this returns on the same
  /// thread.
  ///
  /// Idempotent, callable from any thread, including from inside a handler, and a no-op once
  /// the registration has ended for any reason.
  public func cancel() {
    end(.cancelled)
  }

  var isActive: Bool {
    lock.withLock { lifecycle.isActive }
  }

  /// Why the registration ended, or `nil` while it is active. For tests.
  var endReason: RegistrationLifecycle.EndReason? {
    lock.withLock {
      if case .ended(let reason) = lifecycle.state { return reason }
      return nil
    }
  }

  func attach(observed: ObservedSentinel, observer: ObserverSentinel) {
    lock.withLock {
      observedSentinel = observed
      observerSentinel = observer
    }
  }

  /// Ends the registration for `reason` if it is still active, detaching whichever sentinels
  /// the surviving registries still hold.
  func end(_ reason: RegistrationLifecycle.EndReason) {
    // The detached sentinels are returned out of the critical section so that they (and the
    // handler closure they own, with whatever it captured) are released after the lock is
    // dropped: a captured object's deinit is user code and may re-enter AutoKVO.
    _ = lock.withLock { () -> (ObservedSentinel?, ObserverSentinel?) in
      let action = lifecycle.end(reason)
      guard action != .none else { return (nil, nil) }
      guard let observed = observedSentinel, let observer = observerSentinel else {
        preconditionFailure("registration ended (\(reason)) before its sentinels were attached")
      }
      observedSentinel = nil
      observerSentinel = nil
      LifecycleCensus.teardownPerformed()
      switch action {
      case .detachBothSides:
        return (observed.registry.detach(observed), observer.registry.detach(observer))
      case .detachObservedSide:
        return (observed.registry.detach(observed), nil)
      case .detachObserverSide:
        return (nil, observer.registry.detach(observer))
      case .none:
        return (nil, nil)
      }
    }
  }
}
