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
/// ever held at once and no user code runs under either. The protocol is modelled in
/// Tests/LifecycleModel/groups.pml and checked in every interleaving by .ci/model-check: a change
/// to it changes the model in the same commit.
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
      // Emptied first, so that the handle is appended to a buffer no longer shared.
      members = []
      if let handle { ending.append(handle) }
      handle = nil
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
      // The member ended before it joined, so its `end` looked for no group: this forgets its
      // membership and tells the group.
      Self.memberships.remove(member)
      memberDidEnd(member, alone: false)
      return
    }
    let endsMember = lock.withLock {
      guard !state.isEnded else { return true }
      state.members.append(member)
      return false
    }
    if endsMember {
      member.end(.cancelled, endedByGroup: true)
      Self.memberships.remove(member)
    }
  }

  /// Marks every member added. A group whose members all ended alone meanwhile ends now.
  func complete() {
    let ending = lock.withLock { () -> [KeyValueObservation] in
      state.isComplete = true
      guard !state.isEnded, state.members.isEmpty else { return [] }
      return state.end()
    }
    finishEnding(ending, endedFirst: nil)
  }

  /// Ends `ending`, what the group's end returned, but `endedFirst`, the registration whose end
  /// ended the group (among them unless it ended before it joined, when its membership is already
  /// gone); then forgets the memberships of all of them. Forgotten last, so that an `end` of one
  /// of them that comes meanwhile finds the group, and ends them too before it returns
  /// (``registrationWasAlreadyEnded(_:endedAlone:)``).
  private func finishEnding(_ ending: [KeyValueObservation], endedFirst: KeyValueObservation?) {
    for other in ending where other !== endedFirst {
      other.end(.cancelled, endedByGroup: true)
    }
    Self.memberships.remove(ending, and: nil)
  }

  /// What the group's lock decided about the end of one registration.
  private enum Decision {
    /// Another thread is ending the group, and these are what its end ended.
    case alreadyEnding([KeyValueObservation])
    /// A member ended alone; the group goes on.
    case endedAlone
    /// The group ends, and these are still to end.
    case endsGroup([KeyValueObservation])
  }

  /// Called once `registration`, the handle or a member, has ended. `alone` is true for a member
  /// `stopObserving(_:keyPath:)` ended.
  private func memberDidEnd(_ registration: KeyValueObservation, alone: Bool) {
    let decision = lock.withLock { () -> Decision in
      guard !state.isEnded else { return .alreadyEnding(state.ended) }
      if alone, membersEndAlone, registration !== state.handle {
        state.members.removeAll { $0 === registration }
        guard state.isComplete, state.members.isEmpty else { return .endedAlone }
      }
      return .endsGroup(state.end())
    }
    switch decision {
    case .alreadyEnding(let ended):
      endAlongside(ended, except: registration)
    case .endedAlone:
      Self.memberships.remove(registration)
    case .endsGroup(let ending):
      finishEnding(ending, endedFirst: registration)
    }
  }

  /// Ends what another thread's end of the group ended, each `end` being idempotent, so that the
  /// caller returns only once all of them have. That thread forgets their memberships.
  private func endAlongside(
    _ ended: [KeyValueObservation], except registration: KeyValueObservation
  ) {
    for other in ended where other !== registration {
      other.end(.cancelled, endedByGroup: true)
    }
  }

  /// Called by ``KeyValueObservation/end(_:alone:endedByGroup:)``, outside its lock, when a
  /// registration that joined a group (``KeyValueObservation/joinGroup()``) has ended: tells its
  /// group, unless the group's own end ended it.
  static func registrationDidEnd(
    _ registration: KeyValueObservation,
    alone: Bool,
    endedByGroup: Bool
  ) {
    guard !endedByGroup, let group = memberships.group(of: registration) else { return }
    group.memberDidEnd(registration, alone: alone)
  }

  /// Called by ``KeyValueObservation/end(_:alone:endedByGroup:)`` when a registration that joined
  /// a group was already ended, `endedAlone` or not. While its membership lasts, the end that
  /// ended it may not have told the group yet, or the group's end may still be ending the others:
  /// unless it ended alone, this ends the group, or what the group's end ended, so that the caller
  /// returns only once all have.
  static func registrationWasAlreadyEnded(_ registration: KeyValueObservation, endedAlone: Bool) {
    guard !endedAlone, let group = memberships.group(of: registration) else { return }
    let decision = group.lock.withLock { () -> Decision in
      guard !group.state.isEnded else { return .alreadyEnding(group.state.ended) }
      return .endsGroup(group.state.end())
    }
    switch decision {
    case .alreadyEnding(let ended):
      group.endAlongside(ended, except: registration)
    case .endsGroup(let ending):
      group.finishEnding(ending, endedFirst: nil)
    case .endedAlone:
      break
    }
  }

  /// The group of every registration that belongs to one, apart from the registrations: most
  /// have none, and a field in each would cost every registration its memory. Only the end of a
  /// registration that joined a group looks in it.
  private static let memberships = Memberships()

  /// Each entry holds its registration, so that the registration's identity, the key, cannot be
  /// reused while the entry exists. The entry is removed once the registration has ended alone, or
  /// once the group's end has ended every registration of the group.
  private final class Memberships: @unchecked Sendable {  // `entries` is guarded by `lock`
    private let lock = Lock()
    private var entries: [ObjectIdentifier: (KeyValueObservation, RegistrationGroup)] = [:]

    func enter(_ registration: KeyValueObservation, of group: RegistrationGroup) {
      lock.withLock {
        entries[ObjectIdentifier(registration)] = (registration, group)
      }
    }

    /// The group of `registration`; `nil` when it has no membership.
    func group(of registration: KeyValueObservation) -> RegistrationGroup? {
      lock.withLock { entries[ObjectIdentifier(registration)]?.1 }
    }

    /// Removes the membership of `registration`.
    func remove(_ registration: KeyValueObservation) {
      remove([], and: registration)
    }

    /// Removes the memberships of `registrations` and of `registration`.
    func remove(_ registrations: [KeyValueObservation], and registration: KeyValueObservation?) {
      guard !registrations.isEmpty || registration != nil else { return }
      var removed: [(KeyValueObservation, RegistrationGroup)] = []
      removed.reserveCapacity(registrations.count + 1)
      lock.withLock {
        Self.remove(registrations, and: registration, from: &entries, into: &removed)
      }
      // Released after the lock: the entries may hold the last references.
      withExtendedLifetime(removed) {}
    }

    /// The removal itself, on the entries passed `inout`: one access to them for all the
    /// removals, where each removal through the property would be an access of its own.
    private static func remove(
      _ registrations: [KeyValueObservation],
      and registration: KeyValueObservation?,
      from entries: inout [ObjectIdentifier: (KeyValueObservation, RegistrationGroup)],
      into removed: inout [(KeyValueObservation, RegistrationGroup)]
    ) {
      for registration in registrations {
        if let entry = entries.removeValue(forKey: ObjectIdentifier(registration)) {
          removed.append(entry)
        }
      }
      if let registration, let entry = entries.removeValue(forKey: ObjectIdentifier(registration)) {
        removed.append(entry)
      }
    }
  }
}
