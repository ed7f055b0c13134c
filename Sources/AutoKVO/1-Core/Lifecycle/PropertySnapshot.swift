import _AutoKVOShims

/// The registrations an automatic set of one `@Observed` property concerns, frozen: what the
/// property's setter takes under its registry's lock and delivers to once the lock is released.
///
/// Immutable, and built for the property's ``ObservedProperty`` when a set first needs it, then
/// shared by every set until a registration the property concerns begins or ends. A set in
/// progress keeps the snapshot it took, so a registration made by one of its handlers is not
/// notified of it.
///
/// Its lifetime is its own count of holders, not Swift's reference count: the property, while the
/// snapshot is its current one, and each set delivering from it. A set takes a hold under the
/// registry's lock and gives it back when its delivery ends; whoever gives back the last hold
/// releases the snapshot. The count is an atomic add inlined into the set's path, which spares
/// every set a retain and a release of the object, two calls into the runtime. For the same
/// reason the set's path reaches the snapshot through `Unmanaged._withUnsafeGuaranteedRef`: the
/// hold keeps it alive, and a borrowed reference costs no retain.
// @unchecked Sendable: immutable but for `holders`, which is atomic, and published under the
// registry's lock; what it holds is a key path (an immutable object the standard library does not
// mark Sendable) and Sendable sentinels.
@usableFromInline
final class PropertySnapshot: @unchecked Sendable {
  /// How many hold the snapshot. Only accessed atomically, through `holdersWord`, the address of
  /// the first stored property: it must stay first. 32 bits, so that `needsNoticeBeforeChange`
  /// shares its word and the object stays small.
  private var holders: Int32 = 1
  /// Whether any of the registrations must be told before the change: otherwise no registration
  /// is.
  let needsNoticeBeforeChange: Bool
  /// The key path the property's changes are posted under (its ``ObservedProperty/keyPath``).
  let keyPath: AnyKeyPath
  /// In registration order: the registry's list filtered by the property, or, when every
  /// registration in it is concerned, a copy of it that shares its storage, tombstones (`nil`)
  /// included.
  let sentinels: InlineFirstArray<(any ObservedSentinel)?>

  private init(
    keyPath: AnyKeyPath,
    sentinels: InlineFirstArray<(any ObservedSentinel)?>,
    needsNoticeBeforeChange: Bool
  ) {
    self.needsNoticeBeforeChange = needsNoticeBeforeChange
    self.keyPath = keyPath
    self.sentinels = sentinels
    assert(
      withUnsafeMutablePointer(to: &holders) { $0 == holdersWord },
      "holders must be the first stored property of PropertySnapshot")
  }

  /// A new snapshot, with one hold: its property's.
  static func make(
    keyPath: AnyKeyPath,
    sentinels: InlineFirstArray<(any ObservedSentinel)?>,
    needsNoticeBeforeChange: Bool
  ) -> Unmanaged<PropertySnapshot> {
    .passRetained(
      PropertySnapshot(
        keyPath: keyPath, sentinels: sentinels, needsNoticeBeforeChange: needsNoticeBeforeChange))
  }

  /// The address of `holders`: a class lays out its stored properties in declaration order, right
  /// after the object header.
  private var holdersWord: UnsafeMutablePointer<Int32> {
    _getUnsafePointerToStoredProperties(self).assumingMemoryBound(to: Int32.self)
  }

  /// Takes one more hold, for a set. Called by a holder, the property, under its registry's lock.
  func addHolder() {
    autokvo_snapshot_add_holder(holdersWord)
  }

  /// Gives back one hold; the last one releases the snapshot. Released by a set, outside every
  /// lock, it may release the last reference to a sentinel; released by its property, under the
  /// registry's lock, never (see ``ObservedProperty``'s `SetTargets`).
  static func removeHolder(_ snapshot: Unmanaged<PropertySnapshot>) {
    let remaining = snapshot._withUnsafeGuaranteedRef {
      autokvo_snapshot_remove_holder($0.holdersWord)
    }
    if remaining == 0 { snapshot.release() }
  }

  /// Gives back a set's hold, once its delivery from the snapshot ended, outside every lock; see
  /// ``removeHolder(_:)``. `registryLock` is the lock of the registry whose set it was.
  ///
  /// When the hold is the last, the registry let the snapshot go during the set. The snapshot may
  /// share its storage with the registry's list, which the registry changes in place, under its
  /// lock, once the storage is unique again: after this release. The storage's reference count
  /// orders this set's reads before such a change, but ThreadSanitizer cannot see a reference count
  /// (the Swift runtime is not instrumented), and a registry in the middle of a change would take
  /// the release for its own. An empty pass through the lock first orders the reads before any
  /// change the registry makes from then on; a change under way when it comes ends first, and saw
  /// the storage still shared. Only on this path, which a set takes only when a registration began
  /// or ended during it.
  static func removeHolder(
    afterSetOf snapshot: Unmanaged<PropertySnapshot>,
    registryLock: Lock
  ) {
    let remaining = snapshot._withUnsafeGuaranteedRef {
      autokvo_snapshot_remove_holder($0.holdersWord)
    }
    if remaining == 0 {
      registryLock.withLock {}
      snapshot.release()
    }
  }
}

extension RegistryState {
  /// The current snapshot of the property at `position` of ``properties``, built if need be, with
  /// a hold taken for the caller, which gives it back with ``PropertySnapshot/removeHolder(_:)``;
  /// `nil` when a set of the property concerns no registration: none observes it, or its class
  /// does not notify it automatically. Called under the registry's lock.
  @inline(__always)
  mutating func propertySnapshot(
    ofPropertyAt position: Int
  ) -> Unmanaged<PropertySnapshot>? {
    switch setTargets(ofPropertyAt: position) {
    case .frozen(let snapshot):
      snapshot._withUnsafeGuaranteedRef { $0.addHolder() }
      return snapshot
    case .toBeBuilt:
      return buildPropertySnapshot(ofPropertyAt: position)
    case .notAutomatic, .unconcerned:
      return nil
    }
  }

  /// What a set of the property at `position` concerns, read where the record lies: through the
  /// list's subscript, whose coroutine the optimizer leaves out of line, the read would copy the
  /// record and retain its key path on every observed set. A storage holds a position only once
  /// the record is in the list, which only grows.
  @inline(__always)
  private func setTargets(ofPropertyAt position: Int) -> ObservedProperty.SetTargets {
    guard position != 0 else {
      return properties.head!.setTargets
    }
    return properties.tail[position - 1].setTargets
  }

  /// Builds the snapshot: the first set after the registrations changed. Out of line, so that the
  /// sets that find it built inline nothing of this.
  @inline(never)
  private mutating func buildPropertySnapshot(
    ofPropertyAt position: Int
  ) -> Unmanaged<PropertySnapshot>? {
    let incoming = incoming
    return properties[position].buildPropertySnapshot(
      from: incoming, everyRegistration: &everyRegistration)
  }
}
