/// The observed object's half of a registration: the object's registry owns it, and through it
/// the registration receives the changes of that object that concern it.
///
/// Its partner is the ``ObserverSentinel`` that the observer's registry holds. Both hold the
/// registration, a ``KeyValueObservation``, which knows the two registries without a reference
/// count and ends exactly once: the first registry to be deallocated ends it and detaches the
/// other sentinel; the second finds its sentinel already gone and does nothing (Docs/Design.md).
///
/// What varies between kinds of registration is the type that conforms, each with typed values:
/// - `HandlerSentinel`: a typed handler. `autoObserve`, the classic `observeValue` callback and
///   the `changes(for:)` sequence are each a handler.
/// - `ChainLinkSentinel`: an object inside a key-path chain (the dog in `\.dog.name`), which
///   forwards its changes to the registration whose key path reaches it.
/// - `FoundationSentinel`: a registration whose changes Foundation's key-value observing reports.
/// - `FoundationChainSentinel` and its `FoundationChainLink`s: a key path through objects observed
///   with Foundation's key-value observing, one key per link.
///
/// Every requirement is called by the engine; the ones about changes, under no lock, and the
/// others under the owning registry's lock, as each says.
protocol ObservedSentinel: AnyObject, Sendable {
  /// The registration, shared with the observer-side sentinel.
  var observation: KeyValueObservation { get }

  /// The key path the registration's own changes are posted under: the registered key path, or,
  /// for an inherited `@Observed` property named through a subclass, the key path of its
  /// declaration. `nil` when no change the engine posts concerns the sentinel. Immutable.
  var primaryKeyPath: AnyKeyPath? { get }

  /// Whether a change of `keyPath` of the observed object concerns the registration. Called under
  /// the owning registry's lock; the answer changes only inside
  /// `ObservationRegistry.updateTriggers(of:_:)`.
  func isTriggered(by keyPath: AnyKeyPath) -> Bool

  /// Whether ``isTriggered(by:)`` answers `true` for the key paths equal to ``primaryKeyPath``
  /// and for no other (for none when it is `nil`): what lets the registry find the properties a
  /// registration concerns without comparing key paths (``RegistryState/forEachProperty(triggering:_:others:)``).
  /// Called under the owning registry's lock, where the answer changes only inside
  /// `ObservationRegistry.updateTriggers(of:_:)`.
  var isTriggeredByPrimaryKeyPathOnly: Bool { get }

  /// Called before a change: reads what must be read before it and sends prior calls. Returns a
  /// token (the old value, if any) for ``didChange(of:_:token:)``.
  func willChange(of object: AnyObject, _ change: ChangeDescriptor) -> Any?

  /// Called after a change, with what ``willChange(of:_:)`` returned: delivers the notification.
  func didChange(of object: AnyObject, _ change: ChangeDescriptor, token: Any?)

  /// Whether ``willSet(of:_:)`` may do anything, so that a set must call it. Immutable.
  var needsNoticeBeforeSet: Bool { get }

  /// Whether ``didSet(of:_:token:values:)`` may read the old value of the ``SetterValues`` it is
  /// lent: an in-place mutation of an `@ObservedInPlace` property keeps a copy of the value it
  /// mutates only when one of its registrations does. Called outside every lock.
  var readsSetterOldValue: Bool { get }

  /// Called before an automatic set of an `@Observed` property, whose setter will hand the old and
  /// new values to ``didSet(of:_:token:values:)``. `snapshot` holds the property's key path and
  /// the registrations the set concerns.
  func willSet(of object: AnyObject, _ snapshot: PropertySnapshot) -> Any?

  /// Called after an automatic set, with the values the setter replaced and stored.
  func didSet(
    of object: AnyObject, _ snapshot: PropertySnapshot, token: Any?, values: SetterValues)

  /// Called after an automatic set of which no registration was told before, with the values the
  /// setter replaced and stored: ``didSet(of:_:token:values:)`` with no token. A requirement of its
  /// own because it is every set's path: an `Any?` argument, even `nil`, costs each call generic
  /// value-witness calls to destroy it.
  func didSet(of object: AnyObject, _ snapshot: PropertySnapshot, values: SetterValues)

  /// Called after the object that a weak property of the observed object referenced began its
  /// deallocation (an `@ObservedWeak` property, whose key path is `keyPath`): a change to `nil`
  /// learned after the fact, told nothing before. `values` holds the new value, `nil`, and no old
  /// value: the object is being deallocated and cannot be handed out.
  func weakPropertyDidZero(of object: AnyObject, _ keyPath: AnyKeyPath, values: SetterValues)

  /// Called by the owning registry's `deinit`: the observed object is being deallocated.
  func observedObjectIsDeallocating()

  /// Called by ``KeyValueObservation/end(_:)`` once it has detached this sentinel from its
  /// registry, on the ending thread, after its locks: a kind whose changes come from outside
  /// AutoKVO stops them here. Not called when the registry's `deinit` ends the registration.
  func wasDetached()

  /// Whether this registration observes `keyPath` (any key path, when `nil`) of `object`, an
  /// object with no registry of its own, which the caller holds: what `stopObserving` asks of a
  /// registration on an `@Observable` model or on an `NSObject` observed by Foundation's KVO.
  /// Called with no AutoKVO lock held.
  func observes(_ object: AnyObject, keyPath: AnyKeyPath?) -> Bool

  /// The key path this registration observes with Foundation's KVO, from its object (`"status"`,
  /// `"currentItem.status"`); `nil` for any other kind. Immutable: read with no lock held.
  var foundationKeyPath: String? { get }
}

extension ObservedSentinel {
  /// A kind that cannot use the setter's values must be told before every set.
  var needsNoticeBeforeSet: Bool { true }

  /// A kind that does not say reads the values itself, before and after the change.
  var readsSetterOldValue: Bool { false }

  /// A kind that does not say is asked about each property.
  var isTriggeredByPrimaryKeyPathOnly: Bool { false }

  /// A set is a `.setting` change of the property's key path, for a kind that reads the values
  /// itself.
  func willSet(of object: AnyObject, _ snapshot: PropertySnapshot) -> Any? {
    willChange(of: object, .setting(snapshot.keyPath))
  }

  func didSet(
    of object: AnyObject, _ snapshot: PropertySnapshot, token: Any?, values: SetterValues
  ) {
    didChange(of: object, .setting(snapshot.keyPath), token: token)
  }

  func didSet(of object: AnyObject, _ snapshot: PropertySnapshot, values: SetterValues) {
    didSet(of: object, snapshot, token: nil, values: values)
  }

  /// A kind that does not say takes a zeroing as a change told nothing before.
  func weakPropertyDidZero(of object: AnyObject, _ keyPath: AnyKeyPath, values: SetterValues) {
    didChange(of: object, .setting(keyPath), token: nil)
  }

  func observedObjectIsDeallocating() {
    observation.end(.observedDeallocated)
  }

  func wasDetached() {}

  /// The object of a registry-owned sentinel is found by its registry instead.
  func observes(_ object: AnyObject, keyPath: AnyKeyPath?) -> Bool { false }

  var foundationKeyPath: String? { nil }
}

/// An observed-side sentinel whose changes come from outside AutoKVO's engine: Swift's Observation
/// (`ModelSentinel`) or Foundation's key-value observing (`FoundationSentinel`,
/// `FoundationChainSentinel`, `FoundationChainLink`); or that hears nothing but its object's
/// deallocation (`ZeroingSentinel`). No change the engine posts concerns it, so the requirements
/// about those changes are no-ops, supplied here once.
protocol ExternallyNotifiedSentinel: ObservedSentinel {}

extension ExternallyNotifiedSentinel {
  var primaryKeyPath: AnyKeyPath? { nil }

  func isTriggered(by keyPath: AnyKeyPath) -> Bool { false }

  var isTriggeredByPrimaryKeyPathOnly: Bool { true }

  /// Never called: no change the engine posts triggers the sentinel.
  func willChange(of object: AnyObject, _ change: ChangeDescriptor) -> Any? { nil }

  /// Never called, as ``willChange(of:_:)``.
  func didChange(of object: AnyObject, _ change: ChangeDescriptor, token: Any?) {}

  var needsNoticeBeforeSet: Bool { false }
}
