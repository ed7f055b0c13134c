#if canImport(Observation) && canImport(ObjectiveC)
  import Observation

  // On Apple platforms an `@Observable` model is observed by neither engine: the SDKs ship no
  // interface to the tracking the Linux forms use. These forms, one per call that takes a model on
  // Linux, are there only to say so at the call site, instead of "no exact matches"; being
  // unavailable and disfavoured, each is picked only when no other form applies, so a class that
  // is also `KeyValueObservable` or an `NSObject` keeps its own form.

  extension KeyValueObserver {
    /// Apple platforms only: unavailable. An `@Observable` model cannot be observed by AutoKVO on
    /// Apple platforms, whose SDKs expose no interface to the tracking it would need.
    ///
    /// Make the class ``KeyValueObservable`` with ``Observed`` properties instead: it stays
    /// `Observable` for SwiftUI (see <doc:ObservationAndSwiftUI>), and every `autoObserve` form
    /// works with it.
    @available(
      *, unavailable,
      message:
        "AutoKVO cannot observe an @Observable model on Apple platforms: make the class KeyValueObservable, with @Observed properties, which SwiftUI still observes"
    )
    @_disfavoredOverload
    @discardableResult
    public func autoObserve<Object: AnyObject & Observation.Observable, Value>(
      _ model: Object,
      keyPath: KeyPath<Object, Value>,
      options: ObservationOptions = [.old, .new],
      changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
    ) -> KeyValueObservation {
      fatalError("unavailable")
    }

    /// Apple platforms only: unavailable. AutoKVO cannot bind from an `@Observable` model on Apple
    /// platforms, whose SDKs expose no interface to the tracking it would need.
    ///
    /// Make the class ``KeyValueObservable`` with ``Observed`` properties instead: it stays
    /// `Observable` for SwiftUI, and every `autoBind` form works with it.
    @available(
      *, unavailable,
      message:
        "AutoKVO cannot bind from an @Observable model on Apple platforms: make the class KeyValueObservable, with @Observed properties, which SwiftUI still observes"
    )
    @_disfavoredOverload
    @discardableResult
    public func autoBind<Object: AnyObject & Observation.Observable, Value>(
      _ keyPath: ReferenceWritableKeyPath<Self, Value>,
      from model: Object,
      keyPath objectKeyPath: KeyPath<Object, Value>
    ) -> KeyValueObservation {
      fatalError("unavailable")
    }

    /// Apple platforms only: unavailable, as the form without a transform is.
    @available(
      *, unavailable,
      message:
        "AutoKVO cannot bind from an @Observable model on Apple platforms: make the class KeyValueObservable, with @Observed properties, which SwiftUI still observes"
    )
    @_disfavoredOverload
    @discardableResult
    public func autoBind<Object: AnyObject & Observation.Observable, Source, Value>(
      _ keyPath: ReferenceWritableKeyPath<Self, Value>,
      from model: Object,
      keyPath objectKeyPath: KeyPath<Object, Source>,
      transform: @escaping (Source) -> Value
    ) -> KeyValueObservation {
      fatalError("unavailable")
    }

    /// Apple platforms only: unavailable, as the form with a non-optional target is.
    @available(
      *, unavailable,
      message:
        "AutoKVO cannot bind from an @Observable model on Apple platforms: make the class KeyValueObservable, with @Observed properties, which SwiftUI still observes"
    )
    @_disfavoredOverload
    @discardableResult
    public func autoBind<Object: AnyObject & Observation.Observable, Value>(
      _ keyPath: ReferenceWritableKeyPath<Self, Value?>,
      from model: Object,
      keyPath objectKeyPath: KeyPath<Object, Value>
    ) -> KeyValueObservation {
      fatalError("unavailable")
    }
  }

  extension KeyValueObservable {
    /// Apple platforms only: unavailable. An `@Observable` model cannot be observed by AutoKVO on
    /// Apple platforms, whose SDKs expose no interface to the tracking it would need.
    ///
    /// Make the class ``KeyValueObservable`` with ``Observed`` properties instead: it stays
    /// `Observable` for SwiftUI, and `autoObserve(_:keyPaths:)` works with it.
    @available(
      *, unavailable,
      message:
        "AutoKVO cannot observe an @Observable model on Apple platforms: make the class KeyValueObservable, with @Observed properties, which SwiftUI still observes"
    )
    @_disfavoredOverload
    @discardableResult
    public func autoObserve<Object: AnyObject & Observation.Observable>(
      _ model: Object,
      keyPaths: [PartialKeyPath<Object>],
      options: ObservationOptions = [.old, .new],
      changeHandler: @escaping (Self, Object, PartialKeyPath<Object>, AnyKeyValueChange) -> Void
    ) -> KeyValueObservation {
      fatalError("unavailable")
    }
  }
#endif
