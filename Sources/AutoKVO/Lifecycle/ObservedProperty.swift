/// One ``Observed`` property of one object, as the engine knows it once a registration has read
/// it: the property's storage holds it, and it holds the registrations its sets concern, frozen in
/// an ``AutomaticChangeSnapshot``, so that a set finds everything it needs there, with no key path
/// and no search.
///
/// Created under the object's registry lock by the first recording that reads the property (a
/// registration evaluating its key path, or a re-evaluation after a change), stored in the
/// property's storage and kept by the registry too, for the life of the object. A property no
/// registration ever read has none, and its sets skip notification after one lock-guarded load.
// @unchecked Sendable: `sentinels`, `snapshot` and the count are guarded by the owning registry's
// lock; the rest is immutable.
@usableFromInline
final class ObservedProperty: @unchecked Sendable {
  /// The key path of the property's declaration (`\Base.items` for a property declared in `Base`,
  /// whichever subclass instance it belongs to): what the property's changes are posted under.
  let keyPath: AnyKeyPath

  /// The registrations a set of this property concerns, in registration order: a subsequence of
  /// the registry's incoming sentinels, kept in step with it under the registry's lock.
  ///
  /// Unchecked exclusivity: every access holds the registry's lock, which is the exclusivity
  /// guarantee, and the run-time check would cost a thread-local look-up on every set.
  @exclusivity(unchecked)
  private(set) var sentinels = IncomingSentinels()

  /// ``sentinels``, frozen for the sets that deliver to them: built by the first set that needs
  /// it, dropped whenever the list changes (before it changes, so that the list's storage is not
  /// shared then and changes in place). Dropping it under the registry's lock never releases the
  /// last reference to a sentinel: the list holds each one it holds, and the caller of
  /// ``remove(observedSideOf:)`` or ``removeAll()`` holds those the list lets go of. A set in
  /// progress may hold the snapshot longer; its release then happens outside every lock. Held
  /// through the snapshot's own count of holders (see ``AutomaticChangeSnapshot``).
  @exclusivity(unchecked)
  private var snapshot: Unmanaged<AutomaticChangeSnapshot>?

  /// How many of ``sentinels`` must be told before a set (see
  /// ``ObservedSentinel/needsNoticeBeforeSet``); when none, a set skips that step.
  @exclusivity(unchecked)
  private(set) var sentinelsNoticedBeforeSet: Int32 = 0

  /// What the object's class answered, when the property was first read for a registration, to
  /// ``KeyValueObservable/automaticallyNotifiesObservers(for:)``: asked once per property and
  /// object, as KVO asks once per class and key when the first observer arrives.
  ///
  /// Declared after the count, a 32-bit one, so that both share a word: the object then takes 72
  /// bytes, an 80-byte heap block (Docs/Performance.md counts bytes per registration).
  let notifiesAutomatically: Bool

  /// `property`, unretained: what an `@Observed` setter hands the engine, so that a set retains
  /// nothing to find its registrations. Valid while the property's storage holds it: for the life
  /// of its object, which the setter holds.
  @inlinable
  @inline(__always)
  static func unretained(_ property: ObservedProperty?) -> Unmanaged<ObservedProperty>? {
    guard let property else { return nil }
    return Unmanaged.passUnretained(property)
  }

  init(keyPath: AnyKeyPath, notifiesAutomatically: Bool) {
    self.keyPath = keyPath
    self.notifiesAutomatically = notifiesAutomatically
  }

  deinit {
    dropSnapshot()
  }

  /// The current ``AutomaticChangeSnapshot``, built if need be, with a hold taken for the caller,
  /// which gives it back with ``AutomaticChangeSnapshot/letGo(_:)``; `nil` when a set of the
  /// property concerns no registration: none observes it, or its class does not notify it
  /// automatically. Called under the registry's lock.
  @inline(__always)
  func automaticChangeSnapshotWhileLocked() -> Unmanaged<AutomaticChangeSnapshot>? {
    guard let snapshot = snapshot ?? makeAutomaticChangeSnapshotWhileLocked() else { return nil }
    snapshot._withUnsafeGuaranteedRef { $0.hold() }
    return snapshot
  }

  /// Builds the snapshot: the first set after the list changed. Out of line, so that the sets
  /// that find it built inline nothing of this.
  @inline(never)
  private func makeAutomaticChangeSnapshotWhileLocked() -> Unmanaged<AutomaticChangeSnapshot>? {
    guard notifiesAutomatically, !sentinels.isEmpty else { return nil }
    let built = AutomaticChangeSnapshot.make(
      keyPath: keyPath, sentinels: sentinels.slots,
      needsNoticeBeforeChange: sentinelsNoticedBeforeSet > 0)
    snapshot = built
    return built
  }

  /// Gives back the property's hold on its snapshot, if it has one.
  private func dropSnapshot() {
    guard let snapshot else { return }
    self.snapshot = nil
    AutomaticChangeSnapshot.letGo(snapshot)
  }

  func append(_ sentinel: any ObservedSentinel) {
    dropSnapshot()
    sentinels.append(sentinel)
    if sentinel.needsNoticeBeforeSet { sentinelsNoticedBeforeSet += 1 }
  }

  /// Removes the sentinel of `observation` if the list holds it. The caller releases nothing
  /// here: it holds the sentinel too.
  func remove(observedSideOf observation: KeyValueObservation) {
    dropSnapshot()
    guard let removed = sentinels.remove(observedSideOf: observation) else { return }
    if removed.needsNoticeBeforeSet { sentinelsNoticedBeforeSet -= 1 }
  }

  /// Empties the list, for the registry's `deinit`.
  func removeAll() {
    dropSnapshot()
    sentinels = IncomingSentinels()
    sentinelsNoticedBeforeSet = 0
  }

  /// Takes the registrations concerned from `incoming`, in its order.
  func collectSentinels(from incoming: IncomingSentinels) {
    removeAll()
    incoming.forEachSentinel { sentinel in
      if sentinel.isTriggered(by: keyPath) { append(sentinel) }
    }
  }
}
