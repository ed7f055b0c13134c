/// A link of a key-path chain on an object from which the path reaches another through a read no
/// `@Observed` property explains (`\.leaf?.value`, `leaf` a plain `weak var`): it watches the
/// object's manual changes for the one that replaces the hop, as KVO code notifies a custom or
/// `weak` hop by hand, and forwards that change to the registration that owns the chain.
///
/// A manual change of `keyPath` may be the hop's when the object's `keyPath` holds an object, or
/// `nil`, when the change begins: the object the path reaches through the hop, or the first object
/// of a hop through several (`\.holder?.leaf?.value`, `holder` and `leaf` both plain). Checked by
/// reading that key path, which the class notifies, and nothing else; a change of a property that
/// holds a value of another kind (a number, a string, a collection) is never the hop's. A manual
/// change that only may be the hop's reads the path again, and may then deliver a change whose old
/// and new values are equal, as KVO delivers every manual change.
/// Once a change has shown the hop, the owner's next evaluation finds the key path among those the
/// object notified by hand (`Dependencies.followUnobservedHops`) and links it as it links
/// an `@Observed` hop, which ends this watch.
///
/// Its owner ends it when the chain no longer goes through the hop, or when the owner itself ends;
/// the watched object's registry ends it when that object is deallocated. It has no observer side.
final class HandNotifiedHopWatch: ObservedSentinel, ChainLink,
  @unchecked Sendable  // immutable; weak loads are atomic
{
  let observation = KeyValueObservation()

  /// Weak, as a ``ChainLinkSentinel``'s target: the watch never keeps its object alive.
  private weak var target: (any KeyValueObservable)?

  /// Weak, as a ``ChainLinkSentinel``'s owner.
  private weak var owner: (any ChainLinkOwner)?

  private init(target: any KeyValueObservable, owner: any ChainLinkOwner) {
    self.target = target
    self.owner = owner
  }

  /// Creates a watch of `target`'s manual changes for an unobserved hop of its owner's path, and
  /// attaches it to the target's registry.
  static func attach(
    to target: any KeyValueObservable,
    owner: any ChainLinkOwner
  ) -> HandNotifiedHopWatch {
    let watch = HandNotifiedHopWatch(target: target, owner: owner)
    watch.observation.attach(watch, to: target.observationRegistry, observerRegistry: nil)
    return watch
  }

  var currentTarget: AnyObject? {
    target
  }

  var linkedKey: ChainLinkKey {
    .manualChanges
  }

  var primaryKeyPath: AnyKeyPath? { nil }

  /// Every manual change of the object may be the hop's: ``willChange(of:_:)`` tells.
  func isTriggered(by keyPath: AnyKeyPath) -> Bool { true }

  /// An `@Observed` property's set is never the hop: the path's reads would have recorded it.
  var needsNoticeBeforeSet: Bool { false }

  func didSet(
    of object: AnyObject, _ snapshot: PropertySnapshot, token: Any?, values: SetterValues
  ) {}

  func didSet(of object: AnyObject, _ snapshot: PropertySnapshot, values: SetterValues) {}

  /// What ``willChange(of:_:)`` answers for the hop's change: the owner's own token, boxed, so
  /// that a change that is not the hop's (answered `nil`) is told apart from it.
  private struct Forwarded {
    let token: Any?
  }

  func willChange(of object: AnyObject, _ change: ChangeDescriptor) -> Any? {
    guard observation.isActive, case .setting = change.kind, let target,
      let held = target[keyPath: change.keyPath]
    else { return nil }
    switch DependencyRecorder.ReturnedValue(of: held) {
    case .object, .none: break
    case .noReference, .compositeValue: return nil
    }
    guard let owner else { return nil }
    return Forwarded(token: owner.linkedObjectWillChange())
  }

  func didChange(of object: AnyObject, _ change: ChangeDescriptor, token: Any?) {
    guard observation.isActive, let forwarded = token as? Forwarded else { return }
    owner?.linkedObjectDidChange(token: forwarded.token)
  }
}
