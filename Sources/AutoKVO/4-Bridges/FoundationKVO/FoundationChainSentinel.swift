/// The observed-side sentinel of a registration whose key path has several keys through objects
/// observed with Foundation's key-value observing (`\.currentItem?.status`,
/// `"currentItem.status"`): it holds one ``FoundationChainLink`` per key, each a one-key
/// registration on the object it observes, and moves them as the path's objects change.
///
/// It is the owner of its links as a portable registration is of its ``ChainLinkSentinel``s, with
/// the same ``ChainLinks`` replacement; what differs is how the path is read: one key at a time,
/// with the platform's key-value coding, instead of under a recorder. A path may start with a
/// ``ChainHead`` of `@Observed` properties of a ``KeyValueObservable`` root, read under a recorder
/// and linked with ``ChainLinkSentinel``s, before its Foundation keys.
///
/// The root's registry (its stand-in's, or its own for a ``KeyValueObservable`` root) owns it; no
/// change the engine posts triggers it, not even on the root: the head's properties there are
/// linked like those of any other object. When the root or the observer is deallocated the
/// registration ends, and its links end with it, each on the object it observes. When an
/// intermediate object is deallocated its link ends with it, and the path is read again: the leaf
/// is then absent.
// @unchecked Sendable: `links` is guarded by `observation`'s lock and the rest is immutable; the
// handler runs where `delivery` says.
final class FoundationChainSentinel<Observer: AnyObject, Root: AnyObject, Value>:
  ExternallyNotifiedSentinel,
  FoundationChainLinkOwner, @unchecked Sendable
{
  let observation = KeyValueObservation()

  /// Both sides, and the check every delivery passes, as for the handler's sentinel.
  private let gate: DeliveryGate
  private var root: Root? { gate.loadRoot(as: Root.self) }

  private let head: ChainHead<Root>
  private let keys: [String]
  private let options: ObservationOptions
  private let delivery: HandlerDelivery
  private let platform: any FoundationKeyObserving
  /// Reads the whole path from the root: the typed key path, or key-value coding's.
  private let evaluate: (Root) -> Value
  private let handler: (Observer, Root, KeyValueChange<Value>) -> Void

  /// Guarded by `observation`'s lock.
  private var links: [any ChainLink] = []

  /// The whole path, for a chain from an `NSObject` root; `nil` after an `@Observed` head, which
  /// Foundation's KVO does not observe.
  var foundationKeyPath: String? {
    head.name == nil ? keys.joined(separator: ".") : nil
  }
  /// For a handler that runs on a queue or an actor, where the path is read again after each
  /// change: the value the last reading found, the old value of the next change. Guarded by
  /// `observation`'s lock.
  var lastValue: Value?

  init(
    observer: Observer,
    root: Root,
    head: ChainHead<Root>,
    keys: [String],
    options: ObservationOptions,
    delivery: HandlerDelivery,
    platform: any FoundationKeyObserving,
    evaluate: @escaping (Root) -> Value,
    handler: @escaping (Observer, Root, KeyValueChange<Value>) -> Void
  ) {
    gate = DeliveryGate(observer: observer, root: root)
    self.head = head
    self.keys = keys
    self.options = options
    self.delivery = delivery
    self.platform = platform
    self.evaluate = evaluate
    self.handler = handler
  }

  deinit {
    // The registration has ended: its links end with it, outside every lock.
    for link in links {
      link.observation.end(.cancelled)
    }
    gate.release()
  }

  // MARK: ObservedSentinel: no change the engine posts concerns it.

  // MARK: FoundationChainLinkOwner

  func linkedObjectWillChange() -> Any? {
    guard options.contains(.old) || options.contains(.prior) else { return nil }
    guard delivery.isSynchronous else {
      schedulePriorCall()
      return nil
    }
    guard let root else { return nil }
    let oldValue = evaluate(root)
    if options.contains(.prior) {
      deliver(
        KeyValueChange(
          kind: .setting, oldValue: options.contains(.old) ? oldValue : nil, isPrior: true))
    }
    return options.contains(.old) ? oldValue as Any : nil
  }

  func linkedObjectDidChange(token: Any?) {
    guard delivery.isSynchronous else { return scheduleReading() }
    guard let root else { return }
    replaceLinks(root: root)
    var change = KeyValueChange<Value>(kind: .setting)
    if let token {
      change.oldValue = (token as! Value)
    }
    if options.contains(.new) {
      change.newValue = evaluate(root)
    }
    deliver(change)
  }

  func linkedObjectIsDeallocating() {
    // An object on the path is gone: the path now reads differently, typically to nil. Its old
    // value cannot be read any more.
    guard root != nil else { return }
    if options.contains(.prior) {
      deliver(KeyValueChange(kind: .setting, isPrior: true))
    }
    linkedObjectDidChange(token: nil)
  }

  // MARK: Links and delivery

  /// Reads the head, then the path one key at a time, and links each object it reaches, for the
  /// next key.
  ///
  /// `headRead` is the head as the caller just read it from `root`, if it did.
  func replaceLinks(
    root: Root,
    headRead: (start: AnyObject?, links: [ChainLinkTarget])? = nil
  ) {
    let (start, headLinks) = headRead ?? head.read(root)
    var targets = headLinks
    var object: AnyObject? = start
    for (index, key) in keys.enumerated() {
      guard let current = object else { break }
      targets.append(ChainLinkTarget(object: current, key: .foundationKey(key)))
      guard index < keys.count - 1 else { break }
      let value = platform.value(of: current, forKey: key)
      // A collection met after registration cannot be linked through: the leaf reads as absent
      // until the path leads elsewhere.
      object = isKeyValueCollection(value) ? nil : value.map { $0 as AnyObject }
    }
    let (retired, attached, targetsLoadedUnderLock) = observation.withLock {
      ChainLinks.replace(&links, with: targets) { target -> any ChainLink in
        switch target.key {
        case .foundationKey(let key):
          return FoundationChainLink.attach(
            to: target.object, key: key, owner: self, platform: platform)
        case .properties(let keyPaths):
          // The head's objects: `ChainHead` links only objects it read `@Observed` properties of.
          guard let object = target.object as? any KeyValueObservable else {
            preconditionFailure("an engine link on an object that is not observable: \(target)")
          }
          // Marked as the target is, so that the next reading finds the link it needs; this owner
          // handles a leaf's or a last read's change as any change.
          return ChainLinkSentinel.attach(
            to: object, keyPaths: keyPaths, isLeaf: target.isLeaf, isLastRead: target.isLastRead,
            owner: self)
        case .manualChanges:
          guard let object = target.object as? any KeyValueObservable else {
            preconditionFailure("an engine link on an object that is not observable: \(target)")
          }
          return HandNotifiedHopWatch.attach(to: object, owner: self)
        }
      }
    }
    withExtendedLifetime(targetsLoadedUnderLock) {}
    for link in retired {
      link.observation.end(.cancelled)
    }
    // Registering with Foundation may run the object's class methods (KVO asks about automatic
    // notification and dependent keys): after the lock, as all user code.
    for case let link as FoundationChainLink in attached {
      link.startObserving()
    }
  }

  /// Sends the prior call of a handler that runs on a queue or an actor: there, with the value
  /// the last reading of the path found as the old value.
  private func schedulePriorCall() {
    guard options.contains(.prior) else { return }
    delivery.run { [self] in
      var prior = KeyValueChange<Value>(kind: .setting, isPrior: true)
      if options.contains(.old) { prior.oldValue = observation.withLock { lastValue } }
      deliverNow(prior)
    }
  }

  /// Reads the path again where the handler runs, a queue or an actor, since its getters may
  /// assume it; moves the links, and delivers the change there, its old value the one the last
  /// reading found. The changes reach the queue or actor in order, so each reading follows the
  /// one before.
  private func scheduleReading() {
    delivery.run { [self] in
      guard observation.isActive, let root else { return }
      replaceLinks(root: root)
      let value = evaluate(root)
      let oldValue = observation.withLock {
        defer { lastValue = value }
        return lastValue
      }
      var change = KeyValueChange<Value>(kind: .setting)
      if options.contains(.old) { change.oldValue = oldValue }
      if options.contains(.new) { change.newValue = value }
      deliverNow(change)
    }
  }

  func deliver(_ change: KeyValueChange<Value>) {
    guard case .synchronous = delivery else {
      return delivery.run { self.deliverNow(change) }
    }
    deliverNow(change)
  }

  private func deliverNow(_ change: KeyValueChange<Value>) {
    gate.open(observation) { observer, root in handler(observer, root, change) }
  }
}
