import _AutoKVOShims

/// Registrations that one handle ends together: the engine registrations of one
/// `autoObserve(_:keyPaths:)` call, one per key path, or the two directions of one `autoSync`.
///
/// The group's handle is a ``KeyValueObservation`` attached to no registry; each member is an
/// ordinary registration. Whichever ends first for a reason that ends the whole group (the
/// handle's or a member's `cancel()`, either side's deallocation) ends all the others, exactly
/// once, before its own `end` returns: nothing of the group is delivered after that returns on the
/// same thread. A member ended alone (`stopObserving(_:keyPath:)`, when ``membersEndAlone``)
/// leaves the others going; the handle ends with the last of them.
///
/// Every transition runs under the group's lock and returns what to end; the registrations are
/// ended after it is released, each under its own lifecycle lock, so no two lifecycle locks are
/// ever held at once and no user code runs under either.
final class RegistrationGroup: @unchecked Sendable {  // `state` is guarded by `lock`
  private struct State {
    /// Set once, when the group ends.
    var isEnded = false
    /// Set once every member has been added: before that, a group whose members all ended alone
    /// is still being built, and does not end.
    var isComplete = false
    /// The handle, held until the group ends.
    var handle: KeyValueObservation?
    /// The members still active, in the order they were added.
    var members: [KeyValueObservation] = []
    /// What the group's end ended, kept for a registration whose own end comes after it.
    var ended: [KeyValueObservation] = []

    /// Ends the group: returns the registrations still to end, and forgets them as members.
    mutating func end() -> [KeyValueObservation] {
      isEnded = true
      var ending = members
      if let handle { ending.append(handle) }
      handle = nil
      members = []
      ended = ending
      return ending
    }
  }

  /// Whether `stopObserving(_:keyPath:)` ends only the member it names (several key paths), or
  /// the whole group (the two directions of a two-way binding).
  let membersEndAlone: Bool

  private var state = State()

  // A striped lifecycle lock, as each registration's: the group takes no other lock under it.
  private var lock: Lock { LifecycleLocks.lock(for: self) }

  init(membersEndAlone: Bool) {
    self.membersEndAlone = membersEndAlone
  }

  /// Makes the group's handle: the ``KeyValueObservation`` its call returns.
  func makeHandle() -> KeyValueObservation {
    let handle = KeyValueObservation()
    lock.withLock { state.handle = handle }
    Self.memberships.enter(handle, of: self)
    // A new handle is active: it joins.
    _ = handle.joinGroup()
    return handle
  }

  /// Whether the group has ended; checked between the registrations of its members, so that a
  /// group ended inside an `.initial` call registers nothing more.
  var isEnded: Bool {
    lock.withLock { state.isEnded }
  }

  /// Adds `member`, a registration that has just been made. A member that has already ended (its
  /// `.initial` call cancelled it, it was refused, or another thread ended it) ends the group;
  /// one added to a group that has already ended is ended.
  func add(_ member: KeyValueObservation) {
    // Entered before the member joins: an `end` that finds it joined finds its membership.
    Self.memberships.enter(member, of: self)
    guard member.joinGroup() else {
      // The member ended before it joined, so its `end` looked for no group: this tells it.
      if Self.memberships.remove(member) != nil {
        memberDidEnd(member, alone: false)
      }
      return
    }
    let endsMember = lock.withLock {
      guard !state.isEnded else { return true }
      state.members.append(member)
      return false
    }
    if endsMember {
      member.end(.cancelled, endedByGroup: true)
    }
  }

  /// Marks every member added. A group whose members all ended alone meanwhile ends now.
  func complete() {
    let ending = lock.withLock { () -> [KeyValueObservation] in
      state.isComplete = true
      guard !state.isEnded, state.members.isEmpty else { return [] }
      return state.end()
    }
    for registration in ending {
      registration.end(.cancelled, endedByGroup: true)
    }
  }

  /// Called once `registration`, the handle or a member, has ended. `alone` is true for a member
  /// `stopObserving(_:keyPath:)` ended.
  private func memberDidEnd(_ registration: KeyValueObservation, alone: Bool) {
    let ending = lock.withLock { () -> [KeyValueObservation] in
      // Ended by its own end while another thread ends the group: it ends what the group's end
      // ended too (each `end` is idempotent), so that it returns only once all of them have.
      guard !state.isEnded else { return state.ended }
      if alone, membersEndAlone, registration !== state.handle {
        state.members.removeAll { $0 === registration }
        guard state.isComplete, state.members.isEmpty else { return [] }
      }
      return state.end()
    }
    for other in ending where other !== registration {
      other.end(.cancelled, endedByGroup: true)
    }
  }

  /// Called by ``KeyValueObservation/end(_:alone:endedByGroup:)``, outside its lock, when a
  /// registration that joined a group (``KeyValueObservation/joinGroup()``) has ended: forgets its
  /// membership, and tells its group, unless the group's own end ended it.
  static func registrationDidEnd(
    _ registration: KeyValueObservation,
    alone: Bool,
    endedByGroup: Bool
  ) {
    guard let group = memberships.remove(registration), !endedByGroup else { return }
    group.memberDidEnd(registration, alone: alone)
  }

  /// The group of every registration that belongs to one, apart from the registrations: most
  /// have none, and a field in each would cost every registration its memory. Only the end of a
  /// registration that joined a group looks in it.
  private static let memberships = Memberships()

  /// Each entry holds its registration, so that the registration's identity, the key, cannot be
  /// reused while the entry exists; the entry is removed when the registration ends.
  private final class Memberships: @unchecked Sendable {  // `entries` is guarded by `lock`
    private let lock = Lock()
    private var entries: [ObjectIdentifier: (KeyValueObservation, RegistrationGroup)] = [:]

    func enter(_ registration: KeyValueObservation, of group: RegistrationGroup) {
      lock.withLock {
        entries[ObjectIdentifier(registration)] = (registration, group)
      }
    }

    /// Removes the membership of `registration`, and returns its group; `nil` when it has none.
    func remove(_ registration: KeyValueObservation) -> RegistrationGroup? {
      // Released after the lock: the entry may hold the last references.
      let removed = lock.withLock { () -> (KeyValueObservation, RegistrationGroup)? in
        entries.removeValue(forKey: ObjectIdentifier(registration))
      }
      return removed?.1
    }
  }
}
