/// The observed-side sentinel of a user's registration: evaluates the registered key path and
/// calls the handler with the observer, the object and a ``KeyValueChange``.
///
/// When the key path is more than one stored `@Observed` property — a computed property or a
/// chain through other objects — its dependencies are discovered again after every change, and
/// `RelaySentinel`s on the other objects it reaches forward their changes here.
// @unchecked Sendable: `uncommon.relays` is guarded by `observation`'s lock and the rest is
// immutable; the handler, which need not be Sendable, runs where `delivery` says, as KVO's run on
// the mutating thread.
final class TypedObservedSentinel<Observer: AnyObject, Object: KeyValueObservable, Value>:
  ObservedSentinel, RelayReceiver, @unchecked Sendable
{
  /// Notification must never reach an observer that is being deallocated, possibly on another
  /// thread; the reference yields `nil` from the moment its `deinit` begins (see
  /// `ObjectReference`).
  private let observerReference: ObjectReference

  /// The observed object, held the same way: a set made inside the observed object's own
  /// `deinit`, or a registration made there with `.initial`, must not hand the dying object to a
  /// handler, which could keep it past its deallocation; the object's registry, and with it this
  /// registration, outlives the object's `deinit` body, so the registration alone cannot tell.
  /// Also the root from which relayed changes re-read the key path.
  private let rootReference: ObjectReference

  /// The observer, retained, unless its deallocation has begun.
  private var observer: Observer? { observerReference.load(as: Observer.self) }

  /// The observed object, retained, unless its deallocation has begun.
  private var root: Object? { rootReference.load(as: Object.self) }

  private let keyPath: KeyPath<Object, Value>
  private let options: ObservationOptions
  /// The user's handler behind an adapter that builds the change (see `HandlerInput`).
  private let handler: (Observer, Object, HandlerInput) -> Void

  /// What only some registrations need, out of line: `nil` for a handler that runs synchronously
  /// on a single stored property, the common case, whose sentinel then fits a 112-byte heap block
  /// instead of a 144-byte one (Docs/Performance.md).
  private let uncommon: Uncommon?

  private final class Uncommon {
    /// Where the handler runs (see `HandlerDelivery`).
    let delivery: HandlerDelivery
    /// Whether the key path is more than one stored property, so that its dependencies are
    /// discovered again after every change.
    let rediscovers: Bool
    /// The relays this registration placed on other objects. Guarded by `observation`'s lock.
    var relays: [RelaySentinel] = []

    init(delivery: HandlerDelivery, rediscovers: Bool) {
      self.delivery = delivery
      self.rediscovers = rediscovers
    }
  }

  /// Where the handler runs (see `HandlerDelivery`).
  private var delivery: HandlerDelivery {
    uncommon?.delivery ?? .synchronous
  }

  private var rediscovers: Bool {
    uncommon?.rediscovers ?? false
  }

  init(
    registry: ObservationRegistry,
    observation: KeyValueObservation,
    observer: Observer,
    root: Object,
    keyPath: KeyPath<Object, Value>,
    options: ObservationOptions,
    dependencies: Dependencies,
    delivery: HandlerDelivery,
    handler: @escaping (Observer, Object, HandlerInput) -> Void
  ) {
    observerReference = ObjectReference(observer)
    rootReference = ObjectReference(root)
    self.keyPath = keyPath
    self.options = options
    if case .synchronous = delivery, !dependencies.needsRediscovery {
      self.uncommon = nil
    } else {
      self.uncommon = Uncommon(delivery: delivery, rediscovers: dependencies.needsRediscovery)
    }
    self.handler = handler
    super.init(
      registry: registry,
      observation: observation,
      primaryKeyPath: dependencies.rootTriggers[0],
      extraTriggers: Array(dependencies.rootTriggers.dropFirst())
    )
  }

  deinit {
    // The registration has ended (this sentinel is only released after its registry let it go):
    // its relays on other objects end with it. Runs outside every lock.
    for relay in uncommon?.relays ?? [] {
      relay.observation.end(.cancelled)
    }
    observerReference.release()
    rootReference.release()
  }

  /// Places relays on the other objects the key path reaches. Called once, after attaching.
  func installRelays(for dependencies: Dependencies) {
    guard rediscovers, let root else { return }
    replaceRelays(with: dependencies, root: root)
  }

  /// Delivers the registration-time call requested with `.initial`. Called inside `autoObserve`,
  /// as part of the registration: synchronously, unless the handler must run on a queue the
  /// caller is not on (the rule is `HandlerDelivery.whileRegistering(_:)`'s, shared with the
  /// Foundation path).
  func deliverInitial(currentValue: Value) {
    let newValue = options.contains(.new) ? currentValue : nil
    let change = KeyValueChange(kind: .setting, newValue: newValue)
    delivery.whileRegistering { deliver(change) }
  }

  override func willChange(of object: AnyObject, _ change: ChangeDescriptor) -> Any? {
    let root = unsafeDowncast(object, to: Object.self)
    return willChange(root: root, collection: collectionChange(change))
  }

  override func didChange(of object: AnyObject, _ change: ChangeDescriptor, token: Any?) {
    let root = unsafeDowncast(object, to: Object.self)
    didChange(root: root, collection: collectionChange(change), token: token)
  }

  /// A registration on exactly the property being set (one that does not rediscover its
  /// dependencies is triggered by no other set) takes the setter's values in ``didSet``: it
  /// reads nothing before the change unless it sends a prior call.
  override var needsNoticeBeforeSet: Bool {
    rediscovers || options.contains(.prior)
  }

  override func willSet(of object: AnyObject, _ property: ObservedProperty) -> Any? {
    guard needsNoticeBeforeSet else { return nil }
    return willChange(of: object, .setting(property.keyPath))
  }

  override func didSet(
    of object: AnyObject,
    _ property: ObservedProperty,
    token: Any?,
    values: SetterValues
  ) {
    guard !rediscovers, values.valueType == Value.self else {
      return didChange(of: object, .setting(property.keyPath), token: token)
    }
    guard case .synchronous = delivery else {
      return scheduleSetterChange(values)
    }
    // Only raw pointers and the value type's identity are handled here: this code runs
    // unspecialized, and the handler's adapter builds the change where it is specialized.
    guard observation.isActive, let observer, let root else { return }
    let input = HandlerInput(
      oldValue: options.contains(.old) ? values.oldValue : nil,
      newValue: options.contains(.new) ? values.newValue : nil)
    handler(observer, root, input)
  }

  /// Schedules the delivery of a set's change on the registration's queue or actor. The values
  /// are lent for the duration of `didSet` only, so the change that carries them is built now.
  /// Out of line: a `KeyValueChange<Value>` local anywhere in `didSet` would cost it a run-time
  /// metadata look-up on every call, delivered synchronously or not.
  @inline(never)
  private func scheduleSetterChange(_ values: SetterValues) {
    var change = KeyValueChange<Value>(kind: .setting)
    if options.contains(.old) {
      change.oldValue = values.oldValue.assumingMemoryBound(to: Value.self).pointee
    }
    if options.contains(.new) {
      change.newValue = values.newValue.assumingMemoryBound(to: Value.self).pointee
    }
    deliver(change)
  }

  // MARK: RelayReceiver

  func relayedWillChange() -> Any? {
    guard let root else { return nil }
    return willChange(root: root, collection: nil)
  }

  func relayedDidChange(token: Any?) {
    guard let root else { return }
    didChange(root: root, collection: nil, token: token)
  }

  func relayedObjectIsDeallocating() {
    // An object the key path went through is gone (it was referenced weakly): the path now
    // evaluates differently, typically to nil. Its old value cannot be read any more.
    guard let root else { return }
    if options.contains(.prior) {
      deliver(KeyValueChange(kind: .setting, isPrior: true))
    }
    didChange(root: root, collection: nil, token: nil)
  }

  // MARK: Delivery
  //
  // This code runs unspecialized (the sentinel is created inside the generic `autoObserve`), so
  // every generic local it declares costs a run-time metadata look-up of its type on every call,
  // wherever the local is used: the optimizer hoists their stack allocations to the function's
  // entry, and a generic `Optional.map` adds more. The paths every plain set takes therefore
  // build one `KeyValueChange<Value>` field by field (two look-ups: it and `Value?`), and what only
  // prior calls, collection changes, rediscovery and queued delivery need lives in functions of
  // its own. Docs/Performance.md has the profile.

  private func collectionChange(_ change: ChangeDescriptor) -> ChangeDescriptor? {
    change.isCollectionShaped(for: primaryKeyPath) ? change : nil
  }

  /// Returns the old value, boxed, as the token `didChange` receives, and sends the prior call.
  private func willChange(root: Object, collection: ChangeDescriptor?) -> Any? {
    if options.contains(.prior) || collection != nil {
      return willChangeWithPriorOrCollection(root: root, collection: collection)
    }
    return options.contains(.old) ? root[keyPath: keyPath] as Any : nil
  }

  @inline(never)
  private func willChangeWithPriorOrCollection(root: Object, collection: ChangeDescriptor?) -> Any?
  {
    var oldValue: Value?
    if options.contains(.old) {
      if let collection {
        oldValue = collection.oldElements.flatMap { $0 as? Value }
      } else {
        oldValue = root[keyPath: keyPath]
      }
    }
    if options.contains(.prior) {
      let prior = KeyValueChange(
        kind: collection?.kind ?? .setting,
        oldValue: oldValue,
        indexes: collection?.indexes,
        isPrior: true
      )
      deliver(prior)
    }
    return oldValue.map { $0 as Any }
  }

  private func didChange(root: Object, collection: ChangeDescriptor?, token: Any?) {
    var change = KeyValueChange<Value>(kind: .setting)
    if let token {
      change.oldValue = (token as! Value)
    }
    if rediscovers || collection != nil {
      completeRediscoveringOrCollectionChange(&change, root: root, collection: collection)
    } else if options.contains(.new) {
      change.newValue = root[keyPath: keyPath]
    }
    deliver(change)
  }

  /// Fills in the new value of a key path whose dependencies are discovered again after every
  /// change, and the kind, indexes and elements of a collection change.
  @inline(never)
  private func completeRediscoveringOrCollectionChange(
    _ change: inout KeyValueChange<Value>,
    root: Object,
    collection: ChangeDescriptor?
  ) {
    var newValue: Value?
    if rediscovers {
      let (value, dependencies) = Dependencies.discover(root: root, keyPath: keyPath)
      replaceRelays(with: dependencies, root: root)
      newValue = value
    }
    if let collection {
      change.kind = collection.kind
      change.indexes = collection.indexes
      newValue = collection.newElements.flatMap { $0 as? Value }
    }
    change.newValue = options.contains(.new) ? newValue : nil
  }

  @inline(__always)
  private func deliver(_ change: KeyValueChange<Value>) {
    guard case .synchronous = delivery else { return schedule(change) }
    deliverNow(change)
  }

  @inline(never)
  private func schedule(_ change: KeyValueChange<Value>) {
    delivery.run { self.deliverNow(change) }
  }

  @inline(__always)
  private func deliverNow(_ change: KeyValueChange<Value>) {
    // Checked per call, not per snapshot: an earlier handler in the same change may have
    // cancelled this registration, and nothing may be delivered after cancel() returns. Neither
    // side may have begun deallocating: both references answer `nil` from then on.
    guard observation.isActive, let observer, let object = root else { return }
    withUnsafePointer(to: change) { handler(observer, object, HandlerInput(change: $0)) }
  }

  // MARK: Dependencies

  /// Installs freshly discovered dependencies: the triggers on the root object, and one relay
  /// per other object, keeping the relays that still match and ending the others.
  private func replaceRelays(with dependencies: Dependencies, root: Object) {
    guard let uncommon else {
      preconditionFailure("relays replaced for a registration that does not rediscover")
    }
    let triggers = Array(dependencies.rootTriggers.dropFirst())
    root.observationRegistry.replaceExtraTriggers(of: self, with: triggers)

    // Under the lifecycle lock the engine may take registry locks (attaching new relays), never
    // another lifecycle lock: retired relays are ended after it is released. The relays' targets,
    // loaded from weak references, are returned too, so that they are released after the lock:
    // a target that died on another thread meanwhile would otherwise be released here, its deinit
    // (user code, and its registry's deinit, which takes lifecycle locks) running under the lock.
    let (retired, targetsLoadedUnderLock) = observation.withLock {
      () -> ([RelaySentinel], [AnyObject?]) in
      var retired = uncommon.relays
      let targets = retired.map(\.currentTarget)
      var retiredTargets = targets
      var kept: [RelaySentinel] = []
      for target in dependencies.relays {
        if let index = retired.indices.first(where: {
          retired[$0].matches(target, currentTarget: retiredTargets[$0])
        }) {
          kept.append(retired.remove(at: index))
          retiredTargets.remove(at: index)
        } else {
          kept.append(RelaySentinel.attach(to: target, receiver: self))
        }
      }
      uncommon.relays = kept
      return (retired, targets)
    }
    withExtendedLifetime(targetsLoadedUnderLock) {}
    for relay in retired {
      relay.observation.end(.cancelled)
    }
  }
}
