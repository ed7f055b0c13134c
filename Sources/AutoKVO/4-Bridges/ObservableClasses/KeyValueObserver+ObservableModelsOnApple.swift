#if canImport(Observation) && canImport(ObjectiveC)
  import Observation

  // On Apple platforms an `@Observable` model is observed by neither engine: the SDKs ship no
  // interface to the tracking the Linux forms use. This form is there only to say so at the call
  // site, instead of "no exact matches"; being unavailable and disfavoured, it is picked only when
  // no other form applies, so a class that is also `KeyValueObservable` or an `NSObject` keeps its
  // own form.

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
  }
#endif
