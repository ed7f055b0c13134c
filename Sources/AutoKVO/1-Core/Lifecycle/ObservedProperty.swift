import _AutoKVOShims

/// Which of its object's ``ObservedProperty`` records an `@Observed` property's storage is: what
/// the storage holds, so that a set finds its property's registrations with one load and no key
/// path.
///
/// `none` until a registration first reads the property, then the record's position in its
/// registry's list, for the life of the object: the list only grows. Read and written only under
/// the object's registry lock (``ObservationRegistry/withPropertyLock(_:)``). 32 bits, so that a
/// small property's value and its index share one word of storage.
@usableFromInline
struct ObservedPropertyIndex: Equatable, Sendable {
  /// The position in the registry's list plus one; 0 for `none`.
  @usableFromInline
  let rawValue: UInt32

  @usableFromInline
  init(rawValue: UInt32) {
    self.rawValue = rawValue
  }

  /// No registration has read the property yet.
  @inlinable
  static var none: ObservedPropertyIndex { ObservedPropertyIndex(rawValue: 0) }

  /// The record at `position` of the registry's list.
  init(position: Int) {
    guard let rawValue = UInt32(exactly: position + 1) else {
      preconditionFailure("more observed properties on one object than UInt32 counts")
    }
    self.rawValue = rawValue
  }

  /// The record's position in the registry's list; `nil` for `none`.
  var position: Int? {
    rawValue == 0 ? nil : Int(rawValue) - 1
  }
}

/// One ``Observed`` property of one object, as the engine knows it once a registration has read
/// it: the key path it posts its changes under, and the registrations its sets concern, frozen in
/// an ``PropertySnapshot``, so that a set finds everything it needs there, with no key path
/// and no search.
///
/// A record in its object's registry state (`RegistryState/properties`), not an object of its
/// own: made under the registry's lock by the first recording that reads the property (a
/// registration evaluating its key path, or a re-evaluation after a change), kept for the life of
/// the object, and found by the ``ObservedPropertyIndex`` the property's storage holds. It keeps no
/// list of its own: the snapshot is built from the registry's list of registrations, filtered by
/// ``ObservedSentinel/isTriggered(by:)``, by the first set after that list changed. An object's
/// first observed property thus costs no heap block. Guarded by the registry's lock.
struct ObservedProperty {
  /// The key path of the property's declaration (`\Base.items` for a property declared in `Base`,
  /// whichever subclass instance it belongs to): what the property's changes are posted under.
  let keyPath: AnyKeyPath

  /// Whether each registration reads the property, though its record exists: an `@ObservedWeak`
  /// property attaches what tells of its referent's deallocation when a registration reads it.
  let isReadByEachRegistration: Bool

  /// What a set of the property concerns.
  private(set) var setTargets: SetTargets

  /// Which registrations the property's sets concern, kept as they join and leave
  /// (``RegistryState/registrationWillJoin(_:)``), so that its snapshot is built without a look
  /// at the others; `unknown` until the first snapshot filters the registry's list.
  var concerned = PropertyRegistrations.unknown

  /// What a set of the property concerns. It holds no reference count, so that a set copies it
  /// out of the record for nothing.
  enum SetTargets {
    /// The class answered `false` to ``KeyValueObservable/automaticallyNotifiesObservers(for:)``:
    /// no set concerns anyone, whatever registrations come.
    case notAutomatic
    /// Not known since the registrations changed: the next set builds the snapshot.
    case toBeBuilt
    /// No registration is triggered by the property.
    case unconcerned
    /// The registrations, frozen, with the record's hold on the snapshot (see
    /// ``PropertySnapshot``). Dropping it under the registry's lock never releases the
    /// last reference to a sentinel: the registry's list holds each one the snapshot holds, and
    /// the caller of a removal from that list holds the one removed. A set in progress may hold
    /// the snapshot longer; its release then happens outside every lock.
    case frozen(Unmanaged<PropertySnapshot>)

    /// The snapshot, when the registrations are frozen in one.
    var snapshot: Unmanaged<PropertySnapshot>? {
      guard case .frozen(let snapshot) = self else { return nil }
      return snapshot
    }
  }

  /// A record for the property declared at `keyPath`. `notifiesAutomatically` is what the object's
  /// class answered to ``KeyValueObservable/automaticallyNotifiesObservers(for:)``, asked once per
  /// property and object, as KVO asks once per class and key when the first observer arrives.
  init(keyPath: AnyKeyPath, notifiesAutomatically: Bool, isReadByEachRegistration: Bool = false) {
    self.keyPath = keyPath
    self.isReadByEachRegistration = isReadByEachRegistration
    setTargets = notifiesAutomatically ? .toBeBuilt : .notAutomatic
  }

  /// Builds the snapshot and returns it with a hold taken for the caller (see
  /// ``RegistryState/propertySnapshot(ofPropertyAt:)``); `nil` when no registration is triggered
  /// by the property. From what ``concerned`` knows, sharing that list's storage; when it knows
  /// nothing, by filtering `incoming`, the registry's list, which tells it.
  mutating func buildPropertySnapshot(
    from incoming: IncomingSentinels, everyRegistration: inout EveryRegistrationCount?
  ) -> Unmanaged<PropertySnapshot>? {
    let sentinels: InlineFirstArray<(any ObservedSentinel)?>
    let needingNotice: Int
    switch concerned {
    case .everyRegistration:
      guard let everyRegistration else {
        preconditionFailure("a property concerned by every registration, uncounted")
      }
      sentinels = incoming.isEmpty ? InlineFirstArray() : incoming.slots
      needingNotice = everyRegistration.needingNotice
    case .only(let list):
      sentinels = list.sentinels.isEmpty ? InlineFirstArray() : list.sentinels.slots
      needingNotice = list.needingNotice
    case .unknown:
      (sentinels, needingNotice) = filter(incoming)
      if case .everyRegistration = concerned {
        everyRegistration = EveryRegistrationCount(
          records: (everyRegistration?.records ?? 0) + 1, needingNotice: needingNotice)
      }
    }
    guard !sentinels.isEmpty else {
      setTargets = .unconcerned
      return nil
    }
    let snapshot = PropertySnapshot.make(
      keyPath: keyPath, sentinels: sentinels, needsNoticeBeforeChange: needingNotice > 0)
    setTargets = .frozen(snapshot)
    snapshot._withUnsafeGuaranteedRef { $0.addHolder() }
    return snapshot
  }

  /// The registrations of `incoming` the property triggers, and how many must be told before a
  /// set; records which they are in ``concerned``. Empty when none is triggered.
  private mutating func filter(
    _ incoming: IncomingSentinels
  ) -> (InlineFirstArray<(any ObservedSentinel)?>, Int) {
    var needingNotice = 0
    var concernedCount = 0
    let keyPath = keyPath
    // When every registration is triggered (one property observed, the usual case), the snapshot
    // shares the list's storage, tombstones included; the sets skip those.
    let kept = incoming.slots.keeping { sentinel in
      guard let sentinel else { return true }
      guard sentinel.isTriggered(by: keyPath) else { return false }
      concernedCount += 1
      needingNotice += sentinel.noticeWeight
      return true
    }
    if concernedCount == incoming.count {
      concerned = .everyRegistration
      return (concernedCount == 0 ? InlineFirstArray() : kept, needingNotice)
    }
    var list = IncomingSentinels()
    kept.forEachElement { sentinel in
      if let sentinel { list.append(sentinel) }
    }
    concerned = .only(PropertyRegistrationList(sentinels: list, needingNotice: needingNotice))
    return (list.slots, needingNotice)
  }

  /// Forgets what a set concerns: the next set rebuilds it. Gives back the record's hold on its
  /// snapshot, if it has one.
  mutating func dropSnapshot() {
    if case .notAutomatic = setTargets { return }
    let snapshot = setTargets.snapshot
    setTargets = .toBeBuilt
    if let snapshot { PropertySnapshot.removeHolder(snapshot) }
  }
}
