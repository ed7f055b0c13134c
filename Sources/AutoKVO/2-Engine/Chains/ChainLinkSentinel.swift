/// What a chain link forwards to: the registration whose key path reaches the link's object.
protocol ChainLinkOwner: AnyObject {
  func linkedObjectWillChange() -> Any?
  func linkedObjectDidChange(token: Any?)
  /// An `@ObservedWeak` property of the linked object was zeroed: a change with no old value and
  /// no prior call (``ObservedSentinel/weakPropertyDidZero(of:_:values:)``).
  func linkedWeakPropertyDidZero()
  /// A set of the chain's leaf, whose values are the chain's own (``ChainLinkSentinel``'s
  /// `forwardsSetterValues`): the owner delivers them as they are, reading nothing.
  func linkedLeafDidSet(values: SetterValues)
  /// A change of the property the chain's evaluation reads last (``ChainLinkTarget/isLastRead``):
  /// the owner reads its key path again, and discovers nothing, since nothing the evaluation
  /// read after it could depend on it.
  func linkedLastReadDidChange(token: Any?)
  /// Whether ``linkedLeafDidSet(values:)`` may read the old value of the values it is lent.
  var readsLeafSetterOldValue: Bool { get }
}

extension ChainLinkOwner {
  /// An owner that attaches no link forwarding setter values handles a leaf's set as any change.
  func linkedLeafDidSet(values: SetterValues) {
    linkedObjectDidChange(token: nil)
  }

  /// An owner that attaches no link on a last read handles its change as any change.
  func linkedLastReadDidChange(token: Any?) {
    linkedObjectDidChange(token: token)
  }

  /// An owner that reads no old value before a change handles a zeroing as any change.
  func linkedWeakPropertyDidZero() {
    linkedObjectDidChange(token: nil)
  }

  /// An owner that attaches no link forwarding setter values reads none of them.
  var readsLeafSetterOldValue: Bool { false }
}

/// A link of a key-path chain: an internal registration, with no observer side, on one object the
/// chain goes through, which forwards that object's changes to the registration that owns the
/// chain. Engine objects are linked by a ``ChainLinkSentinel``; on Apple platforms an `NSObject`
/// is linked by a Foundation registration (`FoundationChainLink`).
protocol ChainLink: AnyObject {
  /// The link's own registration: its owner ends it when the chain no longer needs it.
  var observation: KeyValueObservation { get }
  /// The object this link forwards changes of, while it is alive.
  var currentTarget: AnyObject? { get }
  /// What of its object the link observes.
  var linkedKey: ChainLinkKey { get }
  /// Whether the link is on the chain's leaf (``ChainLinkTarget/isLeaf``).
  var isLeaf: Bool { get }
  /// Whether the link is on the property the chain's evaluation reads last
  /// (``ChainLinkTarget/isLastRead``).
  var isLastRead: Bool { get }
}

extension ChainLink {
  var isLeaf: Bool { false }
  var isLastRead: Bool { false }
}

/// What a chain link observes of its object.
enum ChainLinkKey: Equatable {
  /// `@Observed` properties (and declared dependencies) of an engine object, by key path.
  case properties([AnyKeyPath])
  /// One key of an object observed with Foundation's key-value observing.
  case foundationKey(String)
  /// The manual changes of an engine object from which the path goes on through a read no
  /// `@Observed` property explains (``HandNotifiedHopWatch``).
  case manualChanges
}

/// One link a chain needs after an evaluation: an object and what of it to observe.
struct ChainLinkTarget {
  let object: AnyObject
  let key: ChainLinkKey
  /// Whether the chain is nothing but `@Observed` stored properties and `key` is its last one
  /// (``Dependencies/markLeaf(of:accesses:)``): a set of it changes the chain's value by what it
  /// stores, and nothing else about the chain.
  var isLeaf = false
  /// Whether `key` is the one property of `object` the chain's evaluation reads, and it reads it
  /// last (``Dependencies/markLastRead(accesses:)``): a change of it changes nothing about which
  /// objects the chain goes through, so the owner reads the key path again and discovers nothing.
  var isLastRead = false
}

/// The replacement of a chain's links after each evaluation, shared by every kind of chain.
enum ChainLinks {
  /// Keeps the links of `links` that still match a target and attaches one for each other
  /// target, in the targets' order; returns the links no target matches, for the caller to end,
  /// the links it attached, and the targets loaded from the old links, for the caller to release.
  ///
  /// Called under the owner's lifecycle lock, where the engine may take registry locks
  /// (attaching new links) but never another lifecycle lock, so the retired links are ended after
  /// it is released. The old links' targets, loaded from weak references, are returned so that
  /// they are released after the lock too: a target that died on another thread meanwhile would
  /// otherwise be released here, its deinit (user code, and its registry's deinit, which takes
  /// lifecycle locks) running under the lock.
  static func replace(
    _ links: inout [any ChainLink],
    with targets: [ChainLinkTarget],
    attach: (ChainLinkTarget) -> any ChainLink
  ) -> (retired: [any ChainLink], attached: [any ChainLink], loadedTargets: [AnyObject?]) {
    let loadedTargets = links.map(\.currentTarget)
    // The same links in the same order, the usual case after a change of the chain's last
    // object: nothing to replace.
    if links.count == targets.count,
      links.indices.allSatisfy({ isLink(links[$0], on: loadedTargets[$0], for: targets[$0]) })
    {
      return ([], [], loadedTargets)
    }
    var retired = links
    var retiredTargets = loadedTargets
    var kept: [any ChainLink] = []
    var attached: [any ChainLink] = []
    for target in targets {
      if let index = retired.indices.first(where: {
        isLink(retired[$0], on: retiredTargets[$0], for: target)
      }) {
        kept.append(retired.remove(at: index))
        retiredTargets.remove(at: index)
      } else {
        let link = attach(target)
        kept.append(link)
        attached.append(link)
      }
    }
    links = kept
    return (retired, attached, loadedTargets)
  }

  /// Whether `link`, whose target is `loaded` (loaded from its weak reference), is the link
  /// `target` needs.
  private static func isLink(
    _ link: any ChainLink, on loaded: AnyObject?, for target: ChainLinkTarget
  ) -> Bool {
    loaded === target.object && link.linkedKey == target.key && link.isLeaf == target.isLeaf
      && link.isLastRead == target.isLastRead
  }
}

/// The observed-side sentinel of an internal registration on an intermediate object of a
/// key-path chain (the dog in `\.dog.name`), which forwards that object's changes to the
/// registration that owns it.
///
/// Its owner ends it when the chain no longer reaches its object, or when the owner itself ends;
/// the intermediate object's registry ends it when that object is deallocated. The path is not read
/// then: an object held by a declared hop dies only after its replacement was notified (or, held by
/// an `@ObservedWeak` property, its death is that property's change), and reading the path from
/// inside a write of a plain property that held it would be an exclusivity violation. The owner
/// evaluates its path again at the next change of a hop before the object. It has no observer side.
final class ChainLinkSentinel: ObservedSentinel, ChainLink,
  @unchecked Sendable  // immutable; weak loads are atomic
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

  let isLeaf: Bool

  let isLastRead: Bool

  /// Whether a set of the linked property hands its values to the owner as the chain's own
  /// (``ChainLinkOwner/linkedLeafDidSet(values:)``), so that nothing is read before or after it:
  /// the link is the leaf's, and the owner delivers on the setting thread and sends no prior call.
  /// A change that is not a set (a manual or a collection change) is forwarded as any other.
  private let forwardsSetterValues: Bool

  private init(
    target: any KeyValueObservable,
    keyPaths: [AnyKeyPath],
    isLeaf: Bool,
    isLastRead: Bool,
    forwardsSetterValues: Bool,
    owner: any ChainLinkOwner
  ) {
    self.observation = KeyValueObservation()
    self.target = target
    self.owner = owner
    self.linkedKeyPaths = keyPaths
    self.isLeaf = isLeaf
    self.isLastRead = isLastRead
    self.forwardsSetterValues = forwardsSetterValues
  }

  /// Creates a link observing `keyPaths` of `target` and attaches it to the target's registry.
  /// `forwardsSetterValues`: see the property; only for a leaf's link.
  static func attach(
    to target: any KeyValueObservable,
    keyPaths: [AnyKeyPath],
    isLeaf: Bool = false,
    isLastRead: Bool = false,
    forwardsSetterValues: Bool = false,
    owner: any ChainLinkOwner
  ) -> ChainLinkSentinel {
    precondition(isLeaf || !forwardsSetterValues, "only a leaf's link forwards setter values")
    let registry = target.observationRegistry
    let link = ChainLinkSentinel(
      target: target, keyPaths: keyPaths, isLeaf: isLeaf, isLastRead: isLastRead,
      forwardsSetterValues: forwardsSetterValues, owner: owner)
    link.observation.attach(link, to: registry, observerRegistry: nil)
    return link
  }

  var currentTarget: AnyObject? {
    target
  }

  var linkedKey: ChainLinkKey {
    .properties(linkedKeyPaths)
  }

  var primaryKeyPath: AnyKeyPath? {
    linkedKeyPaths[0]
  }

  func isTriggered(by keyPath: AnyKeyPath) -> Bool {
    linkedKeyPaths.contains { $0.matches(keyPath) }
  }

  var isTriggeredByPrimaryKeyPathOnly: Bool {
    linkedKeyPaths.count == 1
  }

  func willChange(of object: AnyObject, _ change: ChangeDescriptor) -> Any? {
    // A retired link may still be in a change's snapshot: the chain no longer goes through this
    // object, so its changes no longer concern the owner.
    guard observation.isActive else { return nil }
    return owner?.linkedObjectWillChange()
  }

  func didChange(of object: AnyObject, _ change: ChangeDescriptor, token: Any?) {
    guard observation.isActive, let owner else { return }
    if isLastRead {
      owner.linkedLastReadDidChange(token: token)
    } else {
      owner.linkedObjectDidChange(token: token)
    }
  }

  var needsNoticeBeforeSet: Bool {
    !forwardsSetterValues
  }

  /// The leaf's link lends the setter's values to its owner, which may read the old one.
  var readsSetterOldValue: Bool {
    forwardsSetterValues && owner?.readsLeafSetterOldValue == true
  }

  func willSet(of object: AnyObject, _ snapshot: PropertySnapshot) -> Any? {
    guard !forwardsSetterValues else { return nil }
    return willChange(of: object, .setting(snapshot.keyPath))
  }

  func didSet(
    of object: AnyObject, _ snapshot: PropertySnapshot, token: Any?, values: SetterValues
  ) {
    guard !forwardsSetterValues else { return didSetLeaf(values) }
    didChange(of: object, .setting(snapshot.keyPath), token: token)
  }

  func didSet(of object: AnyObject, _ snapshot: PropertySnapshot, values: SetterValues) {
    guard !forwardsSetterValues else { return didSetLeaf(values) }
    didChange(of: object, .setting(snapshot.keyPath), token: nil)
  }

  func weakPropertyDidZero(of object: AnyObject, _ keyPath: AnyKeyPath, values: SetterValues) {
    guard !forwardsSetterValues else { return didSetLeaf(values) }
    guard observation.isActive else { return }
    owner?.linkedWeakPropertyDidZero()
  }

  private func didSetLeaf(_ values: SetterValues) {
    guard observation.isActive else { return }
    owner?.linkedLeafDidSet(values: values)
  }
}
