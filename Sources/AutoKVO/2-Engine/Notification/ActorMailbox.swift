import _AutoKVOShims

/// Runs deliveries isolated to one actor, in the order they were submitted, without keeping the
/// actor alive.
///
/// A task per delivery would reach the actor in no particular order. Instead, deliveries wait in
/// a list, and one task at a time drains it on the actor; a delivery submitted while a drain runs
/// joins the list that drain will take next. The actor is referenced weakly: an actor that
/// observes, or from whose method a registration was made, is freed when its last outside
/// reference goes, and what was still waiting for it is dropped. A drain holds it only while it
/// runs.
// @unchecked Sendable: `state` is behind its own lock, `actor` is a weak reference written only by
// the initializer (a weak load is atomic), and each closure is run once, on the actor, where its
// handler expects to run.
@usableFromInline
final class ActorMailbox: @unchecked Sendable {
  private weak var actor: (any Actor)?
  private let state = LockedValue(State())

  private struct State {
    var pending: [() -> Void] = []
    var isDraining = false
  }

  init(_ actor: any Actor) {
    self.actor = actor
  }

  /// Whether this thread is inside `HandlerDelivery.whileRegistering(_:)` for this mailbox.
  var isBeingRegisteredOnThisThread: Bool {
    autokvo_registering_delivery() == Unmanaged.passUnretained(self).toOpaque()
  }

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
