import Dispatch

/// Where a registration's handler runs.
///
/// `.synchronous` is KVO's rule: on the mutating thread, during the change. A registration made
/// with a delivery queue runs its handler on that queue: synchronously when the change happens
/// on it, otherwise asynchronously there, in order. A registration made from an actor-isolated
/// context runs its handler on that actor, since the handler assumes it.
enum HandlerDelivery {
  case synchronous
  case queue(DispatchQueue)
  case actor(any Actor)

  /// The delivery for a handler registered with `queue`.
  static func resolve(queue: DispatchQueue) -> HandlerDelivery {
    .queue(DeliveryQueues.marked(queue))
  }

  /// The delivery for a handler registered from `isolation`: on that actor, or synchronously on
  /// the mutating thread when the registration was made from nonisolated code.
  static func resolve(isolation: (any Actor)?) -> HandlerDelivery {
    isolation.map { .actor($0) } ?? .synchronous
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
    case .actor(let actor):
      if actor === MainActor.shared {
        return HandlerDelivery.queue(DeliveryQueues.marked(.main)).run(body)
      }
      let transfer = DeliveryTransfer(body)
      Task { await transfer.run(isolatedTo: actor) }
    }
  }

  /// Whether the caller is already where the handler must run, so that a registration-time call
  /// (`.initial`) can be made synchronously.
  var isCurrent: Bool {
    switch self {
    case .synchronous: return true
    case .queue(let queue): return DeliveryQueues.isCurrent(queue)
    case .actor: return true  // autoObserve runs isolated to the registration's actor
    }
  }
}

/// Carries a delivery to the queue or actor where it runs.
// @unchecked Sendable: the closure is run once, on the handler's queue or actor, which is where
// the handler expects to run; the values it carries are the ones the handler receives.
final class DeliveryTransfer: @unchecked Sendable {
  let body: () -> Void

  init(_ body: @escaping () -> Void) {
    self.body = body
  }

  func run(isolatedTo actor: isolated any Actor) {
    body()
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
