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
  case queue(DeliveryQueue)
  case actor(ActorMailbox)

  /// Whether the handler runs on the mutating thread, during the change.
  var isSynchronous: Bool {
    if case .synchronous = self { return true }
    return false
  }

  /// The delivery for a handler registered with `queue`.
  @usableFromInline
  static func resolve(queue: DispatchQueue) -> HandlerDelivery {
    .queue(DeliveryQueue(queue))
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
      if queue.identity.isCurrent { return body() }
      let transfer = DeliveryTransfer(body)
      queue.queue.async { transfer.body() }
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

/// A queue a registration's handler runs on, with the identity that tells whether a block runs
/// on it. An object, so that a delivery stays one reference wide.
@usableFromInline
final class DeliveryQueue {
  let queue: DispatchQueue
  let identity: DeliveryQueueIdentity

  init(_ queue: DispatchQueue) {
    self.queue = queue
    identity = DeliveryQueueIdentity.of(queue)
  }
}

/// The identity of a dispatch queue used for delivery, which tells whether a running block runs
/// on that queue.
///
/// A `DispatchQueue` value is a wrapper: on Linux every `DispatchQueue.main` or `.global()` access
/// makes a new one around the same queue, and a freed wrapper's address is reused. So the identity
/// is an object of its own, stored in the queue itself as a queue-specific value the first time the
/// queue is used for delivery and read back by every later registration on it, whatever wrapper
/// it names the queue by. The queue keeps its identity alive, and so does every registration that
/// compares against it, so an identity is never freed while it may be compared: no other queue
/// can ever carry it, and no code outside this type can set it (the key is private).
@usableFromInline
final class DeliveryQueueIdentity: Sendable {
  private struct Key: @unchecked Sendable {  // immutable; DispatchSpecificKey is thread-safe
    let key = DispatchSpecificKey<DeliveryQueueIdentity>()
  }

  private static let key = Key()

  /// Serialises the read-then-store of a queue's identity, so that two registrations made at once
  /// on one queue agree on it.
  private static let marking = Lock()

  private init() {}

  /// The identity of `queue`, stored in it if it has none yet.
  static func of(_ queue: DispatchQueue) -> DeliveryQueueIdentity {
    // Read without the lock first: once stored, a queue's identity never changes.
    if let identity = queue.getSpecific(key: key.key) { return identity }
    return marking.withLock {
      if let identity = queue.getSpecific(key: key.key) { return identity }
      let identity = DeliveryQueueIdentity()
      queue.setSpecific(key: key.key, value: identity)
      return identity
    }
  }

  /// Whether the caller runs on the queue this identifies, or on a queue that targets it (as
  /// `dispatchPrecondition(condition: .onQueue(_:))` answers). For the main queue this is the
  /// main actor's executor on every platform, the main thread outside any queue included.
  var isCurrent: Bool {
    DispatchQueue.getSpecific(key: Self.key.key) === self
  }
}
