#if canImport(ObjectiveC)
  import Foundation

  extension NSObject: KeyValueObserver {}

  // Overload rules. Three typed `autoObserve` methods for one key path exist on Apple platforms;
  // for any observer and observed object exactly one is chosen, so no call site is ambiguous:
  //
  //   declared on          observed object        engine
  //   KeyValueObservable   KeyValueObservable     AutoKVO's (the portable method)
  //   KeyValueObserver     NSObject               Foundation's KVO (`@_disfavoredOverload`)
  //   KeyValueObserver     KeyValueObservable     AutoKVO's, through a stand-in observer
  //
  // Swift prefers the method whose observer (`Self`) and object constraints are both at least as
  // narrow as every other candidate's; KeyValueObservable refines KeyValueObserver. An object
  // that is both an `NSObject` and `KeyValueObservable` matches the `NSObject` form and a
  // `KeyValueObservable` one, neither narrower: the `NSObject` form is disfavoured, and the
  // `KeyValueObservable` forms choose the engine per key path, at registration: an `@objc` key
  // path of an `NSObject` is observed with Foundation's KVO, any other with AutoKVO's engine.

  extension KeyValueObserver {
    /// Apple platforms only. Observes an `@objc` property of an `NSObject` with Foundation's KVO
    /// until this observer or `object` is deallocated, whichever goes first, with no teardown code.
    ///
    /// Works for any `NSObject` and any observer — an `NSObject` or a ``KeyValueObservable``
    /// class — with no protocol to adopt:
    ///
    /// ```swift
    /// label.autoObserve(player, keyPath: \.status, options: [.initial, .new]) { label, _, change in
    ///     label.isHidden = change.newValue != .readyToPlay
    /// }
    /// ```
    ///
    /// The handler never runs once either side has begun deallocating. It runs where the
    /// portable ``KeyValueObservable/autoObserve(_:keyPath:options:isolation:file:line:changeHandler:)-8q4jl``
    /// runs its handler: synchronously on the thread that changes `object` when registered from
    /// nonisolated code, and on the caller's actor — the main actor for a `@MainActor` view
    /// controller — when registered from one. The key path must be `@objc`; it may go through
    /// other objects (`\.currentItem?.status`): each key is then observed with its own
    /// registration on the object it belongs to, moved when that object is replaced and ended
    /// when it is deallocated (the leaf then reads as absent), so that no deallocation order
    /// can crash (Docs/Apple.md).
    ///
    /// - Parameters:
    ///   - object: The object to observe. It is not retained.
    ///   - keyPath: An `@objc` key path of KVO-compliant properties.
    ///   - options: What to deliver; `[.old, .new]` by default. With `.initial`, the handler is
    ///     called once before this method returns.
    ///   - isolation: The caller's actor, captured by default; the handler runs there. Never
    ///     pass it: an explicit `nil` from isolated code runs an isolated handler on whichever
    ///     thread makes the change, a data race the compiler does not report (see
    ///     <doc:SwiftConcurrency#The-isolation-parameter>).
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    ///   - changeHandler: Called with this observer, the object and the change.
    /// - Returns: A handle you may keep to cancel early, or drop: dropping it does not end the
    ///   observation.
    @_disfavoredOverload
    @discardableResult
    public func autoObserve<Object: NSObject, Value>(
      _ object: Object,
      keyPath: KeyPath<Object, Value>,
      options: ObservationOptions = [.old, .new],
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
    ) -> KeyValueObservation {
      observeWithFoundation(
        through: foundationRouter, object, keyPath, keyPathString: keyPath._kvcKeyPathString,
        options, .resolve(isolation: isolation), changeHandler,
        site: RegistrationSite(file: file, line: line))
    }

    /// Apple platforms only. Observes `keyPath` of a ``KeyValueObservable`` object until this
    /// observer or `object` is deallocated, whichever goes first, for an observer that is not
    /// itself ``KeyValueObservable`` (typically an `NSObject`).
    ///
    /// Behaves as ``KeyValueObservable/autoObserve(_:keyPath:options:isolation:file:line:changeHandler:)-8q4jl``,
    /// actors included; the observer's side of the registration lives in an associated object.
    /// When `object` is also an `NSObject`, an `@objc` key path is observed with Foundation's KVO,
    /// any other with AutoKVO's engine.
    @discardableResult
    public func autoObserve<Object: KeyValueObservable, Value>(
      _ object: Object,
      keyPath: KeyPath<Object, Value>,
      options: ObservationOptions = [.old, .new],
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
    ) -> KeyValueObservation {
      // Only an `NSObject`'s key path can be `@objc`; the check folds away where `Object` is known.
      observeChoosingEngine(
        through: foundationRouter, object, keyPath,
        keyPathString: Object.self is NSObject.Type ? keyPath._kvcKeyPathString : nil, options,
        .resolve(isolation: isolation), changeHandler,
        site: RegistrationSite(file: file, line: line))
    }

  }

  extension NSObject: FoundationObservedObject {
    @usableFromInline
    func registerWithFoundationIfObjectiveC<
      Observer: KeyValueObservable, Object: KeyValueObservable, Value
    >(
      by observer: Observer,
      of object: Object,
      _ keyPath: KeyPath<Object, Value>,
      _ options: ObservationOptions,
      _ delivery: HandlerDelivery,
      _ changeHandler: @escaping (Observer, Object, KeyValueChange<Value>) -> Void,
      site: RegistrationSite
    ) -> KeyValueObservation? {
      guard let keyPathString = keyPath._kvcKeyPathString else { return nil }
      return observer.observeChoosingEngineWithOwnRegistry(
        through: foundationRouter, object, keyPath, keyPathString: keyPathString, options,
        delivery, changeHandler, site: site)
    }

    @usableFromInline
    func endFoundationRegistrations(
      by observerRegistry: ObservationRegistry,
      keyPath: AnyKeyPath?
    ) -> Int {
      var key: String?
      if let keyPath {
        // A key path with no `@objc` string has no registration with Foundation's KVO.
        guard let string = keyPath._kvcKeyPathString else { return 0 }
        key = string
      }
      return observerRegistry.endFoundationRegistrations(
        on: self, keyPath: key, in: foundationRouter.runtime)
    }
  }

  extension KeyValueObserver {
    /// Apple platforms only. Observes a path that starts with `@Observed` properties of a
    /// ``KeyValueObservable`` object and continues through `@objc` properties of an `NSObject`,
    /// until this observer or `object` is deallocated, whichever goes first.
    ///
    /// A single Swift key path cannot say where its `@Observed` part ends, so the path is given
    /// in two parts: `keyPath`, observed with AutoKVO's engine, up to the `NSObject`; `then`,
    /// observed with Foundation's KVO, from it. Each hop is a registration on the object it
    /// observes, moved when that object is replaced and ended when it is deallocated, as for a
    /// chain of either kind alone (Docs/Apple.md):
    ///
    /// ```swift
    /// final class PlayerModel: KeyValueObservable {
    ///     let observationRegistry = ObservationRegistry()
    ///     @Observed var player: AVPlayer?
    /// }
    ///
    /// label.autoObserve(model, keyPath: \.player, then: \.currentItem?.status) { label, _, change in
    ///     label.isHidden = change.newValue != .readyToPlay
    /// }
    /// ```
    ///
    /// The handler receives the leaf's values, read from `object` before and after each change
    /// of any hop. While `keyPath` leads to no object the leaf is absent: `nil` for an optional
    /// leaf (`.some(nil)` in the change), no value otherwise. The handler runs where the other
    /// typed forms run theirs: synchronously on the changing thread when registered from
    /// nonisolated code, on the caller's actor when registered from one.
    ///
    /// - Parameters:
    ///   - object: The object to observe. It is not retained.
    ///   - keyPath: `@Observed` properties of `object` leading to an `NSObject`, or to `nil`.
    ///   - objcKeyPath: The `then:` argument: an `@objc` key path of that `NSObject`, of
    ///     KVO-compliant properties; it may go through other objects. A key path that is not `@objc`, or whose root is not an
    ///     `NSObject`, registers nothing and reports a diagnostic.
    ///   - options: What to deliver; `[.old, .new]` by default. With `.initial`, the handler is
    ///     called once before this method returns.
    ///   - isolation: The caller's actor, captured by default; the handler runs there. Never
    ///     pass it: an explicit `nil` from isolated code runs an isolated handler on whichever
    ///     thread makes the change, a data race the compiler does not report (see
    ///     <doc:SwiftConcurrency#The-isolation-parameter>).
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    ///   - changeHandler: Called with this observer, `object` and the change of the leaf.
    /// - Returns: A handle you may keep to cancel early, or drop: dropping it does not end the
    ///   observation.
    @discardableResult
    public func autoObserve<Object: KeyValueObservable, Intermediate: AnyObject, Value>(
      _ object: Object,
      keyPath: KeyPath<Object, Intermediate?>,
      then objcKeyPath: KeyPath<Intermediate, Value>,
      options: ObservationOptions = [.old, .new],
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
    ) -> KeyValueObservation {
      // `Intermediate` is only `AnyObject` in the signature: a class bound there (`NSObject`)
      // makes Swift infer it before the key path literals, and reject `\.player`.
      observeThroughEngineThenFoundation(
        through: foundationRouter, object, .engine(keyPath), objcKeyPath,
        tailString: objcKeyPath._kvcKeyPathString,
        intermediateIsObjectiveC: Intermediate.self is NSObject.Type,
        evaluate: { $0[keyPath: keyPath].map { $0[keyPath: objcKeyPath] } },
        options, .resolve(isolation: isolation), changeHandler,
        site: RegistrationSite(file: file, line: line))
    }

    /// Apple platforms only. Observes a path that starts with `@Observed` properties of a
    /// ``KeyValueObservable`` object, leading to an `NSObject` that is always there, and continues
    /// through `@objc` properties of that object; as the form whose `keyPath` may lead to `nil`.
    @discardableResult
    public func autoObserve<Object: KeyValueObservable, Intermediate: AnyObject, Value>(
      _ object: Object,
      keyPath: KeyPath<Object, Intermediate>,
      then objcKeyPath: KeyPath<Intermediate, Value>,
      options: ObservationOptions = [.old, .new],
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
    ) -> KeyValueObservation {
      observeThroughEngineThenFoundation(
        through: foundationRouter, object, .engine(keyPath), objcKeyPath,
        tailString: objcKeyPath._kvcKeyPathString,
        intermediateIsObjectiveC: Intermediate.self is NSObject.Type,
        evaluate: { Optional($0[keyPath: keyPath][keyPath: objcKeyPath]) },
        options, .resolve(isolation: isolation), changeHandler,
        site: RegistrationSite(file: file, line: line))
    }
  }

  extension NSObject {
    /// Apple platforms only. Observes `keyPath` of `object` with Foundation's KVO, delivering to
    /// this object's `observeValue(forKeyPath:of:change:context:)`, until this object or `object`
    /// is deallocated, whichever goes first: a drop-in for
    /// `addObserver(_:forKeyPath:options:context:)` with no `removeObserver` to call.
    ///
    /// ```swift
    /// // Only its address is used, as a tag: nothing reads or writes it, so no access can race.
    /// nonisolated(unsafe) private static var statusContext = 0
    ///
    /// // was: player.addObserver(self, forKeyPath: "status", options: [.new], context: &ctx)
    /// autoObserve(player, keyPath: "status", options: [.new], context: &Self.statusContext)
    /// ```
    ///
    /// Your override receives the key path, the object, Foundation's change dictionary and
    /// `context` exactly as before; it is never called once either side has begun deallocating.
    ///
    /// - Parameters:
    ///   - object: The object to observe. It is not retained.
    ///   - keyPath: A key of a KVO-compliant property, or several separated by dots
    ///     (`"currentItem.status"`): each is then observed on the object it belongs to, with its
    ///     own registration, and your override receives this key path and `object`, as with KVO.
    ///   - options: Foundation's options, as for `addObserver`.
    ///   - context: Passed back to your override unchanged.
    /// - Returns: A handle you may keep to cancel early — the replacement for `removeObserver` —
    ///   or drop.
    @discardableResult
    public func autoObserve(
      _ object: NSObject,
      keyPath: String,
      options: NSKeyValueObservingOptions = [],
      context: UnsafeMutableRawPointer? = nil
    ) -> KeyValueObservation {
      guard let observerRegistry = registryForObserving(in: foundationRouter.runtime) else {
        return .refused()
      }
      return foundationRouter.register(
        observer: self,
        observerRegistry: observerRegistry,
        object: object,
        keyPath: keyPath,
        options: ObservationOptions(rawValue: options.rawValue),
        delivery: .synchronous
      ) { observer, object, change in
        observer.observeValue(forKeyPath: keyPath, of: object, change: change, context: context)
      }
    }
  }
#endif
