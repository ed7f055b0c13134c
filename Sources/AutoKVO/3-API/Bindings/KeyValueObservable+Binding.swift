#if canImport(ObjectiveC)
  import ObjectiveC
#endif

extension KeyValueObservable {
  /// Keeps `keyPath` of this object equal to `objectKeyPath` of `object`, until this object or
  /// `object` is deallocated, whichever goes first, with no teardown code.
  ///
  /// This object, the target, owns the binding: it is its registration on `object`, as with
  /// `autoObserve(_:keyPath:options:isolation:file:line:changeHandler:)`, Cocoa Bindings'
  /// `bind(_:to:withKeyPath:options:)` the other way round from Combine's `assign(to:on:)`, and it
  /// retains neither side.
  ///
  /// <!-- snippet-glue
  /// final class Label: KeyValueObservable {
  ///     let observationRegistry = ObservationRegistry()
  ///     var text: String = ""
  /// }
  /// let nameLabel = Label()
  /// let person = Person()
  /// -->
  /// ```swift
  /// nameLabel.autoBind(\.text, from: person, keyPath: \.name)  // person.name → nameLabel.text
  /// ```
  ///
  /// The target takes `object`'s current value before this method returns, and the whole value
  /// after every change `autoObserve(_:keyPath:options:isolation:file:line:changeHandler:)`
  /// would report (a collection as it now is, after a mutation). The target's property need not
  /// be observable. When the value's type is `Equatable` (checked at run time), a value equal to
  /// the target's is not written. The binding never writes while its own write is in progress on
  /// the same thread: a cycle of bindings (`a → b` and `b → a`) ends after one lap.
  ///
  /// Writes happen where an `autoObserve` handler registered from the same place would run:
  /// during the set, on the mutating thread, from nonisolated code; on the caller's actor from an
  /// actor. The property must be safe to write there. After ``KeyValueObservation/cancel()``
  /// returned, nothing more is written; when `object` goes first, the target keeps the last
  /// value. Binding a property to itself is reported as an ``ObservationDiagnostic``
  /// (``ObservationDiagnostic/Kind/bindingToItself``) and registers nothing.
  ///
  /// - Parameters:
  ///   - keyPath: The property of this object to write.
  ///   - object: The object to read. It is not retained.
  ///   - objectKeyPath: The property of `object` to follow.
  ///   - isolation: The caller's actor, captured by default; the writes happen there.
  ///   - file: The file of the call, which diagnostics name; leave it to its default.
  ///   - line: The line of the call, likewise.
  /// - Returns: A handle you may keep to end the binding early, or drop: dropping it does not end
  ///   the binding.
  @discardableResult
  @inlinable
  public func autoBind<Object: KeyValueObservable, Value>(
    _ keyPath: ReferenceWritableKeyPath<Self, Value>,
    from object: Object,
    keyPath objectKeyPath: KeyPath<Object, Value>,
    isolation: isolated (any Actor)? = #isolation,
    file: StaticString = #fileID,
    line: UInt = #line
  ) -> KeyValueObservation {
    registerBinding(
      keyPath, object, objectKeyPath, .resolve(isolation: isolation),
      site: RegistrationSite(file: file, line: line, call: .autoBind), transform: { $0 })
  }

  /// Keeps `keyPath` of this object equal to `transform` of `objectKeyPath` of `object`, until
  /// this object or `object` is deallocated, whichever goes first.
  ///
  /// <!-- snippet-glue
  /// final class Label: KeyValueObservable {
  ///     let observationRegistry = ObservationRegistry()
  ///     var text: String = ""
  /// }
  /// let ageLabel = Label()
  /// let person = Person()
  /// -->
  /// ```swift
  /// ageLabel.autoBind(\.text, from: person, keyPath: \.age) { "\($0) years" }
  /// ```
  ///
  /// Everything `autoBind(_:from:keyPath:isolation:file:line:)` promises holds, for the
  /// transformed value; the transform runs where the writes happen, and is released when the
  /// binding ends.
  ///
  /// - Parameters:
  ///   - keyPath: The property of this object to write.
  ///   - object: The object to read. It is not retained.
  ///   - objectKeyPath: The property of `object` to follow.
  ///   - isolation: The caller's actor, captured by default; the writes happen there.
  ///   - file: The file of the call, which diagnostics name; leave it to its default.
  ///   - line: The line of the call, likewise.
  ///   - transform: Turns `object`'s value into the value written.
  /// - Returns: A handle you may keep to end the binding early, or drop: dropping it does not end
  ///   the binding.
  @discardableResult
  @inlinable
  public func autoBind<Object: KeyValueObservable, Source, Value>(
    _ keyPath: ReferenceWritableKeyPath<Self, Value>,
    from object: Object,
    keyPath objectKeyPath: KeyPath<Object, Source>,
    isolation: isolated (any Actor)? = #isolation,
    file: StaticString = #fileID,
    line: UInt = #line,
    transform: @escaping (Source) -> Value
  ) -> KeyValueObservation {
    registerBinding(
      keyPath, object, objectKeyPath, .resolve(isolation: isolation),
      site: RegistrationSite(file: file, line: line, call: .autoBind), transform: transform)
  }

  /// Keeps an optional `keyPath` of this object equal to a non-optional `objectKeyPath` of
  /// `object`, until this object or `object` is deallocated, whichever goes first.
  ///
  /// <!-- snippet-glue
  /// final class Label: KeyValueObservable {
  ///     let observationRegistry = ObservationRegistry()
  ///     var text: String? = ""
  /// }
  /// let nameLabel = Label()
  /// let person = Person()
  /// -->
  /// ```swift
  /// nameLabel.autoBind(\.text, from: person, keyPath: \.name)  // text: String?, name: String
  /// ```
  ///
  /// Everything `autoBind(_:from:keyPath:isolation:file:line:)` promises holds.
  ///
  /// - Parameters:
  ///   - keyPath: The optional property of this object to write.
  ///   - object: The object to read. It is not retained.
  ///   - objectKeyPath: The property of `object` to follow.
  ///   - isolation: The caller's actor, captured by default; the writes happen there.
  ///   - file: The file of the call, which diagnostics name; leave it to its default.
  ///   - line: The line of the call, likewise.
  /// - Returns: A handle you may keep to end the binding early, or drop: dropping it does not end
  ///   the binding.
  @discardableResult
  @inlinable
  public func autoBind<Object: KeyValueObservable, Value>(
    _ keyPath: ReferenceWritableKeyPath<Self, Value?>,
    from object: Object,
    keyPath objectKeyPath: KeyPath<Object, Value>,
    isolation: isolated (any Actor)? = #isolation,
    file: StaticString = #fileID,
    line: UInt = #line
  ) -> KeyValueObservation {
    registerBinding(
      keyPath, object, objectKeyPath, .resolve(isolation: isolation),
      site: RegistrationSite(file: file, line: line, call: .autoBind), transform: { $0 })
  }

  /// Registers a one-way binding (``OneWayBinding``): what every form of `autoBind` with a
  /// ``KeyValueObservable`` target does. Inlinable, so that the binding's handler is specialized
  /// where `autoBind` is called.
  @inlinable
  func registerBinding<Object: KeyValueObservable, Source, Value>(
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
    let handler = OneWayBinding.handler(writing: keyPath, from: objectKeyPath, transform: transform)
    #if canImport(ObjectiveC)
      // An `NSObject`'s `@objc` key path is Foundation's to observe, as in `autoObserve`.
      if Object.self is NSObject.Type,
        let foundationObject = object as? any FoundationObservedObject,
        let observation = foundationObject.registerWithFoundationIfObjectiveC(
          by: self, of: object, objectKeyPath, OneWayBinding.options, delivery, handler,
          site: site)
      {
        return observation
      }
    #endif
    return registerAdapted(
      object, objectKeyPath, OneWayBinding.options, delivery,
      adaptedHandler: adaptHandler(handler), site: site)
  }
}
