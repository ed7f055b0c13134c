import _AutoKVOShims

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
///
/// `KeyValueObservation` is `Sendable`: its state is guarded by a lock, so it may be cancelled
/// or queried from any thread or actor. It retains neither side of the registration, nor the
/// handler.
public final class KeyValueObservation: @unchecked Sendable {  // mutable state guarded by `lock`
  // The lifecycle protocol (`end(_:)`, the registries' deinits and detaches, the check before each
  // delivery) is modelled in Tests/LifecycleModel/lifecycle.pml and checked in every interleaving by
  // .ci/model-check: a change to the protocol changes the model in the same commit.

  // The lifecycle, as `RegistrationLifecycle.word`. Written under `lock`, once, when the
  // registration ends (or by `refused()`, before the handle is published); read under `lock`, or
  // without it by the "still active?" check before each delivery and by `isCancelled` (`isActive`).
  // Its atomic operations and their orders are AutoKVOProtocolAtomics.h's. It must stay the first
  // stored property: it is accessed only through `lifecycleWord`, the address of the first stored
  // property, because Swift offers no atomic stored property on the Apple deployment targets and a
  // separate allocation per registration would cost a heap block. The initial value is published
  // with the registration, by the registry lock taken to attach it.
  private var lifecycleStorage = RegistrationLifecycle.activeWord

  private var lock: Lock { LifecycleLocks.lock(for: self) }

  /// The address of `lifecycleStorage`: a class lays out its stored properties in declaration
  /// order, right after the object header.
  private var lifecycleWord: UnsafeMutablePointer<Int> {
    _getUnsafePointerToStoredProperties(self).assumingMemoryBound(to: Int.self)
  }

  // Read and written under `lock`, except by `refused()`, which writes before the handle is
  // published.
  private var lifecycle: RegistrationLifecycle {
    get { RegistrationLifecycle(word: autokvo_lifecycle_load_locked(lifecycleWord)) }
    set { autokvo_lifecycle_store_locked(lifecycleWord, newValue.word) }
  }

  // The registries of both sides, whose lists hold this registration's two sentinels: the
  // observed object's registry owns its `ObservedSentinel`, the observer's registry holds its
  // `ObserverSentinel`, and each finds its sentinel by this registration's identity. Reached
  // without a reference count (`RegistryReference`): a registry released here could be the last
  // reference and run its deinit under `lock` (see `RegistryStorage`). Both are valid while
  // `lifecycle` is active and used only under `lock` while it is; a registry's deinit ends every
  // registration it holds, under this lock, before it frees its storage. A chain link has no
  // observer side: its owning registration ends it.
  private var observedRegistry: RegistryReference?
  // The observer's registry, whether the registration belongs to a group (`RegistrationGroup`),
  // set under `lock` by `joinGroup()` and read under it by `end`, so that the end of a registration
  // without a group never looks for one, and whether it ended alone, set by `end` under `lock`.
  private var observerSide = FlaggedRegistryReference()
  private var observerRegistry: RegistryReference? {
    get { observerSide.reference }
    set { observerSide.reference = newValue }
  }

  init() {
    assert(
      withUnsafeMutablePointer(to: &lifecycleStorage) { $0 == lifecycleWord },
      "lifecycleStorage must be the first stored property of KeyValueObservation")
  }

  /// The handle of a registration that was refused (bad input, reported as a diagnostic): it is
  /// already ended, for `reason`, and nothing was attached anywhere.
  static func refused(
    endedFor reason: RegistrationLifecycle.EndReason = .cancelled
  ) -> KeyValueObservation {
    let observation = KeyValueObservation()
    _ = observation.lifecycle.end(reason)
    return observation
  }

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

  /// Whether the registration is still active; checked before every delivery, without a lock.
  ///
  /// The guarantee it serves: nothing is delivered after ``cancel()`` returned on the delivering
  /// thread, nor for a change that began after it returned anywhere. The ending store happens
  /// under the lifecycle lock before `cancel()` (or a registry's `deinit`) returns, so a check
  /// that comes after the return in program order, or after anything that synchronizes with it
  /// (the mutating thread learning of the cancellation through a lock, a queue or an actor),
  /// reads the ended state: an atomic word cannot be read older than a store that happens before
  /// the read. A delivery that passed its check on another thread just before the store may still
  /// run while `cancel()` returns — exactly as it could if the check took the lock, which would be
  /// released before the handler ran, and as with KVO's `removeObserver` racing a change on another
  /// thread.
  ///
  /// The load is an acquire, which pairs with the ending store's release, for ``isCancelled``: a
  /// caller that finds the registration ended also sees what the ending thread did before it
  /// ended it. The delivery check itself needs only coherence.
  var isActive: Bool {
    autokvo_lifecycle_load_unlocked(lifecycleWord) == RegistrationLifecycle.activeWord
  }

  /// Why the registration ended, or `nil` while it is active. For tests.
  var endReason: RegistrationLifecycle.EndReason? {
    lock.withLock {
      if case .ended(let reason) = lifecycle.state { return reason }
      return nil
    }
  }

  /// Attaches this new registration's sentinels: `sentinel`, its observed side, to
  /// `observedRegistry`, and an ``ObserverSentinel`` to `observerRegistry` (none for a chain link,
  /// which has no observer side). What every kind of registration does to begin, once.
  ///
  /// Both objects are alive for the whole call (the caller holds them), so both registries are
  /// too. The registration records both registries before either holds a sentinel, so it can never
  /// be ended half-built; attaching takes each registry's lock, which publishes those records to
  /// every other thread.
  func attach(
    _ sentinel: any ObservedSentinel,
    to observedRegistry: ObservationRegistry,
    observerRegistry: ObservationRegistry?
  ) {
    self.observedRegistry = observedRegistry.reference
    self.observerRegistry = observerRegistry?.reference
    observedRegistry.attach(sentinel)
    observerRegistry?.attach(ObserverSentinel(observation: self))
  }

  /// Records, if this registration is still active, that it belongs to a group, and returns
  /// whether it did. Under the lifecycle lock: an `end` that takes it later tells the group; one
  /// that took it before ended a registration with no group, which the caller tells the group of.
  func joinGroup() -> Bool {
    lock.withLock {
      guard lifecycle.isActive else { return false }
      observerSide.joinedGroup = true
      return true
    }
  }

  /// Runs `body` under this registration's lifecycle lock. `body` may take registry locks, but
  /// never another registration's lifecycle lock, and never calls user code.
  func withLock<Result>(_ body: () -> Result) -> Result {
    lock.withLock(body)
  }

  /// Whether this registration is active, made by the object that owns `observerRegistry`, and
  /// observes `keyPath` (any key path when `nil`) of the object that owns `registry`. Identities
  /// of live registries, never of a possibly freed object.
  func isActive(
    observing registry: ObservationRegistry,
    by observerRegistry: ObservationRegistry,
    keyPath: AnyKeyPath?
  ) -> Bool {
    let reference = registry.reference
    let observerReference = observerRegistry.reference
    return lock.withLock {
      guard lifecycle.isActive, observedRegistry == reference,
        self.observerRegistry == observerReference
      else { return false }
      guard let keyPath else { return true }
      return reference.primaryKeyPath(ofObservedSideOf: self)?.matches(keyPath) ?? false
    }
  }

  /// The observed-side sentinel of this registration, if it is active, was made by the observer
  /// whose registry is `observerRegistry`, and, when `registry` is given, is held by it: for
  /// `stopObserving` to ask it what it observes, once the lock is released (see
  /// ``ObservedSentinel/observes(_:keyPath:)``).
  func observedSentinel(
    ifMadeBy observerRegistry: ObservationRegistry,
    on registry: ObservationRegistry? = nil
  ) -> (any ObservedSentinel)? {
    let observerReference = observerRegistry.reference
    let reference = registry?.reference
    return lock.withLock {
      guard lifecycle.isActive, self.observerRegistry == observerReference,
        reference == nil || observedRegistry == reference
      else { return nil }
      return observedRegistry?.sentinel(ofObservedSideOf: self)
    }
  }

  /// Ends the registration for `reason` if it is still active, detaching whichever sentinels
  /// the surviving registries still hold. Returns whether this call ended it.
  ///
  /// A registration of a group (`RegistrationGroup`) then tells its group, outside the lock: the
  /// group ends its other registrations, unless `alone` (what `stopObserving(_:keyPath:)` asks)
  /// and the group lets its members end one by one, or `endedByGroup` (the group's own end is
  /// ending it).
  @discardableResult
  func end(
    _ reason: RegistrationLifecycle.EndReason,
    alone: Bool = false,
    endedByGroup: Bool = false
  ) -> Bool {
    // The detached sentinels are returned out of the critical section so that they (and the
    // handler closure they own, with whatever it captured) are released after the lock is
    // dropped: a captured object's deinit is user code and may re-enter AutoKVO. The observed one
    // is told it was detached first, there.
    var didEnd = false
    var hasNoSentinels = false
    var isGrouped = false
    var wasEndedAlone = false
    let (observedSide, observerSide) = lock.withLock {
      () -> ((any ObservedSentinel)?, ObserverSentinel?) in
      // Written back only when it changes: a registration's word is stored once, when it ends.
      var lifecycle = self.lifecycle
      let action = lifecycle.end(reason)
      isGrouped = self.observerSide.joinedGroup
      guard action != .none else {
        wasEndedAlone = self.observerSide.endedAlone
        return (nil, nil)
      }
      didEnd = true
      self.observerSide.endedAlone = alone
      self.lifecycle = lifecycle
      guard let observedRegistry else {
        // A group's handle, whose members have the sentinels; otherwise a broken invariant,
        // reported once the lock is released.
        hasNoSentinels = true
        return (nil, nil)
      }
      let observerRegistry = observerRegistry
      self.observedRegistry = nil
      self.observerRegistry = nil
      switch action {
      case .detachBothSides:
        return (
          observedRegistry.detachObservedSide(of: self),
          observerRegistry?.detachObserverSide(of: self)
        )
      case .detachObservedSide:
        return (observedRegistry.detachObservedSide(of: self), nil)
      case .detachObserverSide:
        return (nil, observerRegistry?.detachObserverSide(of: self))
      case .none:
        return (nil, nil)
      }
    }
    Self.tellDetached(observedSide)
    withExtendedLifetime(observerSide) {}
    guard didEnd else {
      // Already ended: its group's end may still be ending the others on another thread.
      if isGrouped, !endedByGroup {
        RegistrationGroup.registrationWasAlreadyEnded(self, endedAlone: wasEndedAlone)
      }
      return false
    }
    if isGrouped {
      RegistrationGroup.registrationDidEnd(self, alone: alone, endedByGroup: endedByGroup)
    }
    if hasNoSentinels, !isGrouped {
      preconditionFailure("registration ended (\(reason)) before its sentinels were attached")
    }
    return true
  }

  /// Tells `sentinel`, the observed side `end(_:)` detached, and releases it.
  private static func tellDetached(_ sentinel: consuming (any ObservedSentinel)?) {
    sentinel?.wasDetached()
  }
}
