#if canImport(ObjectiveC)
  import Foundation

  // One-way bindings whose target is an `NSObject` (a `UILabel`, an `NSTextField`) that is not
  // ``KeyValueObservable``: the binding is the target's registration, kept by its stand-in as the
  // `NSObject` forms of `autoObserve` keep theirs. A ``KeyValueObservable`` target takes the
  // portable methods, which are more specific.

  extension KeyValueObserver {
    /// Keeps `keyPath` of this object, typically an `NSObject` such as a label, equal to
    /// `objectKeyPath` of `object`, until this object or `object` is deallocated, whichever goes
    /// first.
    ///
    /// ```swift
    /// nameLabel.autoBind(\.text, from: person, keyPath: \.name)  // person.name → nameLabel.text
    /// ```
    ///
    /// Behaves as `autoBind(_:from:keyPath:isolation:file:line:)`, actors
    /// included; the target's side of the registration lives in an associated object. A
    /// control's own edits do not notify key-value observing: bind a control one way, from a
    /// model.
    ///
    /// - Parameters:
    ///   - keyPath: The property of this object to write.
    ///   - object: The object to read. It is not retained.
    ///   - objectKeyPath: The property of `object` to follow.
    ///   - isolation: The caller's actor, captured by default; the writes happen there.
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    /// - Returns: A handle you may keep to end the binding early, or drop: dropping it does not
    ///   end the binding.
    @discardableResult
    public func autoBind<Object: KeyValueObservable, Value>(
      _ keyPath: ReferenceWritableKeyPath<Self, Value>,
      from object: Object,
      keyPath objectKeyPath: KeyPath<Object, Value>,
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line
    ) -> KeyValueObservation {
      bindThroughStandIn(
        keyPath, object, objectKeyPath, .resolve(isolation: isolation),
        site: RegistrationSite(file: file, line: line, call: .autoBind), transform: { $0 })
    }

    /// Keeps `keyPath` of this object equal to `transform` of `objectKeyPath` of `object`, until
    /// this object or `object` is deallocated, whichever goes first.
    ///
    /// Behaves as ``KeyValueObservable/autoBind(_:from:keyPath:isolation:file:line:transform:)-1ocjm``.
    ///
    /// - Parameters:
    ///   - keyPath: The property of this object to write.
    ///   - object: The object to read. It is not retained.
    ///   - objectKeyPath: The property of `object` to follow.
    ///   - isolation: The caller's actor, captured by default; the writes happen there.
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    ///   - transform: Turns `object`'s value into the value written.
    /// - Returns: A handle you may keep to end the binding early, or drop: dropping it does not
    ///   end the binding.
    @discardableResult
    public func autoBind<Object: KeyValueObservable, Source, Value>(
      _ keyPath: ReferenceWritableKeyPath<Self, Value>,
      from object: Object,
      keyPath objectKeyPath: KeyPath<Object, Source>,
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line,
      transform: @escaping (Source) -> Value
    ) -> KeyValueObservation {
      bindThroughStandIn(
        keyPath, object, objectKeyPath, .resolve(isolation: isolation),
        site: RegistrationSite(file: file, line: line, call: .autoBind), transform: transform)
    }

    /// Keeps an optional `keyPath` of this object (a label's `text`) equal to a non-optional
    /// `objectKeyPath` of `object`, until this object or `object` is deallocated.
    ///
    /// Behaves as `autoBind(_:from:keyPath:isolation:file:line:)`.
    ///
    /// - Parameters:
    ///   - keyPath: The optional property of this object to write.
    ///   - object: The object to read. It is not retained.
    ///   - objectKeyPath: The property of `object` to follow.
    ///   - isolation: The caller's actor, captured by default; the writes happen there.
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    /// - Returns: A handle you may keep to end the binding early, or drop: dropping it does not
    ///   end the binding.
    @discardableResult
    public func autoBind<Object: KeyValueObservable, Value>(
      _ keyPath: ReferenceWritableKeyPath<Self, Value?>,
      from object: Object,
      keyPath objectKeyPath: KeyPath<Object, Value>,
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line
    ) -> KeyValueObservation {
      bindThroughStandIn(
        keyPath, object, objectKeyPath, .resolve(isolation: isolation),
        site: RegistrationSite(file: file, line: line, call: .autoBind), transform: { $0 })
    }

    /// Registers a one-way binding (`OneWayBinding`) through this object's stand-in.
    func bindThroughStandIn<Object: KeyValueObservable, Source, Value>(
      _ keyPath: ReferenceWritableKeyPath<Self, Value>,
      _ object: Object,
      _ objectKeyPath: KeyPath<Object, Source>,
      _ delivery: HandlerDelivery,
      site: RegistrationSite,
      transform: @escaping (Source) -> Value
    ) -> KeyValueObservation {
      if let refusal = refusalOfBindingToItself(
        keyPath, of: object, objectKeyPath, call: "autoBind", site: site)
      {
        return refusal
      }
      // An `NSObject`'s `@objc` key path is Foundation's to observe, as in `autoObserve`; the
      // check folds away where `Object` is known.
      return observeChoosingEngine(
        through: foundationRouter, object, objectKeyPath,
        keyPathString: Object.self is NSObject.Type ? objectKeyPath._kvcKeyPathString : nil,
        OneWayBinding.options, delivery,
        OneWayBinding.handler(writing: keyPath, from: objectKeyPath, transform: transform),
        site: site)
    }
  }
#endif
