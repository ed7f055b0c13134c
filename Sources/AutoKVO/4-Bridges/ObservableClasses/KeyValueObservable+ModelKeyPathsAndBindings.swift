#if canImport(Observation) && !canImport(ObjectiveC)
  import Dispatch
  import Observation

  // Several key paths and one-way bindings from `@Observable` models: the calls of
  // `3-API/Bindings/` for an object that Observation's registrar reports, made of the model forms
  // of `autoObserve`. `@_disfavoredOverload`, as those are, so that a class that is both
  // `KeyValueObservable` and `Observable` keeps AutoKVO's own forms.

  extension KeyValueObservable {
    /// Linux only. Observes several key paths of an `@Observable` model with one handler, until
    /// this observer or `model` is deallocated, whichever goes first.
    ///
    /// The form of `autoObserve(_:keyPaths:options:isolation:file:line:changeHandler:)` for a
    /// class that conforms to Observation's `Observable`: each listed key path is observed as
    /// `autoObserve(_:keyPath:options:isolation:file:line:changeHandler:)` observes it on a
    /// model, the handler receives the element of `keyPaths` that changed, and the returned
    /// handle ends every key path at once. `stopObserving(_:keyPath:)` ends one key path only.
    ///
    /// - Parameters:
    ///   - model: The model to observe. It is not retained.
    ///   - keyPaths: The key paths to observe; one listed twice is observed once. An empty list
    ///     is refused with an ``ObservationDiagnostic`` of kind
    ///     ``ObservationDiagnostic/Kind/emptyKeyPaths``.
    ///   - options: What to deliver; `[.old, .new]` by default.
    ///   - isolation: The caller's actor, captured by default; the handler runs there. Never
    ///     pass it (see <doc:SwiftConcurrency#The-isolation-parameter>).
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    ///   - changeHandler: Called with the observer, the model, the key path that changed and its
    ///     change, type-erased.
    /// - Returns: The one handle of every key path's registration.
    @_disfavoredOverload
    @discardableResult
    public func autoObserve<Object: AnyObject & Observation.Observable>(
      _ model: Object,
      keyPaths: [PartialKeyPath<Object>],
      options: ObservationOptions = [.old, .new],
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler: @escaping (Self, Object, PartialKeyPath<Object>, AnyKeyValueChange) -> Void
    ) -> KeyValueObservation {
      registerModelKeyPaths(
        model, keyPaths, options, .resolve(isolation: isolation), changeHandler,
        site: RegistrationSite(file: file, line: line, call: .autoObserveKeyPaths))
    }

    /// Linux only. Observes several key paths of an `@Observable` model with one `@Sendable`
    /// handler, which runs on `deliveryQueue`, in the order of the changes, whichever key path
    /// changed; as `autoObserve(_:keyPaths:options:isolation:file:line:changeHandler:)` otherwise.
    ///
    /// - Parameters:
    ///   - model: The model to observe. It is not retained.
    ///   - keyPaths: The key paths to observe; one listed twice is observed once.
    ///   - options: What to deliver; `[.old, .new]` by default.
    ///   - deliveryQueue: The queue the handler runs on.
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    ///   - changeHandler: Called with the observer, the model, the key path that changed and its
    ///     change, type-erased.
    /// - Returns: The one handle of every key path's registration.
    @_disfavoredOverload
    @discardableResult
    public func autoObserve<Object: AnyObject & Observation.Observable>(
      _ model: Object,
      keyPaths: [PartialKeyPath<Object>],
      options: ObservationOptions = [.old, .new],
      deliveryQueue: DispatchQueue,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler:
        @escaping @Sendable (Self, Object, PartialKeyPath<Object>, AnyKeyValueChange) -> Void
    ) -> KeyValueObservation {
      registerModelKeyPaths(
        model, keyPaths, options, .resolve(queue: deliveryQueue), changeHandler,
        site: RegistrationSite(file: file, line: line, call: .autoObserveKeyPaths))
    }

    /// Linux only. Keeps `keyPath` of this object equal to `objectKeyPath` of an `@Observable`
    /// model, until either is deallocated: the form of `autoBind(_:from:keyPath:isolation:file:line:)`
    /// for a model, with the same guarantees (the initial value, every later change, equal values
    /// not written, no loop, the same lifetime and threads).
    ///
    /// - Parameters:
    ///   - keyPath: The property of this object that is written.
    ///   - model: The model read. It is not retained.
    ///   - objectKeyPath: The key path of `model` whose value is written.
    ///   - isolation: The caller's actor, captured by default; writes happen there. Never pass
    ///     it (see <doc:SwiftConcurrency#The-isolation-parameter>).
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    /// - Returns: The binding's handle.
    @_disfavoredOverload
    @discardableResult
    @inlinable
    public func autoBind<Object: AnyObject & Observation.Observable, Value>(
      _ keyPath: ReferenceWritableKeyPath<Self, Value>,
      from model: Object,
      keyPath objectKeyPath: KeyPath<Object, Value>,
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line
    ) -> KeyValueObservation {
      registerModelBinding(
        keyPath, model, objectKeyPath, .resolve(isolation: isolation),
        site: RegistrationSite(file: file, line: line, call: .autoBind), transform: { $0 })
    }

    /// Linux only. Keeps `keyPath` of this object equal to `objectKeyPath` of an `@Observable`
    /// model, transformed: the form of
    /// `autoBind(_:from:keyPath:isolation:file:line:transform:)` for a model.
    ///
    /// - Parameters:
    ///   - keyPath: The property of this object that is written.
    ///   - model: The model read. It is not retained.
    ///   - objectKeyPath: The key path of `model` whose value is transformed and written.
    ///   - isolation: The caller's actor, captured by default; writes happen there. Never pass
    ///     it (see <doc:SwiftConcurrency#The-isolation-parameter>).
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    ///   - transform: Makes the written value from the model's; released when the binding ends.
    /// - Returns: The binding's handle.
    @_disfavoredOverload
    @discardableResult
    @inlinable
    public func autoBind<Object: AnyObject & Observation.Observable, Source, Value>(
      _ keyPath: ReferenceWritableKeyPath<Self, Value>,
      from model: Object,
      keyPath objectKeyPath: KeyPath<Object, Source>,
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line,
      transform: @escaping (Source) -> Value
    ) -> KeyValueObservation {
      registerModelBinding(
        keyPath, model, objectKeyPath, .resolve(isolation: isolation),
        site: RegistrationSite(file: file, line: line, call: .autoBind), transform: transform)
    }

    /// Linux only. Keeps an optional `keyPath` of this object equal to a non-optional
    /// `objectKeyPath` of an `@Observable` model: the form of the optional-target `autoBind` for a
    /// model.
    ///
    /// - Parameters:
    ///   - keyPath: The optional property of this object that is written.
    ///   - model: The model read. It is not retained.
    ///   - objectKeyPath: The key path of `model` whose value is written.
    ///   - isolation: The caller's actor, captured by default; writes happen there. Never pass
    ///     it (see <doc:SwiftConcurrency#The-isolation-parameter>).
    ///   - file: The file of the call, which diagnostics name; leave it to its default.
    ///   - line: The line of the call, likewise.
    /// - Returns: The binding's handle.
    @_disfavoredOverload
    @discardableResult
    @inlinable
    public func autoBind<Object: AnyObject & Observation.Observable, Value>(
      _ keyPath: ReferenceWritableKeyPath<Self, Value?>,
      from model: Object,
      keyPath objectKeyPath: KeyPath<Object, Value>,
      isolation: isolated (any Actor)? = #isolation,
      file: StaticString = #fileID,
      line: UInt = #line
    ) -> KeyValueObservation {
      registerModelBinding(
        keyPath, model, objectKeyPath, .resolve(isolation: isolation),
        site: RegistrationSite(file: file, line: line, call: .autoBind), transform: { $0 })
    }

    /// What every model form of `autoBind` does: the binding's handler, registered on `model` as
    /// a model form of `autoObserve` registers its handler.
    @inlinable
    func registerModelBinding<Object: AnyObject & Observation.Observable, Source, Value>(
      _ keyPath: ReferenceWritableKeyPath<Self, Value>,
      _ model: Object,
      _ objectKeyPath: KeyPath<Object, Source>,
      _ delivery: HandlerDelivery,
      site: RegistrationSite,
      transform: @escaping (Source) -> Value
    ) -> KeyValueObservation {
      if let refusal = refusalOfBindingToItself(
        keyPath, of: model, objectKeyPath, call: "autoBind", site: site)
      {
        return refusal
      }
      return registerModelObservation(
        model, modelPropertyAccess(objectKeyPath), of: Source.self, OneWayBinding.options,
        delivery,
        adaptedHandler: adaptHandler(
          OneWayBinding.handler(writing: keyPath, from: objectKeyPath, transform: transform)),
        site: site)
    }

    private func registerModelKeyPaths<Object: AnyObject & Observation.Observable>(
      _ model: Object,
      _ keyPaths: [PartialKeyPath<Object>],
      _ options: ObservationOptions,
      _ delivery: HandlerDelivery,
      _ changeHandler: @escaping (Self, Object, PartialKeyPath<Object>, AnyKeyValueChange) -> Void,
      site: RegistrationSite
    ) -> KeyValueObservation {
      registerGroupedKeyPaths(model, keyPaths, site: site) { keyPath in
        func register<Value>(as _: Value.Type) -> KeyValueObservation {
          let typedKeyPath = unsafeDowncast(keyPath, to: KeyPath<Object, Value>.self)
          return registerModelObservation(
            model, modelPropertyAccess(typedKeyPath), of: Value.self, options, delivery,
            adaptedHandler: { observer, model, input in
              changeHandler(
                observer, model, keyPath, AnyKeyValueChange.erasing(input, as: Value.self))
            }, site: site)
        }
        return _openExistential(type(of: keyPath).valueType, do: register)
      }
    }
  }
#endif
