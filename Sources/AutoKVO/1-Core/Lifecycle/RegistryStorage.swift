import _AutoKVOShims

/// The lock of one ``ObservationRegistry`` and everything it guards, in one manually allocated
/// block at a fixed address.
///
/// A registration's sentinels reach their registries through this block, by a
/// ``RegistryReference``, never through the `ObservationRegistry` object. A reference to the
/// object, even one Swift only retains around a call, can turn out to be the last one when the
/// registry's object dies on another thread at that moment; the registry's `deinit` then runs on
/// the thread that let go of it, inside whatever that thread was doing. The engine's teardown runs
/// under a lifecycle lock, and the `deinit` needs lifecycle locks to end the registrations the
/// registry holds: such a release deadlocks (it did; Docs/Reliability.md). A pointer has no
/// reference count, so nothing the engine does through it can run a registry's `deinit`.
struct RegistryStorage {
  var mutex: autokvo_lock_t
  /// Non-zero while any registration observes the registry's object (see
  /// `ObservationRegistry.isObserved`). 32 bits, beside the 32-bit lock, so that the word below
  /// fits in the block without making it larger.
  var observedFlag: Int32
  /// The object Swift's Observation framework tracks the registry's object through, retained, as
  /// its address; 0 until the object's first read that Observation could track (see
  /// `ObservationRegistry.swiftObservationSlot`). Set once, with a compare-and-swap, never cleared
  /// before the registry's `deinit` releases it.
  var swiftObservationRegistrar: Int
  /// The address of the one object the registry serves, or 0 until the first registration or
  /// recorded read claims it (see `ObservationRegistry.serves(_:)`). Set once, with a
  /// compare-and-swap.
  var ownerAddress: Int
  var state: RegistryState
}

/// A registry's ``RegistryStorage``, referenced without a reference count.
///
/// Valid from the registry's `init` to the end of its `deinit`. A registration holds one for each
/// of its registries and uses it only under its lifecycle lock while it is active: the registry's
/// `deinit` ends every registration it holds, each under that same lock, before it frees the
/// storage (Docs/Design.md).
struct RegistryReference: @unchecked Sendable, Equatable {  // the storage is guarded by its mutex
  private let storage: UnsafeMutablePointer<RegistryStorage>

  private init(storage: UnsafeMutablePointer<RegistryStorage>) {
    self.storage = storage
  }

  /// The storage's address, whose low four bits are zero: ``FlaggedRegistryReference`` keeps its
  /// flags in the lowest two.
  fileprivate var address: UInt {
    UInt(bitPattern: storage)
  }

  fileprivate init(address: UInt) {
    guard let storage = UnsafeMutablePointer<RegistryStorage>(bitPattern: address) else {
      preconditionFailure("a registry reference's address is never zero")
    }
    self.storage = storage
  }

  /// Allocates and initialises the storage of a new, empty registry.
  static func allocate() -> RegistryReference {
    // With malloc: `UnsafeMutablePointer.allocate` takes the runtime's slower aligned path, which
    // every registry, so every `KeyValueObservable` object, would pay for. Malloc's blocks are
    // 16-byte aligned (a constant check, folded away).
    precondition(
      MemoryLayout<RegistryStorage>.alignment <= 16, "RegistryStorage needs more alignment")
    let storage = autokvo_block_allocate(MemoryLayout<RegistryStorage>.stride)
      .bindMemory(to: RegistryStorage.self, capacity: 1)
    storage.initialize(
      to: RegistryStorage(
        mutex: autokvo_lock_t(), observedFlag: 0, swiftObservationRegistrar: 0, ownerAddress: 0,
        state: RegistryState()))
    let reference = RegistryReference(storage: storage)
    _ = Lock(initializingAt: reference.field(\.mutex))
    return reference
  }

  /// Frees the storage. Called once, at the end of the registry's `deinit`. Whatever the state
  /// still holds (values a pending manual change kept) is released here, outside every lock.
  func deallocate() {
    lock.deinitializeInPlace()
    storage.deinitialize(count: 1)
    autokvo_block_free(storage)
  }

  /// A pointer to a stored property of the storage, at its documented offset.
  private func field<Field>(_ keyPath: WritableKeyPath<RegistryStorage, Field>)
    -> UnsafeMutablePointer<Field>
  {
    guard let offset = MemoryLayout<RegistryStorage>.offset(of: keyPath) else {
      preconditionFailure("\(keyPath) is not a stored property of RegistryStorage")
    }
    return (UnsafeMutableRawPointer(storage) + offset).assumingMemoryBound(to: Field.self)
  }

  var lock: Lock {
    Lock(at: field(\.mutex))
  }

  var observedFlag: UnsafeMutablePointer<Int32> {
    field(\.observedFlag)
  }

  var swiftObservationSlot: UnsafeMutablePointer<Int> {
    field(\.swiftObservationRegistrar)
  }

  var ownerSlot: UnsafeMutablePointer<Int> {
    field(\.ownerAddress)
  }

  /// The state, for the registry, whose accesses hold `lock`.
  var state: UnsafeMutablePointer<RegistryState> {
    field(\.state)
  }

  /// Runs `body` on the state under the lock. `body` must not call user code.
  func withState<Result>(_ body: (inout RegistryState) -> Result) -> Result {
    let state = state
    return lock.withLock { body(&state.pointee) }
  }

  /// Removes the observed-side sentinel of `observation` and returns it, so that the caller can
  /// release it outside every lock; `nil` when the registry no longer holds it (its own deinit
  /// moved it out).
  func detachObservedSide(of observation: KeyValueObservation) -> (any ObservedSentinel)? {
    let observedFlag = observedFlag
    return withState { state in
      // The properties it concerns forget it, and their snapshots are dropped before the
      // removal: one that shares the list's storage would make the removal copy the whole list.
      // `leaving` keeps every release from them from being the last one. Looked up only when a
      // record holds something to update, so that a teardown with none skips the search.
      if state.properties.contains(where: { $0.followsLeavingRegistrations }) {
        guard let leaving = state.incoming.sentinel(of: observation) else { return nil }
        state.registrationWillLeave(leaving, of: observation)
      }
      let removed = state.incoming.remove(sentinelOf: observation)
      if let removed, state.everyRegistration != nil {
        state.everyRegistration!.needingNotice -= removed.noticeWeight
      }
      if state.incoming.isEmpty { autokvo_observed_flag_store_locked(observedFlag, 0) }
      return removed
    }
  }

  /// Removes the observer-side sentinel of `observation` and returns it; see
  /// ``detachObservedSide(of:)``.
  func detachObserverSide(of observation: KeyValueObservation) -> ObserverSentinel? {
    withState { state in
      state.outgoing.remove(sentinelOf: observation)
    }
  }

  /// The key path the observed-side sentinel of `observation` is posted under, if this registry
  /// holds it.
  func primaryKeyPath(ofObservedSideOf observation: KeyValueObservation) -> AnyKeyPath? {
    withState { $0.incoming.sentinel(of: observation)?.primaryKeyPath }
  }

  /// The observed-side sentinel of `observation`, if this registry holds it.
  func sentinel(ofObservedSideOf observation: KeyValueObservation) -> (any ObservedSentinel)? {
    withState { $0.incoming.sentinel(of: observation) }
  }
}

/// An optional ``RegistryReference`` and two flags in one word: the flags are the two lowest bits
/// of the storage's address, which its 16-byte alignment leaves zero. A registration keeps its
/// observer's registry in one, with whether it belongs to a group (`RegistrationGroup`) and whether
/// it ended alone, so that they cost no registration any memory.
struct FlaggedRegistryReference {
  private var word: UInt = 0
  private static let joinedGroupBit: UInt = 1
  private static let endedAloneBit: UInt = 2
  private static let flagBits = joinedGroupBit | endedAloneBit

  var reference: RegistryReference? {
    get {
      let address = word & ~Self.flagBits
      return address == 0 ? nil : RegistryReference(address: address)
    }
    set { word = (newValue?.address ?? 0) | (word & Self.flagBits) }
  }

  /// Whether the registration joined a group.
  var joinedGroup: Bool {
    get { word & Self.joinedGroupBit != 0 }
    set { word = newValue ? word | Self.joinedGroupBit : word & ~Self.joinedGroupBit }
  }

  /// Whether the registration ended alone (`stopObserving(_:keyPath:)`).
  var endedAlone: Bool {
    get { word & Self.endedAloneBit != 0 }
    set { word = newValue ? word | Self.endedAloneBit : word & ~Self.endedAloneBit }
  }
}
