/// What a chain link forwards to: the registration whose key path reaches the link's object.
protocol ChainLinkOwner: AnyObject {
  func linkedObjectWillChange() -> Any?
  func linkedObjectDidChange(token: Any?)
  func linkedObjectIsDeallocating()
}

/// The observed-side sentinel of an internal registration on an intermediate object of a
/// key-path chain (the dog in `\.dog.name`), which forwards that object's changes to the
/// registration that owns it.
///
/// Its owner ends it when the chain no longer reaches its object, or when the owner itself ends;
/// the intermediate object's registry ends it when that object is deallocated, and the owner then
/// evaluates its key path again. It has no observer side.
final class ChainLinkSentinel: ObservedSentinel,
  @unchecked Sendable  // immutable after init; weak references load atomically
{
  let observation: KeyValueObservation

  /// Weak: nothing guarantees the target outlives the link (an intermediate object can die at
  /// any time, on any thread), and a link never keeps it alive. A weak load answers `nil` from the
  /// moment the target's deallocation begins, so a dying target never matches a new evaluation.
  /// An unowned count (`ObjectReference`) would do the same and keep a dead target's memory until
  /// the link goes; links are few (one per object a chain goes through), so the side table a weak
  /// reference costs the target does not matter.
  private weak var target: (any KeyValueObservable)?

  /// Weak: the owner holds its links strongly and ends them from its `deinit`, but a change whose
  /// snapshot holds this link may reach it on another thread while the owner is being
  /// deallocated; the weak load then answers `nil` and the change is dropped.
  private weak var owner: (any ChainLinkOwner)?

  /// The key paths of `target` this link forwards; the first is its primary key path.
  private let linkedKeyPaths: [AnyKeyPath]

  private init(target: any KeyValueObservable, keyPaths: [AnyKeyPath], owner: any ChainLinkOwner) {
    self.observation = KeyValueObservation()
    self.target = target
    self.owner = owner
    self.linkedKeyPaths = keyPaths
  }

  /// Creates a link for `target` and attaches it to the target's registry.
  static func attach(
    to target: Dependencies.LinkTarget,
    owner: any ChainLinkOwner
  ) -> ChainLinkSentinel {
    let registry = target.object.observationRegistry
    let link = ChainLinkSentinel(target: target.object, keyPaths: target.keyPaths, owner: owner)
    link.observation.attachUnpublished(observedRegistry: registry, observerRegistry: nil)
    registry.attach(link)
    return link
  }

  /// The object this link forwards changes of, while it is alive.
  var currentTarget: AnyObject? {
    target
  }

  /// Whether this link already forwards exactly what `target` asks for, given its
  /// ``currentTarget`` as loaded by the caller (who decides where that reference is released).
  func matches(_ target: Dependencies.LinkTarget, currentTarget: AnyObject?) -> Bool {
    currentTarget === target.object && linkedKeyPaths == target.keyPaths
  }

  var primaryKeyPath: AnyKeyPath? {
    linkedKeyPaths[0]
  }

  func isTriggered(by keyPath: AnyKeyPath) -> Bool {
    linkedKeyPaths.contains { $0 == keyPath }
  }

  func willChange(of object: AnyObject, _ change: ChangeDescriptor) -> Any? {
    // A retired link may still be in a change's snapshot: the chain no longer goes through this
    // object, so its changes no longer concern the owner.
    guard observation.isActive else { return nil }
    return owner?.linkedObjectWillChange()
  }

  func didChange(of object: AnyObject, _ change: ChangeDescriptor, token: Any?) {
    guard observation.isActive else { return }
    owner?.linkedObjectDidChange(token: token)
  }

  func observedObjectIsDeallocating() {
    observation.end(.observedDeallocated)
    owner?.linkedObjectIsDeallocating()
  }
}
