import Dispatch

/// The queue one registration's handler runs on, with the identity that tells whether a block runs
/// on it, and the count of that registration's deliveries still waiting in it. An object, so that
/// a delivery stays one reference wide; one per registration, or one shared by the registrations
/// of one `autoObserve(_:keyPaths:)` call, so that their changes keep their order on the queue.
// @unchecked Sendable: `waitingDeliveries` is guarded by `lock`; `queue` and `identity` are
// immutable. Each scheduled block runs once, on `queue`, where its handler expects to run.
@usableFromInline
final class DeliveryQueue: @unchecked Sendable {
  let queue: DispatchQueue
  let identity: DeliveryQueueIdentity
  private let lock = Lock()
  /// How many of this registration's deliveries are scheduled on `queue` and have not started.
  private var waitingDeliveries = 0

  init(_ queue: DispatchQueue) {
    self.queue = queue
    identity = DeliveryQueueIdentity.of(queue)
  }

  deinit {
    lock.destroy()
  }

  /// Runs `body` now, on this thread, when it runs on the queue (or on a queue that targets it)
  /// and nothing of this registration waits in the queue, or when `body` is the registration-time
  /// call made on the queue; otherwise schedules it on the queue, behind what waits there.
  ///
  /// A block that runs on the queue runs ahead of the deliveries scheduled after it started, and
  /// those may carry changes made before the one it makes now (set on another thread meanwhile):
  /// running `body` at once would overtake them. The registration-time call overtakes nothing of
  /// its own: a change scheduled since the registration was attached came after the value it
  /// carries.
  func run(_ body: @escaping () -> Void, isRegistrationCall: Bool) {
    let isOnQueue = identity.isCurrent
    let runsNow = lock.withLock {
      if isOnQueue, isRegistrationCall || waitingDeliveries == 0 { return true }
      waitingDeliveries += 1
      return false
    }
    if runsNow { return body() }
    let transfer = DeliveryTransfer { [self] in
      // Counted out before it runs: a change its handler makes on the queue, with nothing else of
      // this registration waiting, is delivered at once, inside it, as a synchronous one is.
      lock.withLock { waitingDeliveries -= 1 }
      body()
    }
    queue.async { transfer.body() }
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

/// The identity of a dispatch queue used for delivery, which tells whether a running block runs
/// on that queue or on a queue that targets it.
///
/// A `DispatchQueue` value is a wrapper: on Linux every `DispatchQueue.main` or `.global()` access
/// makes a new one around the same queue, and a freed wrapper's address is reused. So the identity
/// is an object of its own, stored in the queue itself as a queue-specific value the first time the
/// queue is used for delivery and read back by every later registration on it, whatever wrapper
/// it names the queue by. The queue keeps its identity alive, and so does every registration that
/// compares against it, so an identity is never freed while it may be compared: no other queue
/// can ever carry it, and no code outside this type can set it (the keys are private).
///
/// Each identity also marks its queue under a key of its own, which nothing else sets. A block
/// finds a queue-specific value by looking in its own queue, then in the queue that one targets,
/// and so on, and stops at the first queue that has one: under a key that every identity shared,
/// a queue A that targets B would hide B's identity from A's blocks as soon as any registration
/// used A for delivery. Under B's own key, A's blocks find B's mark whatever A carries, so whether
/// a block runs on B, or on a queue that targets it, never depends on other registrations.
@usableFromInline
final class DeliveryQueueIdentity: Sendable {
  private struct Key<Value>: @unchecked Sendable {  // immutable; DispatchSpecificKey is thread-safe
    let key = DispatchSpecificKey<Value>()
  }

  /// Finds a queue's identity from the queue: read from that queue alone, never from its targets.
  private static let identityKey = Key<DeliveryQueueIdentity>()

  /// Marks this identity's queue for `isCurrent`. The identity holds it, and the queue holds the
  /// identity, so the key lives as long as any queue carries it.
  private let ownKey = Key<Bool>()

  /// Serialises the read-then-store of a queue's identity, so that two registrations made at once
  /// on one queue agree on it.
  private static let marking = Lock()

  private init() {}

  /// The identity of `queue`, stored in it if it has none yet.
  static func of(_ queue: DispatchQueue) -> DeliveryQueueIdentity {
    // Read without the lock first: once stored, a queue's identity never changes.
    if let identity = queue.getSpecific(key: identityKey.key) { return identity }
    return marking.withLock {
      if let identity = queue.getSpecific(key: identityKey.key) { return identity }
      let identity = DeliveryQueueIdentity()
      // The mark first: whoever finds the identity can then find its mark.
      queue.setSpecific(key: identity.ownKey.key, value: true)
      queue.setSpecific(key: identityKey.key, value: identity)
      return identity
    }
  }

  /// Whether the caller runs on the queue this identifies, or on a queue that targets it (as
  /// `dispatchPrecondition(condition: .onQueue(_:))` answers), whatever other identities the
  /// queues between carry. For the main queue this is the main actor's executor on every
  /// platform, the main thread outside any queue included.
  var isCurrent: Bool {
    DispatchQueue.getSpecific(key: ownKey.key) != nil
  }
}
