/// Registrations that one handle ends together: the engine registrations of one
/// `autoObserve(_:keyPaths:)` call, one per key path, or the two directions of one `autoSync`.
///
/// The group's handle is a ``KeyValueObservation`` attached to no registry; each member is an
/// ordinary registration that knows its group. Whichever ends first for a reason that ends the
/// whole group (the handle's or a member's `cancel()`, either side's deallocation) ends all the
/// others, exactly once, before its own `end` returns: nothing of the group is delivered after
/// that returns on the same thread. A member ended alone (`stopObserving(_:keyPath:)`, when
/// ``membersEndAlone``) leaves the others going; the handle ends with the last of them.
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
    /// The handle, held until the group ends. It holds the group too: the cycle is the
    /// registration itself, and ending it breaks the cycle.
    var handle: KeyValueObservation?
    /// The members still active, in the order they were added.
    var members: [KeyValueObservation] = []

    /// Ends the group: returns the registrations still to end, and forgets them.
    mutating func end() -> [KeyValueObservation] {
      isEnded = true
      var ending = members
      if let handle { ending.append(handle) }
      handle = nil
      members = []
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
    _ = handle.join(self)
    lock.withLock { state.handle = handle }
    return handle
  }

  /// Whether the group has ended; checked between the registrations of its members, so that a
  /// group ended inside an `.initial` call registers nothing more.
  var isEnded: Bool {
    lock.withLock { state.isEnded }
  }

  /// Adds `member`, a registration that has just been made. A member that has already ended (its
  /// `.initial` call cancelled it, or another thread did) is counted as ended for the same reason;
  /// one added to a group that has already ended is ended.
  func add(_ member: KeyValueObservation) {
    guard member.join(self) else {
      // Ended before it could join: by its own refusal, or by a cancellation that could only
      // have come through a handle `activeObservations` listed, which ends the group.
      memberDidEnd(member, alone: false)
      return
    }
    let endsMember = lock.withLock {
      guard !state.isEnded else { return true }
      // An `end` that runs between `join` and here has stored its ending before telling the
      // group, and will tell it after this unlocks: the member is then not kept.
      if member.isActive { state.members.append(member) }
      return false
    }
    if endsMember {
      member.end(.cancelled)
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
      registration.end(.cancelled)
    }
  }

  /// Called by ``KeyValueObservation/end(_:alone:)`` after `registration`, the handle or a
  /// member, ended, outside its lock. `alone` is true for a member `stopObserving(_:keyPath:)`
  /// ended.
  func memberDidEnd(_ registration: KeyValueObservation, alone: Bool) {
    let ending = lock.withLock { () -> [KeyValueObservation] in
      guard !state.isEnded else { return [] }
      if alone, membersEndAlone, registration !== state.handle {
        state.members.removeAll { $0 === registration }
        guard state.isComplete, state.members.isEmpty else { return [] }
      }
      return state.end()
    }
    for other in ending where other !== registration {
      other.end(.cancelled)
    }
  }
}
