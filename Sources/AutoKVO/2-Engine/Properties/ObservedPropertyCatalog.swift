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
/// (``Observed``'s `makeRecord`), once per class and property; never emptied, as classes are never
/// unloaded, so that a class's identity is a lasting key.
@usableFromInline
enum ObservedPropertyCatalog {
  /// One stored `@Observed` property of one class.
  struct Entry {
    /// The key path of the property's declaration, which its changes are posted under.
    let keyPath: AnyKeyPath
    /// Where the property's ``ObservedPropertyIndex`` lies in an instance of the class, in bytes
    /// from the object's address: the same in every instance.
    let indexOffset: Int

    /// Whether `object`, whose registry is `registry`, has the property's record: read from the
    /// index its storage holds, by its address, under the registry's lock.
    func hasRecord(of object: AnyObject, in registry: ObservationRegistry) -> Bool {
      let index = self.index(in: object)
      return registry.withPropertyLock { index.pointee != .none }
    }

    private func index(in object: AnyObject) -> UnsafeMutablePointer<ObservedPropertyIndex> {
      (UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + indexOffset)
        .assumingMemoryBound(to: ObservedPropertyIndex.self)
    }

    /// Makes the property's record in `registry`, `object`'s, unless it exists, and stores its
    /// index in the property's storage, under the registry's lock; returns the index. Touches only
    /// the index, by its address: the value beside it is neither read nor written, and no access
    /// to the storage variable as a whole is made. `notifiesAutomatically` is what the object's
    /// class answered to ``KeyValueObservable/automaticallyNotifiesObservers(for:)``;
    /// `isReadByEachRegistration`, ``ObservedProperty/isReadByEachRegistration``, is `false` for
    /// every property the catalog lists.
    @discardableResult
    func makeRecord(
      of object: AnyObject, in registry: ObservationRegistry, notifiesAutomatically: Bool,
      isReadByEachRegistration: Bool = false
    ) -> ObservedPropertyIndex {
      let index = self.index(in: object)
      return registry.withPropertyLock {
        if index.pointee == .none {
          index.pointee = registry.makePropertyWhileLocked(
            keyPath: keyPath, notifiesAutomatically: notifiesAutomatically,
            isReadByEachRegistration: isReadByEachRegistration)
        }
        return index.pointee
      }
    }
  }

  /// The entries of each class, and the key path instances already found to name one.
  private struct Contents {
    var entries: [ObjectIdentifier: [Entry]] = [:]
    /// By the identity of a key path instance that named an entry, compared in full once: a
    /// registration's key path is usually a literal, one instance for every call of its call
    /// site, so that finding its property then costs one look-up however many properties its
    /// class has. The instance is kept, so that its address is never reused by another key path
    /// while it is a key; a key path names properties of its root class only, which the alias
    /// records.
    var aliases: [ObjectIdentifier: Alias] = [:]
  }

  private struct Alias {
    let keyPath: AnyKeyPath
    let someClass: ObjectIdentifier
    let entry: Entry
  }

  /// At most this many aliases, so that key paths made anew for every registration (by
  /// `appending(path:)`) cannot grow the catalog without bound.
  private static let maximumAliases = 4096

  private static let lock = Lock()
  /// Guarded by `lock`. Allocated once and never freed; reached through a pointer, so that its
  /// accesses, all under the lock, cost no run-time exclusivity check.
  nonisolated(unsafe) private static let contents: UnsafeMutablePointer<Contents> = {
    let contents = UnsafeMutablePointer<Contents>.allocate(capacity: 1)
    contents.initialize(to: Contents())
    return contents
  }()

  /// Where the index of the property `keyPath` declares lies in an instance of `someClass`, the
  /// class that declares it, or of a subclass, once a recording has read it on an instance of
  /// `someClass`: what the `@Observed` getter asks before it makes a record.
  @usableFromInline
  static func indexOffset(of keyPath: AnyKeyPath, in someClass: AnyClass) -> Int? {
    entry(named: keyPath, of: someClass)?.indexOffset
  }

  /// Adds `entry` for `someClass`, unless an entry for its key path is there already.
  static func add(_ entry: Entry, for someClass: AnyClass) {
    lock.lock()
    defer { lock.unlock() }
    let known = contents.pointee.entries[ObjectIdentifier(someClass), default: []]
    guard !known.contains(where: { $0.keyPath.matches(entry.keyPath) }) else { return }
    contents.pointee.entries[ObjectIdentifier(someClass)] = known + [entry]
  }

  /// The entry of `someClass` whose declaration key path is `keyPath`, if a recording read that
  /// property on one of its instances. Compares key paths under the catalog's lock, the first
  /// time an instance of a key path asks; runs no user code.
  static func entry(named keyPath: AnyKeyPath, of someClass: AnyClass) -> Entry? {
    lock.lock()
    defer { lock.unlock() }
    if let alias = contents.pointee.aliases[ObjectIdentifier(keyPath)],
      alias.someClass == ObjectIdentifier(someClass)
    {
      return alias.entry
    }
    guard
      let entry = contents.pointee.entries[ObjectIdentifier(someClass)]?.first(where: {
        $0.keyPath.matches(keyPath)
      })
    else { return nil }
    if contents.pointee.aliases.count < maximumAliases {
      contents.pointee.aliases[ObjectIdentifier(keyPath)] = Alias(
        keyPath: keyPath, someClass: ObjectIdentifier(someClass), entry: entry)
    }
    return entry
  }
}
