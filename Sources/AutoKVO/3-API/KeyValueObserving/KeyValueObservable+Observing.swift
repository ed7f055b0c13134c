import Dispatch

#if canImport(ObjectiveC)
  import ObjectiveC
#endif

extension KeyValueObservable {
  /// Observes `keyPath` of `object` until this observer or `object` is deallocated, whichever
  /// goes first, with no teardown code.
  ///
  /// The handler receives this observer, the observed object and the change. It is never
  /// called once either side has begun deallocating, no AutoKVO lock is held while it runs (so
  /// it may mutate, register, cancel or release anything), and it is released when the
  /// registration ends.
  ///
  /// ```swift
  /// badge.autoObserve(person, keyPath: \.name, options: [.initial, .new]) { badge, person, change in
  ///     badge.text = change.newValue ?? ""
  /// }
  /// ```
  ///
  /// The key path may be a stored ``Observed`` property, a computed property that reads
  /// `@Observed` properties, or a chain through other observable objects (`\.dog?.name`):
  /// registration evaluates it and records which `@Observed` properties it reads, and, for
  /// anything but a stored property, does so again after every change. A key path that reads no
  /// `@Observed` property, declares no dependency and is not excluded from automatic
  /// notification is reported as an ``ObservationDiagnostic``: it could only ever notify through
  /// ``willChangeValue(for:)``.
  ///
  /// Evaluating the key path is a read of the property. A registration without `.initial` on a
  /// stored `@Observed` property that an earlier registration already read, on any instance of
  /// `object`'s class, reads nothing of it: it may be made while another thread sets the property
  /// (see <doc:SwiftConcurrency>, "Thread safety").
  ///
  /// ## Threads and actors
  ///
  /// Where the handler runs depends on where the registration is made, so that a handler never
  /// runs off the actor its code assumes:
  ///
  /// - From nonisolated code, the handler runs synchronously on the thread that mutates
  ///   `object`, as KVO's do.
  /// - From the main actor (a `@MainActor` view model), it runs on the main actor: synchronously
  ///   when the change happens there, otherwise asynchronously through the main queue, in the
  ///   order of the changes.
  /// - From another actor, it runs isolated to that actor, asynchronously, in the order of the
  ///   changes.
  ///
  /// The `isolation` parameter records the caller's actor; never pass it.
  ///
  /// - Parameters:
  ///   - object: The object to observe. It is not retained.
  ///   - keyPath: The property to observe.
  ///   - options: What to deliver; `[.old, .new]` by default. With `.initial`, the handler is
  ///     called once before this method returns.
  ///   - isolation: The caller's actor, captured by default; the handler runs there. Never
  ///     pass it: an explicit `nil` from isolated code runs an isolated handler on whichever
  ///     thread makes the change, a data race the compiler does not report (see
  ///     <doc:SwiftConcurrency#The-isolation-parameter>).
  ///   - file: The file of the call, which diagnostics name; leave it to its default.
  ///   - line: The line of the call, likewise.
  ///   - changeHandler: Called with the observer, the object and the change.
  /// - Returns: A handle you may keep to cancel early, or drop: dropping it does not end the
  ///   observation.
  @discardableResult
  @inlinable
  public func autoObserve<Object: KeyValueObservable, Value>(
    _ object: Object,
    keyPath: KeyPath<Object, Value>,
    options: ObservationOptions = [.old, .new],
    isolation: isolated (any Actor)? = #isolation,
    file: StaticString = #fileID,
    line: UInt = #line,
    changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
  ) -> KeyValueObservation {
    #if canImport(ObjectiveC)
      // An `NSObject`'s `@objc` key path is Foundation's to observe. The type check folds away
      // where `Object` is known, so that other objects pay nothing for it.
      if Object.self is NSObject.Type,
        let foundationObject = object as? any FoundationObservedObject,
        let observation = foundationObject.registerWithFoundationIfObjectiveC(
          by: self, of: object, keyPath, options, .resolve(isolation: isolation), changeHandler,
          site: RegistrationSite(file: file, line: line))
      {
        return observation
      }
    #endif
    return registerAdapted(
      object, keyPath, options, .resolve(isolation: isolation),
      adaptedHandler: adaptHandler(changeHandler),
      site: RegistrationSite(file: file, line: line))
  }

  /// Observes `keyPath` of `object` until this observer or `object` is deallocated, running the
  /// handler on `deliveryQueue`.
  ///
  /// Everything ``autoObserve(_:keyPath:options:isolation:file:line:changeHandler:)-8q4jl`` promises
  /// holds; this form takes the same arguments and the same key paths, on every platform, for a
  /// ``KeyValueObservable`` object. (An `NSObject` observed with Foundation's KVO on Apple
  /// platforms, and an `@Observable` model on Linux, have no such form beside theirs: register
  /// from the actor the handler needs, or hop from the handler.) The handler runs on
  /// `deliveryQueue`: synchronously when the change happens on that queue (or on a queue that
  /// targets it) and none of the registration's earlier changes still waits there, otherwise
  /// asynchronously there, behind them. Either way, the handler receives the changes in the order
  /// they were made, whichever threads make them, after its `.initial` call. Before each call the
  /// registration is checked again, so nothing arrives after ``KeyValueObservation/cancel()``
  /// returned on that queue or after either side began deallocating: a change still waiting for
  /// the queue then is dropped.
  ///
  /// With `.main`, the handler runs on the main thread, whichever thread mutates the object; its
  /// type is `@Sendable`, not `@MainActor`, so it says so with `MainActor.assumeIsolated`:
  ///
  /// ```swift
  /// @MainActor final class NameLabel: KeyValueObservable {
  ///     let observationRegistry = ObservationRegistry()
  ///     var text = ""
  ///     func bind(to person: Person) {
  ///         autoObserve(person, keyPath: \.name, options: .new, deliveryQueue: .main) { label, _, change in
  ///             MainActor.assumeIsolated { label.text = change.newValue ?? "" }
  ///         }
  ///     }
  /// }
  /// ```
  ///
  /// From `@MainActor` code, as here, the form without a queue does the same with a handler the
  /// compiler already knows is main-actor isolated: prefer it, and keep this form for serial
  /// queues of your own.
  ///
  /// Values cross to the queue as they are: the observed object and the change are the ones the
  /// mutating thread produced, whether or not they are `Sendable`.
  ///
  /// - Parameters:
  ///   - object: The object to observe. It is not retained.
  ///   - keyPath: The property to observe.
  ///   - options: What to deliver; `[.old, .new]` by default. With `.initial`, the handler is
  ///     called once before this method returns when the caller is on `deliveryQueue`, and as soon
  ///     as the queue runs it otherwise.
  ///   - deliveryQueue: Where the handler runs; `.main` for the main actor. Use a serial queue.
  ///   - file: The file of the call, which diagnostics name; leave it to its default.
  ///   - line: The line of the call, likewise.
  ///   - changeHandler: Called with the observer, the object and the change.
  /// - Returns: A handle you may keep to cancel early, or drop: dropping it does not end the
  ///   observation.
  @discardableResult
  @inlinable
  public func autoObserve<Object: KeyValueObservable, Value>(
    _ object: Object,
    keyPath: KeyPath<Object, Value>,
    options: ObservationOptions = [.old, .new],
    deliveryQueue: DispatchQueue,
    file: StaticString = #fileID,
    line: UInt = #line,
    changeHandler: @escaping @Sendable (Self, Object, KeyValueChange<Value>) -> Void
  ) -> KeyValueObservation {
    registerAdapted(
      object, keyPath, options, .resolve(queue: deliveryQueue),
      adaptedHandler: adaptHandler(changeHandler),
      site: RegistrationSite(file: file, line: line))
  }

  /// Registers `changeHandler`: what the engine forms of `autoObserve` that are not inlined into
  /// their caller do.
  func register<Object: KeyValueObservable, Value>(
    _ object: Object,
    _ keyPath: KeyPath<Object, Value>,
    _ options: ObservationOptions,
    _ delivery: HandlerDelivery,
    _ changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void,
    site: RegistrationSite? = nil
  ) -> KeyValueObservation {
    registerAdapted(
      object, keyPath, options, delivery, adaptedHandler: adaptHandler(changeHandler), site: site)
  }

  /// Registers a handler behind its adapter (see `HandlerInput`); what every engine form of
  /// `autoObserve` does. Inlinable, so that the key path is evaluated in the caller's module (see
  /// ``DependencyRecorder/evaluate(_:on:)``).
  @inlinable
  func registerAdapted<Object: KeyValueObservable, Value>(
    _ object: Object,
    _ keyPath: KeyPath<Object, Value>,
    _ options: ObservationOptions,
    _ delivery: HandlerDelivery,
    adaptedHandler changeHandler: @escaping AdaptedHandler<Self, Object>,
    site: RegistrationSite?
  ) -> KeyValueObservation {
    // A stored `@Observed` property a recording read before, on this object or another of its
    // class, is known by its record: without `.initial`, nothing of its value is read, so
    // registering is safe while another thread sets it. A subclass instance may override the
    // property: its key path is read.
    let objectRegistry = object.observationRegistry
    if !options.contains(.initial), type(of: object) == Object.self,
      let declared = objectRegistry.recordedPropertyKeyPath(named: keyPath, of: object)
    {
      return registerEvaluated(
        object, objectRegistry, keyPath, options, delivery, adaptedHandler: changeHandler,
        currentValue: nil, accesses: [], recordedKeyPath: declared, site: site,
        sentinelType: HandlerSentinel<Self, Object, Value>.self)
    }
    var (currentValue, accesses) = DependencyRecorder.evaluate(keyPath, on: object)
    // By address: the engine runs unspecialized, where an optional of a generic type costs a
    // run-time metadata look-up.
    return _withUnprotectedUnsafePointer(to: &currentValue) { currentValue in
      registerEvaluated(
        object, objectRegistry, keyPath, options, delivery, adaptedHandler: changeHandler,
        currentValue: currentValue, accesses: accesses, recordedKeyPath: nil, site: site,
        sentinelType: HandlerSentinel<Self, Object, Value>.self)
    }
  }

  /// Registers a handler behind its adapter (see `HandlerInput`), given what evaluating `keyPath`
  /// on `object` under a recorder returned; what every engine form of `autoObserve` does. The
  /// inlinable forms evaluate the key path in the caller's module (see
  /// ``DependencyRecorder/evaluate(_:on:)``), and pass the two results apart: in the engine,
  /// which runs unspecialized, a tuple of a generic type costs a run-time metadata look-up. So
  /// would naming the sentinel's generic type here: the caller names it, where it is specialized.
  ///
  /// `objectRegistry` is the caller's read of `object`'s registry. `currentValue` is `nil` when
  /// the key path was not evaluated, because it names `recordedKeyPath`, a property whose record
  /// exists (``ObservationRegistry/recordedPropertyKeyPath(named:of:)``).
  @usableFromInline
  func registerEvaluated<Object: KeyValueObservable, Value>(
    _ object: Object,
    _ objectRegistry: ObservationRegistry,
    _ keyPath: KeyPath<Object, Value>,
    _ options: ObservationOptions,
    _ delivery: HandlerDelivery,
    adaptedHandler changeHandler: @escaping AdaptedHandler<Self, Object>,
    currentValue: UnsafePointer<Value>?,
    accesses: [DependencyRecorder.Access],
    recordedKeyPath: AnyKeyPath?,
    site: RegistrationSite?,
    sentinelType: HandlerSentinel<Self, Object, Value>.Type
  ) -> KeyValueObservation {
    // Each registry is read twice: a computed one is a new object on every read (see
    // `stableObservationRegistry(toBeUsedTo:site:)`, which reports it). Compared here, on every
    // registration's path, without a call; the caller read the object's first.
    let observerRegistry = observationRegistry
    guard observationRegistry === observerRegistry, object.observationRegistry === objectRegistry
    else {
      _ = stableObservationRegistry(toBeUsedTo: "observe with", site: site)
      _ = object.stableObservationRegistry(toBeUsedTo: "observe", site: site)
      return .refused()
    }
    guard !ObjectReference.hasBegunDeallocating(self),
      !ObjectReference.hasBegunDeallocating(object)
    else {
      return refuseRegistrationOfDeallocatingSide(with: object, keyPath: keyPath, site: site)
    }
    guard objectRegistry.serves(object), observerRegistry.serves(self) else {
      return refuseRegistrationThroughSharedRegistry(with: object, keyPath: keyPath, site: site)
    }
    return sentinelType.register(
      observer: self, observerRegistry: observerRegistry, object: object,
      objectRegistry: objectRegistry, keyPath: keyPath, options: options, delivery: delivery,
      handler: changeHandler, currentValue: currentValue, accesses: accesses,
      recordedKeyPath: recordedKeyPath, site: site)
  }
}
