import Foundation
import _AutoKVOShims

/// The owner of ``FoundationChainLink``s. Foundation's key-value observing does not tell when an
/// object on the path that a `weak` property held is deallocated, so a link whose object dies
/// tells its owner, which reads the path again: a path of Foundation keys is read with key-value
/// coding, outside any Swift property's write.
protocol FoundationChainLinkOwner: ChainLinkOwner {
  func linkedObjectIsDeallocating()
}

/// A link of a chain through an object observed with Foundation's key-value observing: one
/// registration for one key of that object, with no observer side, which forwards the key's
/// changes to the chain's owner.
///
/// The object's registry (its stand-in's) owns it, so the object's deallocation ends it, on the
/// deallocating thread; its owner ends it when the chain no longer goes through the object. Only
/// ever removed from Foundation by the object's own deallocation or by a thread holding the
/// object: a hop is never removed from another object's deallocation.
// @unchecked Sendable: `pendingTokens` is guarded by its lock; the rest is immutable after init,
// and weak references load atomically.
final class FoundationChainLink: ExternallyNotifiedSentinel, ChainLink, @unchecked Sendable {
  let observation = KeyValueObservation()

  /// Weak, for the reasons ``ChainLinkSentinel``'s target is.
  private weak var target: AnyObject?

  /// Weak: the owner holds its links strongly and ends them from its `deinit`; a notification
  /// may reach a link while its owner is being deallocated, and is then dropped.
  private weak var owner: (any FoundationChainLinkOwner)?

  private let key: String

  private let platform: any FoundationKeyObserving

  /// Undoes the Foundation registration on the live object. Written once, by
  /// ``startObserving()``, on the thread that attached the link, which holds it; read only by
  /// `deinit`, after the last release.
  private var detach: (@Sendable (AnyObject) -> Void)?

  /// The tokens of the prior notifications whose after notification has not come yet, per
  /// thread, innermost last: Foundation sends the two of one change on the changing thread, and
  /// a handler may change the key again in between (nested changes).
  private let pendingTokens = LockedValue<[(thread: UnsafeRawPointer, token: Any?)]>([])

  private init(
    target: AnyObject, key: String, owner: any FoundationChainLinkOwner,
    platform: any FoundationKeyObserving
  ) {
    self.target = target
    self.key = key
    self.owner = owner
    self.platform = platform
  }

  deinit {
    // Released outside every AutoKVO lock, after the registration ended. The strong load
    // succeeds only if the object has not begun deallocating, and then it cannot begin until the
    // reference is dropped; otherwise its own deallocation removes the Foundation registration.
    if let target, let detach { detach(target) }
  }

  /// Creates a link for `key` of `object` and attaches it to the object's registry; called under
  /// the chain's lifecycle lock, where it takes registry locks only. ``startObserving()``
  /// registers it with the platform after the lock is released.
  static func attach(
    to object: AnyObject,
    key: String,
    owner: any FoundationChainLinkOwner,
    platform: any FoundationKeyObserving
  ) -> FoundationChainLink {
    let link = FoundationChainLink(target: object, key: key, owner: owner, platform: platform)
    let registry = platform.registry(of: object)
    link.observation.attach(link, to: registry, observerRegistry: nil)
    return link
  }

  /// Registers the link with the platform (Foundation's `addObserver`), unless its object is gone
  /// or the link already ended. Called once, under no lock, by the thread that attached it.
  func startObserving() {
    guard observation.isActive, let target else { return }
    detach = platform.observe(target, key: key, for: self)
  }

  var currentTarget: AnyObject? {
    target
  }

  var linkedKey: ChainLinkKey {
    .foundationKey(key)
  }

  // No change the engine posts concerns a Foundation link: its changes come from the platform.
  func observedObjectIsDeallocating() {
    observation.end(.observedDeallocated)
    owner?.linkedObjectIsDeallocating()
  }

  /// Foundation's prior notification: the key is about to change.
  func objectWillChange() {
    // A retired link may still be registered for a moment: its changes no longer concern the
    // owner.
    guard observation.isActive else { return }
    let token = owner?.linkedObjectWillChange()
    let thread = autokvo_thread_identity()
    pendingTokens.withLock { $0.append((thread, token)) }
  }

  /// Foundation's after notification: the key changed.
  func objectDidChange() {
    let thread = autokvo_thread_identity()
    let token = pendingTokens.withLock { pending -> Any?? in
      guard let index = pending.lastIndex(where: { $0.thread == thread }) else { return nil }
      return pending.remove(at: index).token
    }
    guard observation.isActive else { return }
    owner?.linkedObjectDidChange(token: token ?? nil)
  }
}
