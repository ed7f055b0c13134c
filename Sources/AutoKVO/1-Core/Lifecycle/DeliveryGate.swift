/// What an observed-side sentinel holds of both sides of its registration, and the check every
/// delivery passes first: the registration is still active, and neither side's deallocation has
/// begun, on any thread.
///
/// Both sides are ``ObjectReference``s, which never keep an object alive and yield it, retained,
/// only until its deallocation begins: a handler never receives an object that is being
/// deallocated, and holds both for its duration. The owner calls ``release()`` once, from its
/// `deinit`; a delivery that may outlive the owner (one scheduled on a queue) must keep the owner
/// alive.
struct DeliveryGate {
  private let observer: ObjectReference
  private let root: ObjectReference

  /// Both objects are borrowed: the gate holds no strong count on either.
  init(observer: borrowing AnyObject, root: borrowing AnyObject) {
    self.observer = ObjectReference(observer)
    self.root = ObjectReference(root)
  }

  /// The observed object, retained, unless its deallocation has begun.
  func loadRoot<Object: AnyObject>(as type: Object.Type) -> Object? {
    root.load(as: type)
  }

  /// Whether the observed object is `object`, which the caller holds; with no AutoKVO lock held
  /// (see ``ObjectReference/refers(to:)``).
  func rootIs(_ object: AnyObject) -> Bool {
    root.refers(to: object)
  }

  /// Calls `deliver` with both sides, retained for the call, if `observation` is active and
  /// neither side's deallocation has begun; otherwise does nothing. Checked per delivery: an
  /// earlier handler of the same change may have cancelled the registration, and nothing may be
  /// delivered after `cancel()` returned.
  @inline(__always)
  func open<Observer: AnyObject, Object: AnyObject>(
    _ observation: KeyValueObservation,
    _ deliver: (Observer, Object) -> Void
  ) {
    guard observation.isActive, let observer = observer.load(as: Observer.self),
      let root = root.load(as: Object.self)
    else { return }
    deliver(observer, root)
  }

  /// ``open(_:_:)`` for a caller that holds `object`, the observed object, strongly for the whole
  /// call (a setter): it is handed on without a retain, unless its deallocation has begun (a set
  /// inside its `deinit`).
  @inline(__always)
  func open<Observer: AnyObject, Object: AnyObject>(
    _ observation: KeyValueObservation,
    holding object: Object,
    _ deliver: (Observer, Object) -> Void
  ) {
    guard observation.isActive, !root.isDeallocating(object),
      let observer = observer.load(as: Observer.self)
    else { return }
    deliver(observer, object)
  }

  /// ``open(_:_:)`` for a callback that runs inside a change the observed object itself is
  /// making, on the thread making it (an `@Observable` model's setter calling its registrar): the
  /// object is held by that code for the whole call, so it is handed on without a retain, unless
  /// its deallocation has begun (a set inside its `deinit`). Returns whether it was handed on.
  @inline(__always)
  @discardableResult
  func openInChangeOfRoot<Observer: AnyObject, Object: AnyObject>(
    _ observation: KeyValueObservation,
    _ deliver: (Observer, Object) -> Void
  ) -> Bool {
    guard observation.isActive, let observer = observer.load(as: Observer.self) else {
      return false
    }
    return root.withObjectMakingChange(as: Object.self) { deliver(observer, $0) }
  }

  /// Calls `body` with the observed object, not retained, unless its deallocation has begun, for
  /// a caller inside a change the object itself is making (see ``openInChangeOfRoot(_:_:)``).
  /// Returns whether `body` was called.
  @inline(__always)
  func withRootMakingChange<Object: AnyObject>(
    as type: Object.Type, _ body: (Object) -> Void
  ) -> Bool {
    root.withObjectMakingChange(as: type, body)
  }

  /// Gives back both references. Called once, by the owner's `deinit`.
  @inline(__always)
  func release() {
    observer.release()
    root.release()
  }
}
