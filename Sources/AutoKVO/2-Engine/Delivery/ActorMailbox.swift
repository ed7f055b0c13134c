/// Runs the deliveries of every registration made from one actor isolated to that actor, in the
/// order they were submitted, without keeping the actor alive.
///
/// A task per delivery would reach the actor in no particular order, and so would a mailbox per
/// registration: two registrations' drains would take turns on the actor. Instead, one mailbox
/// serves all the registrations made from an actor (``shared(by:)``), its deliveries wait in one
/// list, and one task at a time drains it on the actor; a delivery submitted while a drain runs
/// joins the list that drain will take next. So the actor receives its registrations' changes in
/// the order they were submitted, across registrations. The actor is referenced weakly: an actor
/// that observes, or from whose method a registration was made, is freed when its last outside
/// reference goes, and what was still waiting for it is dropped. A drain holds it only while it
/// runs. The registrations hold the mailbox; it goes when the last of them does.
// @unchecked Sendable: `state` is behind its own lock, `actor` is a weak reference written only by
// the initializer (a weak load is atomic), `actorIdentifier` is immutable, and each closure is run
// once, on the actor, where its handler expects to run.
@usableFromInline
final class ActorMailbox: @unchecked Sendable {
  private weak var actor: (any Actor)?
  /// The key of this mailbox's entry in `mailboxes`.
  private let actorIdentifier: ObjectIdentifier
  private let state = LockedValue(State())

  private struct State {
    var pending: [() -> Void] = []
    var isDraining = false
  }

  private init(_ actor: any Actor) {
    self.actor = actor
    actorIdentifier = ObjectIdentifier(actor)
  }

  deinit {
    // Compared by identity, without loading any entry's weak reference: a load made under the
    // lock could release the last reference to another mailbox there, whose deinit takes the
    // lock. This mailbox's identity is its own until its memory is freed, after this deinit, so
    // an entry that bears it is this mailbox's; a mailbox made meanwhile for the same actor (this
    // one's weak references already read `nil`) bears another, and stays.
    let identifier = ObjectIdentifier(self)
    Self.mailboxes.withLock { mailboxes in
      if let entry = mailboxes[actorIdentifier], entry.mailboxIdentifier == identifier {
        mailboxes[actorIdentifier] = nil
      }
    }
  }

  /// The mailbox of every registration made from an actor while one of them lives, by the actor's
  /// identity. An identity outlives its object, and a new actor may get the address of a freed
  /// one: an entry counts only when its mailbox still holds the very actor asked for (a weak
  /// reference to the freed actor reads `nil`, never the new one). An entry goes with its mailbox.
  private static let mailboxes = LockedValue([ObjectIdentifier: Entry]())

  private struct Entry {
    weak var mailbox: ActorMailbox?
    let mailboxIdentifier: ObjectIdentifier

    init(_ mailbox: ActorMailbox) {
      self.mailbox = mailbox
      mailboxIdentifier = ObjectIdentifier(mailbox)
    }
  }

  /// The mailbox shared by the registrations made from `actor`: the one they use while any of
  /// them lives, or a new one.
  static func shared(by actor: any Actor) -> ActorMailbox {
    let key = ObjectIdentifier(actor)
    // A mailbox found for a freed actor whose address `actor` reuses is released after the lock:
    // that reference may be its last, and its deinit takes the lock.
    var replaced: ActorMailbox?
    defer { withExtendedLifetime(replaced) {} }
    return mailboxes.withLock { mailboxes in
      // Not `mailboxes[key]?.mailbox`: Swift 6.3.1 miscompiles that weak load through an optional
      // chain on the dictionary (a null dereference in `swift_weakLoadStrong`).
      if let entry = mailboxes[key], let found = entry.mailbox {
        // Not the last reference to the actor: the caller holds it.
        if found.actor === actor { return found }
        replaced = found
      }
      let mailbox = ActorMailbox(actor)
      mailboxes[key] = Entry(mailbox)
      return mailbox
    }
  }

  /// Runs `body` on the actor after everything submitted before it, unless the actor is gone.
  func submit(_ body: @escaping () -> Void) {
    let startsDrain = state.withLock { state in
      state.pending.append(body)
      defer { state.isDraining = true }
      return !state.isDraining
    }
    if startsDrain {
      Task { [self] in
        guard let actor else { return dropPending() }
        await drain(isolatedTo: actor)
      }
    }
  }

  /// Runs every pending delivery, outside the lock, until none is left.
  private func drain(isolatedTo actor: isolated any Actor) {
    while true {
      let batch = state.withLock { state in
        defer { state.pending = [] }
        if state.pending.isEmpty { state.isDraining = false }
        return state.pending
      }
      if batch.isEmpty { return }
      for body in batch { body() }
    }
  }

  /// Releases what waits for an actor that is gone, outside the lock: a delivery's closure may
  /// hold the last reference to something whose `deinit` is user code.
  private func dropPending() {
    let dropped = state.withLock { state in
      defer {
        state.pending = []
        state.isDraining = false
      }
      return state.pending
    }
    withExtendedLifetime(dropped) {}
  }
}
