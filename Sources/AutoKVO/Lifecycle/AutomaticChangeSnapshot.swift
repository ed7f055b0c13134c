/// The registrations an automatic set of one `@Observed` property concerns, frozen: what the
/// property's setter takes under its registry's lock, retained, and delivers to once the lock is
/// released.
///
/// Immutable, and made by the ``ObservedProperty`` when a set first needs it, then shared by every
/// set until the property's list changes: a set costs one retain and one release to find its
/// registrations, whatever their number. A set in progress keeps the snapshot it took, so a
/// registration made by one of its handlers is not notified of it.
// @unchecked Sendable: immutable, and published under the registry's lock; what it holds is a key
// path (an immutable object the standard library does not mark Sendable) and Sendable sentinels.
@usableFromInline
final class AutomaticChangeSnapshot: @unchecked Sendable {
  /// The key path the property's changes are posted under (its ``ObservedProperty/keyPath``).
  let keyPath: AnyKeyPath
  /// In registration order, with the tombstones (`nil`) of the property's list: a copy of it that
  /// shares its storage.
  let sentinels: InlineFirstArray<(any ObservedSentinel)?>
  /// Whether any of them must be told before the change: otherwise no registration is.
  let needsNoticeBeforeChange: Bool

  init(
    keyPath: AnyKeyPath,
    sentinels: InlineFirstArray<(any ObservedSentinel)?>,
    needsNoticeBeforeChange: Bool
  ) {
    self.keyPath = keyPath
    self.sentinels = sentinels
    self.needsNoticeBeforeChange = needsNoticeBeforeChange
  }
}
