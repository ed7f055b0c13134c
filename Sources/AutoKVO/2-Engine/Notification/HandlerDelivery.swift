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
    // One mailbox for every registration made from the actor, so that one order holds across
    // them, as the main queue keeps one for the main actor.
    return .actor(ActorMailbox.shared(by: isolation))
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
      if Self.takeRegistrationMark(of: mailbox) { return body() }
      mailbox.submit(body)
    }
  }

  /// Runs `body`, which makes the registration-time call (`.initial`) of the registration this
  /// delivery belongs to, marking this thread as making it.
  ///
  /// The first delivery `run` meanwhile on this thread is that call, whether the engine makes it
  /// or Foundation makes it inside `addObserver`: it takes the mark, and runs synchronously, before
  /// the registration returns, because the registering code runs isolated to the registration's
  /// actor (captured with `#isolation`), so it already is where the handler must run. It is the
  /// registration's first delivery, whatever waits in the mailbox: a change made since the
  /// registration was attached came after the value it carries. Taken by that call, the mark does
  /// not cover what its handler sets: those changes go behind what waits. A queue needs no mark:
  /// `run` asks the queue itself.
  func whileRegistering<Result>(_ body: () -> Result) -> Result {
    guard case .actor(let mailbox) = self else { return body() }
    let previous = autokvo_registering_delivery()
    autokvo_set_registering_delivery(Unmanaged.passUnretained(mailbox).toOpaque())
    defer { autokvo_set_registering_delivery(previous) }
    return body()
  }

  /// Whether this thread is inside `whileRegistering(_:)` for `delivery` and has not run a
  /// delivery since; if so, the mark is taken (see `whileRegistering(_:)`).
  private static func takeRegistrationMark(of delivery: AnyObject) -> Bool {
    guard autokvo_registering_delivery() == Unmanaged.passUnretained(delivery).toOpaque() else {
      return false
    }
    autokvo_set_registering_delivery(nil)
    return true
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
