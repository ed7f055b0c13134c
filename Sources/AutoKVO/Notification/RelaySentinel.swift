/// What a relay forwards to: the registration whose key path reaches the relay's object.
protocol RelayReceiver: AnyObject {
  func relayedWillChange() -> Any?
  func relayedDidChange(token: Any?)
  func relayedObjectIsDeallocating()
}

/// An internal registration on an intermediate object of a key-path chain (the dog in
/// `\.dog.name`), which forwards that object's changes to the registration that owns it.
///
/// Its registration owns it and ends it when the chain no longer reaches its object, or when the
/// registration itself ends; the intermediate object's registry ends it when that object is
/// deallocated, and the owner then re-evaluates its key path.
final class RelaySentinel: ObservedSentinel,
  @unchecked Sendable  // immutable after init; weak references load atomically
{
  /// Weak: a relay never keeps an intermediate object alive; compared by identity while alive.
  private weak var target: (any KeyValueObservable)?

  /// Weak: the owner holds its relays strongly, and ends them from its `deinit`.
  private weak var receiver: (any RelayReceiver)?

  /// The key paths of `target` this relay forwards; immutable, unlike a registration's triggers.
  private let relayedKeyPaths: [AnyKeyPath]

  private init(
    registry: ObservationRegistry,
    observation: KeyValueObservation,
    target: any KeyValueObservable,
    keyPaths: [AnyKeyPath],
    receiver: any RelayReceiver
  ) {
    self.target = target
    self.receiver = receiver
    self.relayedKeyPaths = keyPaths
    super.init(
      registry: registry,
      observation: observation,
      primaryKeyPath: keyPaths[0],
      extraTriggers: Array(keyPaths.dropFirst())
    )
  }

  /// Creates a relay for `target` and attaches it to the target's registry.
  static func attach(
    to target: Dependencies.RelayTarget,
    receiver: any RelayReceiver
  ) -> RelaySentinel {
    let registry = target.object.observationRegistry
    let observation = KeyValueObservation()
    let relay = RelaySentinel(
      registry: registry,
      observation: observation,
      target: target.object,
      keyPaths: target.keyPaths,
      receiver: receiver
    )
    observation.attachUnpublished(observed: relay, observer: nil)
    registry.attach(relay)
    return relay
  }

  /// The object this relay forwards changes of, while it is alive.
  var currentTarget: AnyObject? {
    target
  }

  /// Whether this relay already forwards exactly what `target` asks for, given its
  /// ``currentTarget`` as loaded by the caller (who decides where that reference is released).
  func matches(_ target: Dependencies.RelayTarget, currentTarget: AnyObject?) -> Bool {
    currentTarget === target.object && relayedKeyPaths == target.keyPaths
  }

  override func willChange(of object: AnyObject, _ change: ChangeDescriptor) -> Any? {
    // A retired relay may still be in a change's snapshot: the chain no longer goes through
    // this object, so its changes no longer concern the owner.
    guard observation.isActive else { return nil }
    return receiver?.relayedWillChange()
  }

  override func didChange(of object: AnyObject, _ change: ChangeDescriptor, token: Any?) {
    guard observation.isActive else { return }
    receiver?.relayedDidChange(token: token)
  }

  override func observedObjectIsDeallocating() {
    super.observedObjectIsDeallocating()
    receiver?.relayedObjectIsDeallocating()
  }
}
