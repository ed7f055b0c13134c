/// What registration knows, for each class, of the stored `@Observed` properties a recording has
/// read on any of its instances: each one's declaration key path, and where its storage keeps its
/// ``ObservedPropertyIndex``, so that its ``ObservedProperty`` record can be made on another
/// instance without reading its value.
///
/// A registration without `.initial` whose key path names one of them, on an object of exactly
/// that class, makes the record this way instead of evaluating the key path (see
/// ``ObservationRegistry/recordedPropertyKeyPath(named:of:)``), so that registering on a new
/// object reads nothing of it: only the first registration on a property of a class, in the
/// process, reads it. Filled by the `@Observed` getter when a recording makes a record
/// (``Observed``'s `noteAccess`), once per class and property; never emptied, as classes are never
/// unloaded, so that a class's identity is a lasting key.
@usableFromInline
enum ObservedPropertyCatalog {
  /// One stored `@Observed` property of one class.
  @usableFromInline
  struct Entry {
    /// The key path of the property's declaration, which its changes are posted under.
    let keyPath: AnyKeyPath
    /// Where the property's ``ObservedPropertyIndex`` lies in an instance of the class, in bytes
    /// from the object's address: the same in every instance.
    let indexOffset: Int

    @usableFromInline
    init(keyPath: AnyKeyPath, indexOffset: Int) {
      self.keyPath = keyPath
      self.indexOffset = indexOffset
    }

    /// Makes the property's record in `registry`, `object`'s, unless it exists, and stores its
    /// index in the property's storage, under the registry's lock. Touches only the index, by its
    /// address: the value beside it is never read. `notifiesAutomatically` is what the object's
    /// class answered to ``KeyValueObservable/automaticallyNotifiesObservers(for:)``.
    func makeRecord(
      of object: AnyObject, in registry: ObservationRegistry, notifiesAutomatically: Bool
    ) {
      let index =
        (UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        + indexOffset).assumingMemoryBound(to: ObservedPropertyIndex.self)
      registry.withPropertyLock {
        if index.pointee == .none {
          index.pointee = registry.makePropertyWhileLocked(
            keyPath: keyPath, notifiesAutomatically: notifiesAutomatically)
        }
      }
    }
  }

  private static let entries = LockedValue<[ObjectIdentifier: [Entry]]>([:])

  /// Whether `someClass` has an entry for `keyPath`: what the getter asks before it makes one.
  @usableFromInline
  static func contains(_ keyPath: AnyKeyPath, of someClass: AnyClass) -> Bool {
    entry(named: keyPath, of: someClass) != nil
  }

  /// Adds `entry` for `someClass`, unless an entry for its key path is there already.
  @usableFromInline
  static func add(_ entry: Entry, for someClass: AnyClass) {
    entries.withLock { entries in
      let known = entries[ObjectIdentifier(someClass), default: []]
      guard !known.contains(where: { $0.keyPath.matches(entry.keyPath) }) else { return }
      entries[ObjectIdentifier(someClass)] = known + [entry]
    }
  }

  /// The entry of `someClass` whose declaration key path is `keyPath`, if a recording read that
  /// property on one of its instances. Compares key paths under the catalog's lock; runs no user
  /// code.
  static func entry(named keyPath: AnyKeyPath, of someClass: AnyClass) -> Entry? {
    entries.withLock { entries in
      entries[ObjectIdentifier(someClass)]?.first { $0.keyPath.matches(keyPath) }
    }
  }
}
