import Dispatch
import _AutoKVOShims

/// Where a registration's handler runs.
///
/// `.synchronous` is KVO's rule: on the mutating thread, during the change. A registration made
/// with a delivery queue runs its handler on that queue: synchronously when the change happens
/// on it and none of the registration's earlier changes still waits there, otherwise
/// asynchronously there, in order. A registration made from an actor-isolated context runs its
/// handler on that actor, since the handler assumes it, also in order, one order for the actor.
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
      queue.run(body, isRegistrationCall: Self.takeRegistrationMark(of: queue))
    case .actor(let mailbox):
      if Self.takeRegistrationMark(of: mailbox) { return body() }
      mailbox.submit(body)
    }
  }

  /// Runs `body`, which makes the registration-time call (`.initial`) of the registration this
  /// delivery belongs to, marking this thread as making it.
  ///
  /// The first delivery `run` meanwhile on this thread is that call, whether the engine makes it
  /// or Foundation makes it inside `addObserver`, and it takes the mark. For an actor, it runs
  /// synchronously, before the registration returns, because the registering code runs isolated
  /// to the registration's actor (captured with `#isolation`), so it already is where the handler
  /// must run. For a queue, it runs synchronously when the registering code runs on the queue,
  /// even though changes of the registration wait there; otherwise it waits in the queue too. It
  /// is the registration's first delivery, whatever waits: a change made since the registration
  /// was attached came after the value it carries. Taken by that call, the mark does not cover
  /// what its handler sets: those changes go behind what waits.
  func whileRegistering<Result>(_ body: () -> Result) -> Result {
    let delivery: AnyObject
    switch self {
    case .synchronous: return body()
    case .queue(let queue): delivery = queue
    case .actor(let mailbox): delivery = mailbox
    }
    let previous = autokvo_registering_delivery()
    autokvo_set_registering_delivery(Unmanaged.passUnretained(delivery).toOpaque())
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
