#if canImport(ObjectiveC)
  import Foundation

  // Bindings and several key paths from an `NSObject`, observed with Foundation's KVO: the
  // `NSObject`-object column of the calls of `3-API/Bindings/`, disfavoured as the `NSObject` form
  // of `autoObserve` is, so that an object that is also ``KeyValueObservable`` keeps the portable
  // forms (which choose Foundation's KVO for its `@objc` key paths themselves).

  extension KeyValueObserver {
    /// Apple platforms only. Keeps `keyPath` of this object equal to an `@objc` property of an
    /// `NSObject`, observed with Foundation's KVO, until this object or `object` is deallocated,
    /// whichever goes first.
    ///
    /// ```swift
    /// nameLabel.autoBind(\.stringValue, from: person, keyPath: \.name)  // an @objc dynamic name
    /// ```
    ///
    /// Behaves as `autoBind(_:from:keyPath:isolation:file:line:)` from a ``KeyValueObservable``
    /// object: the target takes the current value before this returns, then every later value, skipping
    /// equal `Equatable` values, and never writes while its own write is in progress on the same
    /// thread. The receiver may be a ``KeyValueObservable`` class or any `NSObject`. The key path
    /// must be `@objc`, of KVO-compliant properties; another is reported as
    /// ``ObservationDiagnostic/Kind/unsupportedKeyPath``, and nothing is registered.
    ///
    /// - Parameters:
    ///   - keyPath: The property of this object to write.
    ///   - object: The `NSObject` to read. It is not retained.
    ///   - objectKeyPath: The `@objc` property of `object` to follow.
    ///   - isolation: The caller's actor, captured by default; the writes happen there. Never
    ///     pass it (see <doc:SwiftConcurrency#The-isolation-parameter>).
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    /// - Returns: A handle you may keep to end the binding early, or drop: dropping it does not
    ///   end the binding.
    @_disfavoredOverload
    @discardableResult
    public func autoBind<Object: NSObject, Value>(
      _ keyPath: ReferenceWritableKeyPath<Self, Value>,
      from object: Object,
      keyPath objectKeyPath: KeyPath<Object, Value>,
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line
    ) -> KeyValueObservation {
      bindWithFoundation(
        through: foundationRouter, keyPath, object, objectKeyPath,
        keyPathString: objectKeyPath._kvcKeyPathString, .resolve(isolation: isolation),
        site: RegistrationSite(file: file, line: line, call: .autoBind), transform: { $0 })
    }

    /// Apple platforms only. Keeps `keyPath` of this object equal to `transform` of an `@objc`
    /// property of an `NSObject`, observed with Foundation's KVO, until this object or `object` is
    /// deallocated, whichever goes first.
    ///
    /// Behaves as the form without a transform, writing `transform` of each value.
    ///
    /// - Parameters:
    ///   - keyPath: The property of this object to write.
    ///   - object: The `NSObject` to read. It is not retained.
    ///   - objectKeyPath: The `@objc` property of `object` to follow.
    ///   - isolation: The caller's actor, captured by default; the writes happen there.
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    ///   - transform: Turns `object`'s value into the value written.
    /// - Returns: A handle you may keep to end the binding early, or drop: dropping it does not
    ///   end the binding.
    @_disfavoredOverload
    @discardableResult
    public func autoBind<Object: NSObject, Source, Value>(
      _ keyPath: ReferenceWritableKeyPath<Self, Value>,
      from object: Object,
      keyPath objectKeyPath: KeyPath<Object, Source>,
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line,
      transform: @escaping (Source) -> Value
    ) -> KeyValueObservation {
      bindWithFoundation(
        through: foundationRouter, keyPath, object, objectKeyPath,
        keyPathString: objectKeyPath._kvcKeyPathString, .resolve(isolation: isolation),
        site: RegistrationSite(file: file, line: line, call: .autoBind), transform: transform)
    }

    /// Apple platforms only. Keeps an optional `keyPath` of this object (a label's `text`) equal
    /// to a non-optional `@objc` property of an `NSObject`, observed with Foundation's KVO, until
    /// this object or `object` is deallocated, whichever goes first.
    ///
    /// Behaves as the form whose target is not optional.
    ///
    /// - Parameters:
    ///   - keyPath: The optional property of this object to write.
    ///   - object: The `NSObject` to read. It is not retained.
    ///   - objectKeyPath: The `@objc` property of `object` to follow.
    ///   - isolation: The caller's actor, captured by default; the writes happen there.
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    /// - Returns: A handle you may keep to end the binding early, or drop: dropping it does not
    ///   end the binding.
    @_disfavoredOverload
    @discardableResult
    public func autoBind<Object: NSObject, Value>(
      _ keyPath: ReferenceWritableKeyPath<Self, Value?>,
      from object: Object,
      keyPath objectKeyPath: KeyPath<Object, Value>,
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line
    ) -> KeyValueObservation {
      bindWithFoundation(
        through: foundationRouter, keyPath, object, objectKeyPath,
        keyPathString: objectKeyPath._kvcKeyPathString, .resolve(isolation: isolation),
        site: RegistrationSite(file: file, line: line, call: .autoBind), transform: { $0 })
    }
  }

  extension KeyValueObservable {
    /// Apple platforms only. Observes several `@objc` key paths of an `NSObject` with one handler,
    /// each with Foundation's KVO, until this observer or `object` is deallocated, whichever goes
    /// first.
    ///
    /// Behaves as ``autoObserve(_:keyPaths:options:isolation:file:line:changeHandler:)-7mu3i``:
    /// one call per changed key path, in the order of `keyPaths`, one handle for all of them, and
    /// `stopObserving(object, keyPath:)` ends the key path it names only. A key path that is not
    /// `@objc` is reported as ``ObservationDiagnostic/Kind/unsupportedKeyPath`` and left out; the
    /// others are observed.
    ///
    /// - Parameters:
    ///   - object: The `NSObject` to observe. It is not retained.
    ///   - keyPaths: `@objc` key paths of KVO-compliant properties; one listed twice is observed
    ///     once.
    ///   - options: What to deliver; `[.old, .new]` by default.
    ///   - isolation: The caller's actor, captured by default; the handler runs there.
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    ///   - changeHandler: Called with this observer, the object, the key path that changed and
    ///     its change, type-erased.
    /// - Returns: The one handle of every key path's registration.
    @_disfavoredOverload
    @discardableResult
    public func autoObserve<Object: NSObject>(
      _ object: Object,
      keyPaths: [PartialKeyPath<Object>],
      options: ObservationOptions = [.old, .new],
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler: @escaping (Self, Object, PartialKeyPath<Object>, AnyKeyValueChange) -> Void
    ) -> KeyValueObservation {
      observeKeyPathsWithFoundation(
        through: foundationRouter, object, keyPaths,
        keyPathStrings: keyPaths.map(\._kvcKeyPathString), options,
        .resolve(isolation: isolation), changeHandler,
        site: RegistrationSite(file: file, line: line, call: .autoObserveKeyPaths))
    }
  }
#endif
