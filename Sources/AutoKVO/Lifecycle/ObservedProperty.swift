/// One ``Observed`` property of one object, as the engine knows it once a registration has read
/// it: the property's storage holds it, and it holds the registrations its sets concern, so that a
/// set finds everything it needs there, with no key path and no search.
///
/// Created under the object's registry lock by the first recording that reads the property (a
/// registration evaluating its key path, or a re-evaluation after a change), stored in the
/// property's storage and kept by the registry too, for the life of the object. A property no
/// registration ever read has none, and its sets skip notification after one lock-guarded load.
// @unchecked Sendable: `sentinels` is guarded by the owning registry's lock; the rest is immutable.
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

  /// How many of ``sentinels`` must be told before a set (see
  /// ``ObservedSentinel/needsNoticeBeforeSet``); when none, a set skips that step.
  @exclusivity(unchecked)
  private(set) var sentinelsNoticedBeforeSet: Int32 = 0

  /// What the object's class answered, when the property was first read for a registration, to
  /// ``KeyValueObservable/automaticallyNotifiesObservers(for:)``: asked once per property and
  /// object, as KVO asks once per class and key when the first observer arrives.
  ///
  /// Declared after the count, a 32-bit one, so that both share a word: the object then fits a
  /// 64-byte heap block (Docs/Performance.md counts bytes per registration).
  let notifiesAutomatically: Bool

  init(keyPath: AnyKeyPath, notifiesAutomatically: Bool) {
    self.keyPath = keyPath
    self.notifiesAutomatically = notifiesAutomatically
  }

  func append(_ sentinel: any ObservedSentinel) {
    sentinels.append(sentinel)
    if sentinel.needsNoticeBeforeSet { sentinelsNoticedBeforeSet += 1 }
  }

  /// Removes the sentinel of `observation` if the list holds it. The caller releases nothing
  /// here: it holds the sentinel too.
  func remove(observedSideOf observation: KeyValueObservation) {
    guard let removed = sentinels.remove(observedSideOf: observation) else { return }
    if removed.needsNoticeBeforeSet { sentinelsNoticedBeforeSet -= 1 }
  }

  /// Empties the list, for the registry's `deinit`.
  func removeAll() {
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
