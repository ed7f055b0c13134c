#if canImport(Observation) && !canImport(ObjectiveC)
  import Dispatch
  import Observation

  // Observing `@Observable` models: classes that conform to Observation's `Observable` and not to
  // `KeyValueObservable`. Not on Apple platforms, whose SDKs ship no interface to the tracking
  // these forms need ("Observing an @Observable class" in ObservationAndSwiftUI.md).
  //
  // Overload rules. A class that conforms to both `KeyValueObservable` and `Observable` matches
  // both the engine's forms and these: these are `@_disfavoredOverload`, so that such a class
  // keeps AutoKVO's own semantics without a third form constrained to both.

  extension KeyValueObservable {
    /// Linux only. Observes `keyPath` of an `@Observable` model until this observer or `model` is
    /// deallocated, whichever goes first, with no teardown code.
    ///
    /// The same call as for a ``KeyValueObservable`` object, for any class that conforms to
    /// Observation's `Observable`: an `@Observable` class, or one with its own
    /// `ObservationRegistrar`. Every change its registrar reports is delivered once, in order,
    /// after the value is stored, as a `.setting` change with the values `options` asks for:
    ///
    /// ```swift
    /// import Observation
    ///
    /// @Observable final class Counter { var count = 0 }
    ///
    /// badge.autoObserve(counter, keyPath: \.count) { badge, _, change in
    ///     badge.text = "\(change.oldValue!) → \(change.newValue!)"
    /// }
    /// ```
    ///
    /// The key path may be a tracked property, a computed property that reads tracked properties,
    /// or a chain through other `@Observable` objects (`\.friend?.name`). Where the semantics
    /// differ from a ``KeyValueObservable`` object's (a set of an equal value, which the
    /// `@Observable` macro does not report; no change kinds or indexes; the order among observers)
    /// is listed in <doc:ObservationAndSwiftUI#Observing-an-Observable-class>. A key path that
    /// reads nothing Observation tracks (an `@ObservationIgnored` property, a `let`) is reported
    /// as an ``ObservationDiagnostic`` of kind ``ObservationDiagnostic/Kind/keyPathNeverNotifies``,
    /// and the returned observation is already cancelled.
    ///
    /// The handler runs where it would for a ``KeyValueObservable`` object: from nonisolated
    /// code, synchronously on the thread that mutates `model`; from an actor, on that actor.
    ///
    /// Available where the toolchain ships Observation's tracking interface (Linux, and other
    /// platforms that are not Apple's).
    ///
    /// - Parameters:
    ///   - model: The model to observe. It is not retained.
    ///   - keyPath: The property to observe.
    ///   - options: What to deliver; `[.old, .new]` by default. With `.initial`, the handler is
    ///     called once before this method returns; with `.prior`, once more before each change,
    ///     with the old value.
    ///   - isolation: The caller's actor, captured by default; the handler runs there. Never
    ///     pass it: an explicit `nil` from isolated code runs an isolated handler on whichever
    ///     thread makes the change, a data race the compiler does not report (see
    ///     <doc:SwiftConcurrency#The-isolation-parameter>).
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    ///   - changeHandler: Called with the observer, the model and the change.
    /// - Returns: A handle you may keep to cancel early, or drop: dropping it does not end the
    ///   observation.
    @_disfavoredOverload
    @discardableResult
    @inlinable
    public func autoObserve<Object: AnyObject & Observation.Observable, Value>(
      _ model: Object,
      keyPath: consuming KeyPath<Object, Value>,
      options: ObservationOptions = [.old, .new],
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
    ) -> KeyValueObservation {
      registerModelObservation(
        model, modelPropertyAccess(consume keyPath), of: Value.self, options,
        .resolve(isolation: isolation),
        adaptedHandler: adaptHandler(changeHandler), site: RegistrationSite(file: file, line: line))
    }

    /// Linux only. Observes `keyPath` of an `@Observable` model until this observer or `model` is
    /// deallocated, running the handler on `deliveryQueue`.
    ///
    /// Everything the form without a queue promises for a model holds; the handler runs on
    /// `deliveryQueue`, as it does for a ``KeyValueObservable`` object. The values are read on the
    /// mutating thread, around the change.
    ///
    /// - Parameters:
    ///   - model: The model to observe. It is not retained.
    ///   - keyPath: The property to observe.
    ///   - options: What to deliver; `[.old, .new]` by default.
    ///   - deliveryQueue: Where the handler runs; `.main` for the main actor. Use a serial queue.
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    ///   - changeHandler: Called with the observer, the model and the change.
    /// - Returns: A handle you may keep to cancel early, or drop.
    @_disfavoredOverload
    @discardableResult
    @inlinable
    public func autoObserve<Object: AnyObject & Observation.Observable, Value>(
      _ model: Object,
      keyPath: consuming KeyPath<Object, Value>,
      options: ObservationOptions = [.old, .new],
      deliveryQueue: DispatchQueue,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler: @escaping @Sendable (Self, Object, KeyValueChange<Value>) -> Void
    ) -> KeyValueObservation {
      registerModelObservation(
        model, modelPropertyAccess(consume keyPath), of: Value.self, options,
        .resolve(queue: deliveryQueue),
        adaptedHandler: adaptHandler(changeHandler), site: RegistrationSite(file: file, line: line))
    }

    /// Linux only. Ends every live registration this observer made on `keyPath` of the
    /// `@Observable` model `model`, and returns how many it ended.
    ///
    /// The form of ``stopObserving(_:keyPath:)-1a1ai`` for an `@Observable` model: idempotent, and
    /// every other registration is untouched.
    ///
    /// - Parameters:
    ///   - model: The model whose registrations to end.
    ///   - keyPath: The key path they were made with.
    /// - Returns: How many registrations this call ended.
    @_disfavoredOverload
    @discardableResult
    public func stopObserving<Object: AnyObject & Observation.Observable, Value>(
      _ model: Object,
      keyPath: KeyPath<Object, Value>
    ) -> Int {
      stopObservingObjectWithoutRegistry(model, keyPath: keyPath)
    }

    /// Linux only. Ends every live registration this observer made on any key path of the
    /// `@Observable` model `model`, and returns how many it ended. Idempotent.
    @_disfavoredOverload
    @discardableResult
    public func stopObserving<Object: AnyObject & Observation.Observable>(_ model: Object) -> Int {
      stopObservingObjectWithoutRegistry(model, keyPath: nil)
    }

    /// Registers a handler behind its adapter for changes of a property of `model`: what both
    /// forms of `autoObserve` for an `@Observable` model do. `access` reads the property and names
    /// its key path (see `ModelPropertyAccess`).
    @usableFromInline
    func registerModelObservation<Object: AnyObject & Observation.Observable, Value>(
      _ model: Object,
      _ access: @escaping ModelPropertyAccess<Object>,
      of _: Value.Type,
      _ options: ObservationOptions,
      _ delivery: HandlerDelivery,
      adaptedHandler: @escaping AdaptedHandler<Self, Object>,
      site: RegistrationSite?
    ) -> KeyValueObservation {
      guard let observerRegistry = stableObservationRegistry(toBeUsedTo: "observe with", site: site)
      else { return .refused() }
      guard !ObjectReference.hasBegunDeallocating(self),
        !ObjectReference.hasBegunDeallocating(model)
      else {
        return refuseRegistrationOfDeallocatingSide(with: model, keyPath: nil, site: site)
      }
      guard observerRegistry.serves(self) else {
        return refuseRegistrationThroughSharedRegistry(with: model, keyPath: nil, site: site)
      }
      return ModelSentinel<Self, Object, Value>.register(
        observer: self, observerRegistry: observerRegistry, model: model, access: access,
        options: options, delivery: delivery, handler: adaptedHandler, site: site)
    }
  }

  extension Observation.Observable where Self: AnyObject {
    /// Linux only. Every change of `keyPath` of this `@Observable` model, as an asynchronous
    /// sequence that finishes when the model is deallocated.
    ///
    /// ```swift
    /// for await change in counter.changes(for: \.count) {
    ///     print("now \(change.newValue!)")
    /// }
    /// // the loop ends when `counter` is deallocated
    /// ```
    ///
    /// The sequence ``KeyValueObservable/changes(for:options:bufferingPolicy:)-43ndc`` returns, for
    /// a model: the registration is made when this method is called; every change the model's
    /// registrar reports is buffered and delivered, in order, never coalesced, unlike Observation's
    /// own `Observations`. A key path that reads nothing Observation tracks is reported as a
    /// diagnostic, and the sequence finishes at once.
    ///
    /// - Parameters:
    ///   - keyPath: The property to observe.
    ///   - options: What each change carries; `[.new]` by default. `.initial` makes the current
    ///     value the first element.
    ///   - bufferingPolicy: What to keep of the changes the consumer has not read yet; every one
    ///     (`.unbounded`) by default.
    /// - Returns: A single-consumer sequence of changes.
    @_disfavoredOverload
    public func changes<Value: Sendable>(
      for keyPath: KeyPath<Self, Value>,
      options: ObservationOptions = [.new],
      bufferingPolicy: KeyValueChanges<Value>.BufferingPolicy = .unbounded
    ) -> KeyValueChanges<Value> {
      KeyValueChanges.fed(bufferingPolicy: bufferingPolicy) { streamObserver, endOfStream in
        streamObserver.registerModelObservation(
          self, modelPropertyAccess(keyPath), of: Value.self, options, .synchronous,
          adaptedHandler: adaptHandler { streamObserver, _, change in
            // The handler owns `endOfStream`, as for a `KeyValueObservable` object.
            _ = endOfStream
            streamObserver.continuation.yield(change)
          }, site: nil)
      }
    }
  }

#endif
