import Dispatch
import Foundation

/// Runs a handler on the actor it was registered from, when a change happens off that actor.
///
/// A handler closure written inside an actor-isolated context (a `@MainActor` view model, say)
/// assumes that actor, so AutoKVO never calls it from another thread: a change made on the main
/// thread is delivered synchronously, as usual; a change made elsewhere is delivered
/// asynchronously on the main queue (for the main actor, in order) or in a task on the actor.
// @unchecked Sendable: it carries the change to the registration's actor, where it alone is used;
// the values it holds are the ones the handler receives, as with any cross-thread KVO delivery.
final class IsolatedDelivery: @unchecked Sendable {
  private let body: () -> Void

  private init(_ body: @escaping () -> Void) {
    self.body = body
  }

  /// Calls `body` now when the current thread is `actor`'s, or schedules it there.
  static func run(on actor: any Actor, _ body: @escaping () -> Void) {
    if actor === MainActor.shared {
      if isOnMainQueue { return body() }
      let delivery = IsolatedDelivery(body)
      DispatchQueue.main.async { delivery.body() }
    } else {
      let delivery = IsolatedDelivery(body)
      Task { await delivery.run(isolatedTo: actor) }
    }
  }

  private func run(isolatedTo actor: isolated any Actor) {
    body()
  }

  /// Whether the caller runs on the main queue, the main actor's executor on every platform.
  ///
  /// Not `Thread.isMainThread`: a process may drain the main queue from another thread (the
  /// Linux test harness does), and the main actor is wherever the main queue runs.
  private static var isOnMainQueue: Bool {
    DispatchQueue.getSpecific(key: mainQueueMarker.key) != nil
  }

  private struct Marker: @unchecked Sendable {  // the key is immutable once set on the queue
    let key = DispatchSpecificKey<Void>()
  }

  private static let mainQueueMarker: Marker = {
    let marker = Marker()
    DispatchQueue.main.setSpecific(key: marker.key, value: ())
    return marker
  }()
}
