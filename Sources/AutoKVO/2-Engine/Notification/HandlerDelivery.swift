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
