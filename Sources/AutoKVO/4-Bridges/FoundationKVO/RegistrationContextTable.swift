/// The live Foundation registrations, keyed by context numbers that are never reused, through which
/// one shared observer finds the registration a notification belongs to.
///
/// On Apple platforms every Foundation registration AutoKVO makes has the same observer and a
/// context taken from this table, as with FBKVOController. A notification whose context is no
/// longer in the table — its registration is being torn down — is dropped. Keys are numbers
/// rather than addresses, so a late notification can never reach a newer registration that
/// happens to reuse a freed address.
///
/// Entries are held weakly: the table never extends the life of a registration.
// @unchecked Sendable: `entries` and `lastContext` are guarded by `lock`.
final class RegistrationContextTable<Entry: AnyObject>: @unchecked Sendable {
  private struct WeakEntry {
    weak var entry: Entry?
  }

  private let lock = Lock()

  // Guarded by `lock`.
  private var entries: [UInt: WeakEntry] = [:]
  private var lastContext: UInt = 0

  init() {}

  deinit {
    lock.destroy()
  }

  /// The number of contexts in the table, live or not.
  var count: Int {
    lock.withLock { entries.count }
  }

  /// Reserves a context that has never been handed out before (never zero); its entry is set
  /// with ``setEntry(_:for:)``.
  func makeContext() -> UInt {
    lock.withLock {
      // A word-sized counter: on 64-bit platforms it never wraps. Should it wrap on a 32-bit one,
      // contexts still in the table and zero (the "no context" pointer) are skipped.
      repeat {
        lastContext &+= 1
      } while lastContext == 0 || entries[lastContext] != nil
      entries[lastContext] = WeakEntry()
      return lastContext
    }
  }

  /// Sets the entry of a context reserved with ``makeContext()``.
  func setEntry(_ entry: Entry, for context: UInt) {
    lock.withLock { entries[context] = WeakEntry(entry: entry) }
  }

  /// The entry of `context`, retained for the caller, or `nil` when the context was removed or
  /// its entry has been released.
  func entry(for context: UInt) -> Entry? {
    // A weak load only: retaining the entry runs no user code under the lock.
    lock.withLock { entries[context]?.entry }
  }

  /// Forgets `context`; a no-op when it is not in the table.
  func removeContext(_ context: UInt) {
    _ = lock.withLock { entries.removeValue(forKey: context) }
  }
}
