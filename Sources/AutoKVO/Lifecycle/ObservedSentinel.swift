/// The half of a registration that the observed object's registry owns: it knows which key
/// paths of that object concern the registration, and receives their changes.
///
/// Subclassed by `TypedObservedSentinel` (delivers to the user's handler) and by `RelaySentinel`
/// (forwards changes of an intermediate object in a key-path chain).
// @unchecked Sendable: `extraTriggers` is guarded by the owning registry's lock, the lifecycle
// lives in `observation` behind its lock, and everything else is immutable.
class ObservedSentinel: @unchecked Sendable {
  /// The storage of the observed object's registry, which owns this sentinel.
  ///
  /// Without a reference count: the registry owns this sentinel, so a strong reference would be a
  /// cycle, a weak one would already read `nil` while the registry's `deinit` tears registrations
  /// down, and any counted reference could run that `deinit` where it must not (see
  /// `RegistryStorage`). It is used only by ``KeyValueObservation`` under its lifecycle lock while
  /// the registration is active; the registry's `deinit` ends every registration it holds, under
  /// that same lock, before it frees the storage (see Docs/Design.md).
  let registry: RegistryReference

  /// The registration's handle and lifecycle, shared with the observer-side sentinel.
  let observation: KeyValueObservation

  /// The key path the registration's own changes are posted under: the registered key path, or,
  /// for an inherited `@Observed` property named through a subclass, the key path of its
  /// declaration (`Dependencies.postedKeyPath(of:on:)`). `nil` for a sentinel that no change the
  /// engine posts concerns: one whose notifications come from Foundation's KVO.
  let primaryKeyPath: AnyKeyPath?

  /// Further key paths of the observed object whose changes concern this registration, found by
  /// dependency discovery. Guarded by the owning registry's lock. Usually empty (no allocation).
  var extraTriggers: [AnyKeyPath]

  init(
    registry: ObservationRegistry,
    observation: KeyValueObservation,
    primaryKeyPath: AnyKeyPath?,
    extraTriggers: [AnyKeyPath]
  ) {
    self.registry = registry.reference
    self.observation = observation
    self.primaryKeyPath = primaryKeyPath
    self.extraTriggers = extraTriggers
  }

  /// Called under the owning registry's lock.
  final func isTriggered(by keyPath: AnyKeyPath) -> Bool {
    keyPath == primaryKeyPath || extraTriggers.contains { $0 == keyPath }
  }

  /// Called before a change: reads what must be read before it and sends prior calls. Returns a
  /// token (the old value, if any) for ``didChange(of:_:token:)``.
  func willChange(of object: AnyObject, _ change: ChangeDescriptor) -> Any? {
    preconditionFailure("ObservedSentinel.willChange must be overridden")
  }

  /// Called after a change: delivers the notification.
  func didChange(of object: AnyObject, _ change: ChangeDescriptor, token: Any?) {
    preconditionFailure("ObservedSentinel.didChange must be overridden")
  }

  /// Whether ``willSet(of:_:)`` may do anything, so that a set must call it. Fixed for the life of
  /// the sentinel; `true` unless a subclass knows better.
  var needsNoticeBeforeSet: Bool { true }

  /// Called before an automatic set of the `@Observed` `property`, whose setter will hand the old
  /// and new values to ``didSet(of:_:token:values:)``. A sentinel that can use those values need
  /// not read anything now; by default, the same as ``willChange(of:_:)``.
  func willSet(of object: AnyObject, _ property: ObservedProperty) -> Any? {
    willChange(of: object, .setting(property.keyPath))
  }

  /// Called after an automatic set, with the values the setter replaced and stored; by default,
  /// the same as ``didChange(of:_:token:)``, which ignores them.
  func didSet(
    of object: AnyObject,
    _ property: ObservedProperty,
    token: Any?,
    values: SetterValues
  ) {
    didChange(of: object, .setting(property.keyPath), token: token)
  }

  /// Called by the owning registry's `deinit`: the observed object is being deallocated.
  func observedObjectIsDeallocating() {
    observation.end(.observedDeallocated)
  }
}

/// The half of a registration that the observer's registry holds; its only job is to end the
/// registration when the observer is deallocated.
///
/// A value, stored in the registry's list, rather than an object: it needs no identity (the
/// registry finds it by its `observation`), and a heap block per registration would cost 48 bytes.
struct ObserverSentinel {
  /// The storage of the observer's registry, which holds this sentinel; a reference without a
  /// count, for the same reasons and under the same rule as ``ObservedSentinel/registry``:
  /// `KeyValueObservation` keeps a copy and uses it only under its lifecycle lock while the
  /// registration is active.
  let registry: RegistryReference

  /// The registration; the observer's registry holds it strongly through this sentinel.
  let observation: KeyValueObservation

  init(registry: ObservationRegistry, observation: KeyValueObservation) {
    self.registry = registry.reference
    self.observation = observation
  }
}
