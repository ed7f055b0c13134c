#if canImport(Observation)
  import Observation

  /// What makes an `@Observed` property of a class that conforms to both ``KeyValueObservable`` and
  /// Observation's `Observable` visible to Swift's Observation framework, and so to SwiftUI: the
  /// witnesses the compiler chooses for such a class instead of the defaults that do nothing.
  ///
  /// Each reports what the `@Observable` macro's accessors report, under the key path of the
  /// property's declaration, through the registrar the object's ``ObservationRegistry`` keeps.
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  extension KeyValueObservable where Self: Observation.Observable {
    /// Reports a read of the property at `keyPath` to Observation, which tracks it when the read is
    /// made inside `withObservationTracking`'s `apply` closure (or a SwiftUI view's `body`).
    /// Implementation detail; see ``KeyValueObservable/_swiftObservationAccess(_:keyPath:)``.
    @inlinable
    public static func _swiftObservationAccess<Object, Value>(
      _ object: Object, keyPath: KeyPath<Object, Value>
    ) {
      guard let (object, keyPath) = bridged(object, keyPath) else { return }
      object.observationRegistry.swiftObservationRegistrar._withUnsafeGuaranteedRef {
        $0.registrar.access(object, keyPath: keyPath)
      }
    }

    /// Tells Observation that the property at `keyPath` is about to be set: its `onChange`
    /// closures run now, before the value is stored. Implementation detail.
    @inlinable
    public static func _swiftObservationWillSet<Object, Value>(
      _ object: Object, keyPath: KeyPath<Object, Value>
    ) {
      tell(.willSet, object, keyPath)
    }

    /// Tells Observation that the property at `keyPath` was set. Implementation detail.
    @inlinable
    public static func _swiftObservationDidSet<Object, Value>(
      _ object: Object, keyPath: KeyPath<Object, Value>
    ) {
      tell(.didSet, object, keyPath)
    }

    /// Tells the object's registrar of a set, if a read has made it: until then no tracking can
    /// concern the object. `phase` is a constant where this is inlined.
    @inlinable
    static func tell<Object, Value>(
      _ phase: SwiftObservationPhase, _ object: Object, _ keyPath: KeyPath<Object, Value>
    ) {
      guard let (object, keyPath) = bridged(object, keyPath) else { return }
      object.observationRegistry.existingSwiftObservationRegistrar?._withUnsafeGuaranteedRef {
        switch phase {
        case .willSet: $0.registrar.willSet(object, keyPath: keyPath)
        case .didSet: $0.registrar.didSet(object, keyPath: keyPath)
        }
      }
    }

    /// The object and key path as `Self`'s, which the registrar's API requires. `Object` is
    /// `Self` at every call (the accessors of `Self`'s own properties), so in the specialized
    /// accessor both casts are folded away; they fail, and nothing is reported, only for a caller
    /// that breaks that rule.
    @inlinable
    static func bridged<Object, Value>(
      _ object: Object, _ keyPath: KeyPath<Object, Value>
    ) -> (Self, KeyPath<Self, Value>)? {
      guard let object = object as? Self, let keyPath = keyPath as? KeyPath<Self, Value> else {
        return nil
      }
      return (object, keyPath)
    }
  }
#endif
