/// The half of a registration that the observed object's registry owns: it holds the options,
/// the key paths whose changes concern it, and delivers notifications to the observer.
///
/// Subclassed once per observer, object and value type by `TypedObservedSentinel`.
// @unchecked Sendable: immutable; its lifecycle state lives in `observation`, behind its lock.
class ObservedSentinel: @unchecked Sendable {
  /// The observed object's registry, which owns this sentinel.
  ///
  /// `unowned(unsafe)`: the registry owns this sentinel, so a strong reference would be a cycle,
  /// and a weak one would already read `nil` while the registry's `deinit` tears registrations
  /// down. It is read only by ``KeyValueObservation`` under its lifecycle lock while the
  /// registration is active; the registry's `deinit` ends every registration it holds, under that
  /// same lock, before its memory is freed (see Docs/Design.md).
  unowned(unsafe) let registry: ObservationRegistry

  /// The registration's handle and lifecycle, shared with the observer-side sentinel.
  let observation: KeyValueObservation

  let options: ObservationOptions

  /// The key paths of the observed object whose changes are delivered: the registered key path
  /// and the `@Observed` properties it was found to read.
  let triggers: [AnyKeyPath]

  init(
    registry: ObservationRegistry,
    observation: KeyValueObservation,
    options: ObservationOptions,
    triggers: [AnyKeyPath]
  ) {
    self.registry = registry
    self.observation = observation
    self.options = options
    self.triggers = triggers
    LifecycleCensus.sentinelCreated()
  }

  deinit {
    LifecycleCensus.sentinelDestroyed()
  }

  final func isTriggered(by keyPath: AnyKeyPath) -> Bool {
    triggers.contains { $0 == keyPath }
  }

  /// Called before a change: reads the old value when it is needed and sends the prior call.
  /// Returns the old value to hand to ``didChange(of:oldValue:)``.
  func willChange(of object: AnyObject) -> Any? {
    preconditionFailure("ObservedSentinel.willChange must be overridden")
  }

  /// Called after a change: delivers the notification.
  func didChange(of object: AnyObject, oldValue: Any?) {
    preconditionFailure("ObservedSentinel.didChange must be overridden")
  }
}

/// The typed observed-side sentinel: reads the value through the registered key path and calls
/// the user's handler with the observer, the object and a ``KeyValueChange``.
final class TypedObservedSentinel<Observer: AnyObject, Object: AnyObject, Value>: ObservedSentinel,
  @unchecked Sendable  // the handler runs on the mutating thread, as KVO's do
{
  /// Weak: notification must never reach an observer that is being deallocated, possibly on
  /// another thread; a weak load answers `nil` from the moment its `deinit` begins.
  private weak var observer: Observer?
  /// Weak for the same reason: a set made inside the observed object's own `deinit`, or a
  /// registration made there with `.initial`, must not hand the dying object to a handler, which
  /// could keep it past its deallocation. The object's registry, and with it this registration,
  /// outlives the object's `deinit` body, so the registration alone cannot tell.
  private weak var observedObject: Object?
  private let keyPath: KeyPath<Object, Value>
  private let handler: (Observer, Object, KeyValueChange<Value>) -> Void

  init(
    registry: ObservationRegistry,
    observation: KeyValueObservation,
    observer: Observer,
    object: Object,
    keyPath: KeyPath<Object, Value>,
    options: ObservationOptions,
    triggers: [AnyKeyPath],
    handler: @escaping (Observer, Object, KeyValueChange<Value>) -> Void
  ) {
    self.observer = observer
    self.observedObject = object
    self.keyPath = keyPath
    self.handler = handler
    super.init(registry: registry, observation: observation, options: options, triggers: triggers)
  }

  override func willChange(of object: AnyObject) -> Any? {
    let object = unsafeDowncast(object, to: Object.self)
    let oldValue = options.contains(.old) ? object[keyPath: keyPath] : nil
    if options.contains(.prior) {
      deliver(KeyValueChange(kind: .setting, oldValue: oldValue, isPrior: true), object: object)
    }
    return oldValue
  }

  override func didChange(of object: AnyObject, oldValue: Any?) {
    let object = unsafeDowncast(object, to: Object.self)
    let newValue = options.contains(.new) ? object[keyPath: keyPath] : nil
    deliver(
      KeyValueChange(kind: .setting, oldValue: oldValue as! Value?, newValue: newValue),
      object: object
    )
  }

  /// Delivers the registration-time call requested with `.initial`.
  func deliverInitial(currentValue: Value, object: Object) {
    let newValue = options.contains(.new) ? currentValue : nil
    deliver(KeyValueChange(kind: .setting, newValue: newValue), object: object)
  }

  private func deliver(_ change: KeyValueChange<Value>, object: Object) {
    // Checked per call, not per snapshot: an earlier handler in the same change may have
    // cancelled this registration, and nothing may be delivered after cancel() returns. Neither
    // side may have begun deallocating: both weak loads answer `nil` from then on.
    guard observation.isActive, let observer, observedObject != nil else { return }
    handler(observer, object, change)
  }
}

/// The half of a registration that the observer's registry owns; its only job is to end the
/// registration when the observer is deallocated.
final class ObserverSentinel: @unchecked Sendable {  // immutable after init
  /// The observer's registry, which owns this sentinel. `unowned(unsafe)` for the same reasons,
  /// and under the same rule, as ``ObservedSentinel/registry``.
  unowned(unsafe) let registry: ObservationRegistry

  let observation: KeyValueObservation

  init(registry: ObservationRegistry, observation: KeyValueObservation) {
    self.registry = registry
    self.observation = observation
    LifecycleCensus.sentinelCreated()
  }

  deinit {
    LifecycleCensus.sentinelDestroyed()
  }
}
