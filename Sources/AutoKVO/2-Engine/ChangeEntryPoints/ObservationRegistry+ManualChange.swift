import _AutoKVOShims

extension ObservationRegistry {
  /// Starts a manual change: reads old values and sends prior calls now, and keeps them for the
  /// matching ``didChangeValue(of:keyPath:calledKeyPath:completeDescriptor:)`` on the same thread.
  func willChangeValue(of object: AnyObject, _ descriptor: ChangeDescriptor) {
    tellSwiftObservation(.willSet, of: object, keyPath: descriptor.keyPath)
    var inherited: InheritedNotifications?
    let notifications = willChange(of: object, descriptor, inherited: &inherited)
    let pending = PendingChange(
      thread: autokvo_thread_identity(),
      change: descriptor,
      notifications: notifications,
      inheritedNotifications: inherited
    )
    let isFirstOfItsKeyPath = withState { state in
      state.pendingChanges.append(pending)
      guard !state.manuallyNotifiedKeyPaths.contains(where: { $0.matches(descriptor.keyPath) })
      else { return false }
      state.manuallyNotifiedKeyPaths.append(descriptor.keyPath)
      return true
    }
    if isFirstOfItsKeyPath {
      HandNotifiedKeyPathCatalog.add(descriptor.keyPath, for: type(of: object))
    }
  }

  /// Completes the innermost pending manual change of `keyPath` on this thread, or reports a
  /// diagnostic when there is none.
  ///
  /// - Parameters:
  ///   - calledKeyPath: The key path the caller wrote, which a diagnostic names; `keyPath` when
  ///     `nil`.
  ///   - completeDescriptor: Fills in what is known only after the change; it receives the
  ///     descriptor recorded at `will` and may report a diagnostic.
  func didChangeValue(
    of object: AnyObject,
    keyPath: AnyKeyPath,
    calledKeyPath: AnyKeyPath? = nil,
    completeDescriptor: (inout ChangeDescriptor) -> Void = { _ in }
  ) {
    let thread = autokvo_thread_identity()
    let pending = withState { state -> PendingChange? in
      guard
        let index = state.pendingChanges.lastIndex(where: {
          $0.thread == thread && $0.change.keyPath.matches(keyPath)
        })
      else { return nil }
      return state.pendingChanges.remove(at: index)
    }
    guard let pending else {
      ObservationDiagnostics.report(
        .unmatchedDidChange,
        "didChangeValue(for: \(describe(calledKeyPath ?? keyPath, posted: keyPath, on: object))) "
          + "has no matching "
          + "willChangeValue(for:) on this thread; no notification was sent."
      )
      return
    }
    var completed = pending.change
    if !pending.notifications.isEmpty || pending.inheritedNotifications != nil {
      completeDescriptor(&completed)
    }
    didChange(
      of: object, completed, pending.notifications, inherited: pending.inheritedNotifications)
    tellSwiftObservation(.didSet, of: object, keyPath: pending.change.keyPath)
  }

  // MARK: Told before and after: what manual and collection changes share

  /// The registrations a manual or collection change of `keyPath` concerns, in registration
  /// order. (An automatic set takes its property's own list instead.)
  ///
  /// `inheritedCandidates` receives, in registration order, the registrations that `keyPath` does
  /// not trigger but whose key path may name the same property through another class of its
  /// hierarchy (``Swift/AnyKeyPath/mayNameInheritedProperty(as:)``): for a property that is not
  /// `@Observed`, a superclass's `\Base.rows` and a registration's `\Derived.rows`. Whether they
  /// do takes reading the object, which the caller does outside the lock. The list is made when
  /// the first one is found: the usual change retains no empty array for it.
  ///
  /// Always inlined into its one caller, so that an observed proxy mutation or manual change
  /// does not pay for a call of its own.
  @inline(__always)
  func sentinels(
    triggeredBy keyPath: AnyKeyPath,
    inheritedCandidates: inout [InheritedCandidate]?
  ) -> InlineFirstArray<any ObservedSentinel> {
    withState { state in
      var triggered = InlineFirstArray<any ObservedSentinel>()
      state.incoming.forEachSentinel { sentinel in
        if sentinel.isTriggered(by: keyPath) {
          triggered.append(sentinel)
        } else if let registered = sentinel.primaryKeyPath,
          keyPath.mayNameInheritedProperty(as: registered)
        {
          inheritedCandidates =
            (inheritedCandidates ?? [])
            + [InheritedCandidate(sentinel: sentinel, keyPath: registered)]
        }
      }
      return triggered
    }
  }

  /// Tells the registrations `descriptor` concerns that it is about to happen, and returns each
  /// with its token. Those that name the changed property through another class of its hierarchy
  /// go to `inherited`, made when there is one: a separate list, so that the usual change pays
  /// nothing for them.
  func willChange(
    of object: AnyObject,
    _ descriptor: ChangeDescriptor,
    inherited: inout InheritedNotifications?
  ) -> PendingNotifications {
    guard !servesAnotherObject(than: object) else {
      reportChangeThroughSharedRegistry(of: object, descriptor.keyPath)
      return PendingNotifications()
    }
    // The snapshot is taken once: a registration made by a handler during this change is not
    // notified of it.
    var candidates: [InheritedCandidate]?
    let notifications = sentinels(
      triggeredBy: descriptor.keyPath, inheritedCandidates: &candidates
    ).mapElements { sentinel in
      PendingNotification(sentinel: sentinel, token: sentinel.willChange(of: object, descriptor))
    }
    if let candidates {
      inherited = willChange(of: object, descriptor, inheritedCandidates: candidates)
    }
    return notifications
  }

  func didChange(
    of object: AnyObject,
    _ descriptor: ChangeDescriptor,
    _ notifications: PendingNotifications,
    inherited: InheritedNotifications?
  ) {
    notifications.forEachElement { notification in
      notification.sentinel.didChange(of: object, descriptor, token: notification.token)
    }
    if let inherited { didChange(of: object, descriptor, inherited: inherited) }
  }

  /// Reports a manual or collection change of `object`, which stores this registry though the
  /// registry serves another object: its registrations are the other object's, so the change
  /// reaches none of them.
  private func reportChangeThroughSharedRegistry(of object: AnyObject, _ keyPath: AnyKeyPath) {
    ObservationDiagnostics.report(
      .sharedRegistry,
      "A change of \(describe(keyPath, posted: keyPath, on: object)) was not delivered: "
        + "\(type(of: object))'s observationRegistry serves another object. A registry serves "
        + "the one object that stores it: give each object its own."
    )
  }

  /// The name of the property a caller's key path names, for a diagnostic: by the caller's key
  /// path, or else by the key path its changes are posted under (an inherited `@Observed` property
  /// named through a subclass is named by its declaration, `Base.items`).
  func describe(_ called: AnyKeyPath, posted: AnyKeyPath, on object: AnyObject) -> String {
    PropertyNames.name(of: called, on: object) ?? PropertyNames.name(of: posted, on: object)
      ?? String(describing: called)
  }
}
