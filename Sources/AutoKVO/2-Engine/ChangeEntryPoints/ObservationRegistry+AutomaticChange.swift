import _AutoKVOShims

/// An automatic set of one property in progress, between
/// ``ObservationRegistry/willPerformAutomaticChange(of:property:)`` and
/// ``ObservationRegistry/didPerformAutomaticChange(of:_:values:)``: opaque to the `@Observed`
/// setter that carries it, and small enough to travel in registers.
@usableFromInline
struct SetInProgress {
  /// The registrations the set concerns, with a hold taken for the set (see
  /// ``PropertySnapshot``), which ``ObservationRegistry/didPerformAutomaticChange(of:_:values:)``
  /// gives back.
  let snapshot: Unmanaged<PropertySnapshot>
  /// What each registration answered when told before the set, by position; `nil` while all
  /// answered `nil`, as every registration on exactly the property does unless it sends prior
  /// calls. Retained, and released by ``ObservationRegistry/didPerformAutomaticChange(of:_:values:)``,
  /// which every set that began calls once: unmanaged, so that the usual set, which has none,
  /// makes no call to release them.
  let tokens: Unmanaged<BeforeChangeTokens>?
}

/// What the registrations told before an automatic set answered, by position (see
/// ``SetInProgress/tokens``).
@usableFromInline
final class BeforeChangeTokens {
  let answers: [Any?]

  init(_ answers: [Any?]) {
    self.answers = answers
  }
}

extension ObservationRegistry {
  // MARK: What an `@Observed` property's setter calls

  /// Begins an automatic set of an `@Observed` property: takes the registrations it concerns and
  /// tells those that must be told before it; `nil` when it concerns none. `property` reads the
  /// property's ``ObservedPropertyIndex`` from its storage: it runs under this registry's lock,
  /// inlined into the setter, so that the storage access is a direct, instantaneous field access.
  @inlinable
  @inline(__always)
  func willPerformAutomaticChange(
    of object: AnyObject,
    property: () -> ObservedPropertyIndex
  ) -> SetInProgress? {
    lock.lock()
    return willPerformAutomaticChangeUnlocking(of: object, property())
  }

  // MARK: Automatic changes

  /// ``willPerformAutomaticChange(of:property:)`` once the property is read: called with this
  /// registry's lock held, which it releases before telling any registration.
  ///
  /// The set concerns no registration when no registration has read the property, its class does
  /// not notify it automatically, this thread is mutating it through a collection proxy (which
  /// notifies on its own), or nobody observes it.
  @usableFromInline
  func willPerformAutomaticChangeUnlocking(
    of object: AnyObject,
    _ property: ObservedPropertyIndex
  ) -> SetInProgress? {
    let snapshot = property.position.flatMap {
      propertySnapshotWhileLocked(ofPropertyAt: $0)
    }
    lock.unlock()
    guard let snapshot else { return nil }
    guard snapshot._withUnsafeGuaranteedRef({ $0.needsNoticeBeforeChange }) else {
      return SetInProgress(snapshot: snapshot, tokens: nil)
    }
    let tokens = willSet(of: object, snapshot.takeUnretainedValue()).map {
      Unmanaged.passRetained(BeforeChangeTokens($0))
    }
    return SetInProgress(snapshot: snapshot, tokens: tokens)
  }

  /// The property's registrations, unless none is concerned or a collection proxy on this thread
  /// is mutating the property (the proxy notifies its own change).
  @inline(__always)
  private func propertySnapshotWhileLocked(
    ofPropertyAt position: Int
  ) -> Unmanaged<PropertySnapshot>? {
    let state = stateWhileLocked
    if !state.pointee.suppressedKeyPaths.isEmpty
      && isSuppressedOnThisThreadWhileLocked(state.pointee.properties[position].keyPath)
    {
      return nil
    }
    return state.pointee.propertySnapshot(ofPropertyAt: position)
  }

  /// Whether this thread is mutating the property at `keyPath` through a collection proxy.
  private func isSuppressedOnThisThreadWhileLocked(_ keyPath: AnyKeyPath) -> Bool {
    stateWhileLocked.pointee.isSuppressed(keyPath, on: autokvo_thread_identity())
  }

  /// Tells the registrations of `snapshot` that the property is about to change, and returns what
  /// each answered, by position: `nil` while all answered `nil`. A registration made by a handler
  /// from now on is not notified of this change: the snapshot is taken.
  private func willSet(of object: AnyObject, _ snapshot: PropertySnapshot) -> [Any?]? {
    var tokens: [Any?]?
    snapshot.sentinels.forEachElementAndPosition { sentinel, position in
      if let sentinel, let token = sentinel.willSet(of: object, snapshot) {
        if tokens == nil { tokens = Array(repeating: nil, count: snapshot.sentinels.count) }
        tokens![position] = token
      }
    }
    return tokens
  }

  /// Whether a registration that `change` concerns may read the value the property held before
  /// it: what an in-place mutation of an `@ObservedInPlace` property asks before it begins, to
  /// keep a copy of that value only then. One question to each registration, as its delivery is.
  @usableFromInline
  func readsOldValue(_ change: SetInProgress) -> Bool {
    change.snapshot._withUnsafeGuaranteedRef { snapshot in
      var reads = false
      snapshot.sentinels.forEachElement { sentinel in
        if let sentinel, sentinel.readsSetterOldValue { reads = true }
      }
      return reads
    }
  }

  /// Completes an automatic set begun with ``willPerformAutomaticChange(of:property:)``, lending
  /// each registration the values the setter replaced and stored. Called exactly once for each
  /// change that call returned: it gives back the change's hold on its snapshot and releases its
  /// tokens.
  @usableFromInline
  func didPerformAutomaticChange(
    of object: AnyObject,
    _ change: SetInProgress,
    values: SetterValues
  ) {
    if let tokens = change.tokens {
      return didPerformAutomaticChange(of: object, change.snapshot, tokens: tokens, values: values)
    }
    change.snapshot._withUnsafeGuaranteedRef { snapshot in
      didPerformAutomaticChange(of: object, snapshot, values: values)
    }
    PropertySnapshot.removeHolder(afterSetOf: change.snapshot, registryLock: lock)
  }

  /// Lends each registration of `snapshot` the values, for a set none of whose registrations was
  /// told before it.
  @inline(__always)
  private func didPerformAutomaticChange(
    of object: AnyObject,
    _ snapshot: PropertySnapshot,
    values: SetterValues
  ) {
    // The first registration is called through a `switch` on the snapshot's immutable storage,
    // which borrows it: `if let`, `if case`, a closure over the list, and this `switch` with its
    // other cases spelled out instead of `default` each copy it out first, a retain and a
    // release per set. The others are copied out of the list's array.
    switch snapshot.sentinels.head {
    case .some(.some(let first)): first.didSet(of: object, snapshot, values: values)
    default: break
    }
    for sentinel in snapshot.sentinels.tail {
      sentinel?.didSet(of: object, snapshot, values: values)
    }
  }

  /// ``didPerformAutomaticChange(of:_:values:)`` for a set whose registrations answered before it,
  /// handing each its answer.
  private func didPerformAutomaticChange(
    of object: AnyObject,
    _ snapshot: Unmanaged<PropertySnapshot>,
    tokens: Unmanaged<BeforeChangeTokens>,
    values: SetterValues
  ) {
    let tokens = tokens.takeRetainedValue().answers
    snapshot._withUnsafeGuaranteedRef { snapshot in
      snapshot.sentinels.forEachElementAndPosition { sentinel, position in
        sentinel?.didSet(of: object, snapshot, token: tokens[position], values: values)
      }
    }
    PropertySnapshot.removeHolder(afterSetOf: snapshot, registryLock: lock)
  }

}
