import Dispatch
import _AutoKVOShims

/// Where a registration's handler runs.
///
/// `.synchronous` is KVO's rule: on the mutating thread, during the change. A registration made
/// with a delivery queue runs its handler on that queue: synchronously when the change happens
/// on it, otherwise asynchronously there, in order. A registration made from an actor-isolated
/// context runs its handler on that actor, since the handler assumes it, also in order.
@usableFromInline
enum HandlerDelivery {
  case synchronous
  case queue(DispatchQueue)
  case actor(ActorMailbox)

  /// Whether the handler runs on the mutating thread, during the change.
  var isSynchronous: Bool {
    if case .synchronous = self { return true }
    return false
  }

  /// The delivery for a handler registered with `queue`.
  @usableFromInline
  static func resolve(queue: DispatchQueue) -> HandlerDelivery {
    .queue(DeliveryQueues.marked(queue))
  }

  /// The delivery for a handler registered from `isolation`: on that actor, or synchronously on
  /// the mutating thread when the registration was made from nonisolated code.
  @usableFromInline
  static func resolve(isolation: (any Actor)?) -> HandlerDelivery {
    guard let isolation else { return .synchronous }
    // The main actor runs wherever the main queue runs, and that queue already keeps order.
    if isolation === MainActor.shared { return .resolve(queue: .main) }
    return .actor(ActorMailbox(isolation))
  }

  /// Runs `body` now when the caller is already where the handler must run, or schedules it.
  func run(_ body: @escaping () -> Void) {
    switch self {
    case .synchronous:
      body()
    case .queue(let queue):
      if DeliveryQueues.isCurrent(queue) { return body() }
      let transfer = DeliveryTransfer(body)
      queue.async { transfer.body() }
    case .actor(let mailbox):
      if mailbox.isBeingRegisteredOnThisThread { return body() }
      mailbox.submit(body)
    }
  }

  /// Runs `body`, the registration this delivery belongs to, marking this thread as making it.
  ///
  /// Deliveries `run` meanwhile on this thread — the registration-time (`.initial`) call, whether
  /// the engine makes it or Foundation makes it inside `addObserver` — run synchronously, before
  /// the registration returns: the registering code runs isolated to the registration's actor
  /// (captured with `#isolation`), so it already is where the handler must run. A queue needs no
  /// mark: `run` asks the queue itself.
  func whileRegistering<Result>(_ body: () -> Result) -> Result {
    guard case .actor(let mailbox) = self else { return body() }
    let previous = autokvo_registering_delivery()
    autokvo_set_registering_delivery(Unmanaged.passUnretained(mailbox).toOpaque())
    defer { autokvo_set_registering_delivery(previous) }
    return body()
  }
}

/// Carries a delivery to the queue where it runs.
// @unchecked Sendable: the closure is run once, on the handler's queue, which is where the
// handler expects to run; the values it carries are the ones the handler receives.
final class DeliveryTransfer: @unchecked Sendable {
  let body: () -> Void

  init(_ body: @escaping () -> Void) {
    self.body = body
  }
}

/// Runs deliveries isolated to one actor, in the order they were submitted.
///
/// A task per delivery would reach the actor in no particular order. Instead, deliveries wait in
/// a list, and one task at a time drains it on the actor; a delivery submitted while a drain runs
/// joins the list that drain will take next.
// @unchecked Sendable: `state` is behind its own lock, `actor` is immutable, and each closure is
// run once, on the actor, where its handler expects to run.
@usableFromInline
final class ActorMailbox: @unchecked Sendable {
  private let actor: any Actor
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
      Task { [self] in await drain(isolatedTo: actor) }
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
}

/// Recognises delivery queues: each queue used for delivery is marked with a queue-specific
/// value, its own identity, so a running block can tell whether it runs on that queue. The
/// identity is only compared while the registration holds the queue, so it cannot be reused.
enum DeliveryQueues {
  private struct Key: @unchecked Sendable {  // immutable; DispatchSpecificKey is thread-safe
    let key = DispatchSpecificKey<ObjectIdentifier>()
  }

  private static let key = Key()

  static func marked(_ queue: DispatchQueue) -> DispatchQueue {
    queue.setSpecific(key: key.key, value: ObjectIdentifier(queue))
    return queue
  }

  /// Whether the caller runs on `queue`. For the main queue this is the main actor's executor on
  /// every platform — not always the process's main thread (the Linux test harness drains the
  /// main queue from another thread).
  static func isCurrent(_ queue: DispatchQueue) -> Bool {
    DispatchQueue.getSpecific(key: key.key) == ObjectIdentifier(queue)
  }
}
