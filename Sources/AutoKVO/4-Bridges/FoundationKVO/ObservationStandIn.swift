/// The registry holder AutoKVO attaches to an object that has no ``ObservationRegistry`` of its
/// own, as an associated object (``AssociationStore``), so that the object's deallocation ends
/// every registration it takes part in.
///
/// The store releases an object's associated objects inside its deallocation, on the deallocating
/// thread, after its own `deinit`/`dealloc` code and its stored properties, and before its memory
/// is freed. The stand-in's registry is released then, and its `deinit` ends each registration
/// exactly once, as a stored registry's does.
final class ObservationStandIn: KeyValueObservable {
  let observationRegistry = ObservationRegistry()

  /// The association key: the address of a byte allocated once and never freed, kept as a number
  /// (it is never dereferenced), which is Sendable.
  private static let associationAddress = UInt(
    bitPattern: UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1))

  private static var associationKey: UnsafeRawPointer {
    UnsafeRawPointer(bitPattern: associationAddress)!
  }

  /// Serialises the look-up-or-attach below, so that two threads registering with the same
  /// object at once attach one stand-in. Under it the store only retains the stand-in; no user
  /// code runs.
  private static let attachLock = Lock()

  private init() {}

  /// The stand-in attached to `object` in `store`, attached now if there is none yet.
  ///
  /// Call it only with a strong reference to `object`: never on an object being deallocated.
  static func standIn(for object: AnyObject, in store: some AssociationStore) -> ObservationStandIn
  {
    attachLock.withLock {
      if let existing = store.associatedObject(of: object, key: associationKey)
        as? ObservationStandIn
      {
        return existing
      }
      let standIn = ObservationStandIn()
      store.setAssociatedObject(standIn, of: object, key: associationKey)
      return standIn
    }
  }
}

extension ObservationStandIn {
  /// The stand-in attached to `object` in `store`, if one is; none is attached by this call.
  static func existing(for object: AnyObject, in store: some AssociationStore)
    -> ObservationStandIn?
  {
    attachLock.withLock {
      store.associatedObject(of: object, key: associationKey) as? ObservationStandIn
    }
  }
}

extension KeyValueObserver {
  /// The registry that owns this observer's sentinels: its own when it is
  /// ``KeyValueObservable`` (`nil`, after a diagnostic, when that one is computed), otherwise
  /// its stand-in's in `store`.
  func registryForObserving(in store: some AssociationStore) -> ObservationRegistry? {
    if let observable = self as? any KeyValueObservable {
      return observable.stableObservationRegistry(toBeUsedTo: "observe with")
    }
    return ObservationStandIn.standIn(for: self, in: store).observationRegistry
  }

  /// The registry that owns this observer's sentinels, if it has one: its own when it is
  /// ``KeyValueObservable``, otherwise its stand-in's in `store`, if one is attached; a query
  /// attaches nothing.
  func existingRegistryForObserving(in store: some AssociationStore) -> ObservationRegistry? {
    if let observable = self as? any KeyValueObservable {
      return observable.observationRegistry
    }
    return ObservationStandIn.existing(for: self, in: store)?.observationRegistry
  }
}
