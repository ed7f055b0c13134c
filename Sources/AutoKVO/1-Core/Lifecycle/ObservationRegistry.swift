import _AutoKVOShims

/// The per-object observation storage of a ``KeyValueObservable`` class, which ends every
/// registration of its object, exactly once, when the object is deallocated.
///
/// Declare one as a stored constant; it lives and dies with its object:
///
/// ```swift
/// final class Person: KeyValueObservable {
///     let observationRegistry = ObservationRegistry()
///     @Observed var name = "Ann"
/// }
/// ```
///
/// The registry holds one sentinel per registration that observes its object and one per
/// registration its object made as an observer. It also answers how many of each are live,
/// the introspection KVO's `observationInfo` gave.
///
/// `ObservationRegistry` is `Sendable`: its state is guarded by a lock, so registrations,
/// cancellations and notifications may reach it from any thread. It does not make its object
/// `Sendable`; that is the object's own decision.
public final class ObservationRegistry: @unchecked Sendable {  // `state` is guarded by `lock`
  /// The lock and the state, in memory that the sentinels reach with no reference count (see
  /// `RegistryStorage`). Freed at the end of `deinit`.
  let reference: RegistryReference

  // `reference`'s lock and state, kept here so that the notification path does not compute them.
  // The lock is usable from inlinable code, so that an `@Observed` setter takes it with one call.
  @usableFromInline
  let lock: Lock
  private let state: UnsafeMutablePointer<RegistryState>

  /// Non-zero while any registration observes this object. Written under `lock`, read without
  /// it by every `@Observed` setter: a stale read can only race a registration or cancellation
  /// that was not ordered before the set anyway.
  @usableFromInline
  let observedFlag: UnsafeMutablePointer<Int32>

  /// The address of the object through which Swift's Observation framework tracks this
  /// registry's object, retained, or 0: written once, by a compare-and-swap, by the first read of
  /// an `@Observed` property of a class that conforms to Observation's `Observable`; read without
  /// the lock by every access of such a property. Released by `deinit`. Only the TrackedByObservation
  /// layer knows what the object is; this layer only keeps it.
  @usableFromInline
  let swiftObservationSlot: UnsafeMutablePointer<Int>

  /// The address of the one object this registry serves, or 0 until it is claimed: by the first
  /// registration either side of which stores this registry, or by the first recorded read of an
  /// `@Observed` property of the object (see ``serves(_:)``).
  private let ownerSlot: UnsafeMutablePointer<Int>

  /// Creates an empty registry.
  public init() {
    reference = RegistryReference.allocate()
    lock = reference.lock
    state = reference.state
    observedFlag = reference.observedFlag
    swiftObservationSlot = reference.swiftObservationSlot
    ownerSlot = reference.ownerSlot
  }

  deinit {
    // The object is being deallocated: end every registration it takes part in. The sentinels
    // are moved out first, so that a registration ending concurrently on another thread finds
    // them gone here, and are released at the end of this deinit, after every lock is dropped.
    // Each `end` takes the registration's lifecycle lock; until this deinit body returns, the
    // storage is valid for any other thread that saw the registration still active.
    // Moved out by swapping, which copies no list and so retains and releases nothing.
    var incoming = IncomingSentinels()
    var outgoing = OutgoingSentinels()
    withState { state in
      swap(&incoming, &state.incoming)
      swap(&outgoing, &state.outgoing)
      // Not the last references: `incoming` holds them.
      state.properties.updateEach { $0.dropSnapshot() }
      autokvo_observed_flag_store_locked(observedFlag, 0)
    }
    incoming.forEachSentinel { sentinel in
      sentinel.observedObjectIsDeallocating()
    }
    outgoing.forEachSentinel { sentinel in
      sentinel.observation.end(.observerDeallocated)
    }
    // Nothing can read the slot any more: the object is gone. An acquire load all the same, which
    // pairs with the compare-and-swap of the thread that published it, in code ThreadSanitizer
    // sees (the release of the object that orders them happens in the uninstrumented runtime).
    // Released outside every lock.
    if let tracked = UnsafeRawPointer(bitPattern: autokvo_registrar_slot_load(swiftObservationSlot))
    {
      Unmanaged<AnyObject>.fromOpaque(tracked).release()
    }
    reference.deallocate()
  }

  /// Whether this registry serves `object`, claiming it for `object` if no object has claimed it
  /// yet. A registry serves one object: a second object that stores the same registry (an
  /// injected, shared one) would otherwise receive the first one's changes, and hand itself to
  /// their handlers. Compares addresses only; the address of an object that is gone may be
  /// reused, but a registry whose object is gone serves no registration of it any more.
  @usableFromInline
  func serves(_ object: AnyObject) -> Bool {
    let address = Int(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    let owner = autokvo_registry_owner_load(ownerSlot)
    if owner == address { return true }
    guard owner == 0 else { return false }
    return autokvo_registry_owner_claim(ownerSlot, address)
      || autokvo_registry_owner_load(ownerSlot) == address
  }

  /// Whether an object has claimed this registry (``serves(_:)``): one relaxed load.
  var isServingAnObject: Bool {
    autokvo_registry_owner_load(ownerSlot) != 0
  }

  /// Whether `object` is another object than the one this registry serves; `false` while no
  /// object has claimed it. Claims nothing: what a change of `object` asks.
  func servesAnotherObject(than object: AnyObject) -> Bool {
    let owner = autokvo_registry_owner_load(ownerSlot)
    return owner != 0 && owner != Int(bitPattern: Unmanaged.passUnretained(object).toOpaque())
  }

  /// The number of live registrations observing this registry's object.
  ///
  /// It includes the internal registrations that key-path chains through this object make (one
  /// per chain registration, whatever the number of properties it reads here).
  public var observerCount: Int {
    withState { $0.incoming.count }
  }

  /// The number of live registrations this registry's object made as an observer.
  public var observingCount: Int {
    withState { $0.outgoing.count }
  }

  /// The state, for a caller that holds the lock through ``withPropertyLock(_:)``.
  var stateWhileLocked: UnsafeMutablePointer<RegistryState> {
    state
  }

  /// Takes ownership of the observed-side sentinel of a registration on this registry's object.
  func attach(_ sentinel: any ObservedSentinel) {
    withState { state in
      // First: the properties' snapshots it concerns are dropped, since one that shares the
      // list's storage would make the append copy the whole list.
      state.registrationWillJoin(sentinel)
      state.incoming.append(sentinel)
      autokvo_observed_flag_store_locked(observedFlag, 1)
    }
  }

  /// Runs `update`, which changes what ``ObservedSentinel/isTriggered(by:)`` answers for
  /// `sentinel`, under this registry's lock, and makes the properties whose sets concern the
  /// sentinel before or after the update rebuild their snapshots; unless `isUnchanged`, asked
  /// first under the lock, answers that the update would change nothing.
  func updateTriggers(
    of sentinel: some ObservedSentinel,
    unlessUnchanged isUnchanged: () -> Bool = { false },
    _ update: () -> Void
  ) {
    withState { state in
      guard !isUnchanged() else { return }
      // Dropping a snapshot releases no sentinel for the last time: `incoming` still holds the
      // sentinel, if anything does, and the others.
      state.triggersWillChangeOrChanged(of: sentinel)
      update()
      state.triggersWillChangeOrChanged(of: sentinel)
    }
  }

  /// Holds the observer-side sentinel of a registration this registry's object made.
  func attach(_ sentinel: ObserverSentinel) {
    withState { $0.outgoing.append(sentinel) }
  }

  /// The live registrations this registry's object made as an observer, in registration order.
  var outgoingObservations: [KeyValueObservation] {
    withState { $0.outgoing.observations }
  }

  /// The live registrations observing this registry's object, chain links included, in
  /// registration order.
  var incomingObservations: [KeyValueObservation] {
    withState { $0.incoming.observations }
  }

  /// Runs `body` on the registry's state under its lock. `body` must not call user code.
  func withState<Result>(_ body: (inout RegistryState) -> Result) -> Result {
    let state = state
    return lock.withLock { body(&state.pointee) }
  }
}
