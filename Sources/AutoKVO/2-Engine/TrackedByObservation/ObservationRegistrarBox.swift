import _AutoKVOShims

#if canImport(Observation)
  import Observation

  /// The `ObservationRegistrar` through which Swift's Observation framework tracks one
  /// ``KeyValueObservable`` object that also conforms to its `Observable`; kept by the object's
  /// ``ObservationRegistry`` from the object's first tracked read until the object is deallocated.
  ///
  /// A class rather than the registrar itself, so that the registry can hold it in one word that
  /// every access reads without a lock, on deployment targets where the registrar's type does not
  /// exist.
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  @usableFromInline
  final class ObservationRegistrarBox: Sendable {
    @usableFromInline
    let registrar = ObservationRegistrar()

    init() {}
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  extension ObservationRegistry {
    /// The registrar Swift's Observation tracks this registry's object through, made on first
    /// use. Unretained: the registry keeps it for the life of its object, which the caller holds.
    @inlinable
    var swiftObservationRegistrar: Unmanaged<ObservationRegistrarBox> {
      existingSwiftObservationRegistrar ?? makeSwiftObservationRegistrar()
    }

    /// The registrar, if a read that Observation could have tracked made it; `nil` otherwise, and
    /// then no tracking can concern the object: a tracking knows an object only through a read.
    @inlinable
    var existingSwiftObservationRegistrar: Unmanaged<ObservationRegistrarBox>? {
      // Acquire: pairs with the compare-and-swap that published the registrar, so that its
      // contents are visible to a thread that finds it.
      UnsafeRawPointer(bitPattern: autokvo_registrar_slot_load(swiftObservationSlot)).map {
        Unmanaged.fromOpaque($0)
      }
    }

    /// Makes the registrar and publishes it, unless another thread did first: then that one is
    /// kept, and this one released. Called once per object, by its first tracked read.
    @usableFromInline
    func makeSwiftObservationRegistrar() -> Unmanaged<ObservationRegistrarBox> {
      let made = Unmanaged.passRetained(ObservationRegistrarBox())
      let address = Int(bitPattern: made.toOpaque())
      if autokvo_registrar_slot_publish(swiftObservationSlot, address) {
        return made
      }
      made.release()
      return existingSwiftObservationRegistrar!
    }
  }

  /// A key path whose root is Observation's `Observable`: what lets code that holds the key path
  /// as an `AnyKeyPath` (a manual notification, a collection proxy) tell Observation of a change
  /// under the key path's own root and value types, which the registrar's API requires.
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  protocol ObservableRootKeyPath: AnyKeyPath {
    func tell(
      _ phase: SwiftObservationPhase, of object: AnyObject, to registrar: ObservationRegistrar)
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  extension KeyPath: ObservableRootKeyPath where Root: Observable {
    func tell(
      _ phase: SwiftObservationPhase, of object: AnyObject, to registrar: ObservationRegistrar
    ) {
      guard let subject = object as? Root else { return }
      switch phase {
      case .willSet: registrar.willSet(subject, keyPath: self)
      case .didSet: registrar.didSet(subject, keyPath: self)
      }
    }
  }
#endif

extension ObservationRegistry {
  /// Whether Swift's Observation may be tracking this registry's object: one of its reads made
  /// the object's registrar. A change no registration observes still has to be told then.
  @inlinable
  var isTrackedBySwiftObservation: Bool {
    autokvo_registrar_slot_is_set(swiftObservationSlot)
  }

  /// Tells Swift's Observation that the value at `keyPath` of `object` is about to change
  /// (`.willSet`) or changed (`.didSet`), if it may be tracking the object: what a manual
  /// notification or a collection proxy calls around a change, outside AutoKVO's own notifications
  /// (Observation's `willSet` before the registrations' prior calls, its `didSet` after their
  /// handlers; Docs/Design.md). `keyPath` must be the key path the property's reads are tracked
  /// under: for an `@Observed` property, that of its declaration. No lock is held: Observation
  /// runs `onChange` closures here.
  func tellSwiftObservation(
    _ phase: SwiftObservationPhase, of object: AnyObject, keyPath: AnyKeyPath
  ) {
    #if canImport(Observation)
      if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *),
        let registrar = existingSwiftObservationRegistrar,
        let keyPath = keyPath as? any ObservableRootKeyPath
      {
        registrar._withUnsafeGuaranteedRef { keyPath.tell(phase, of: object, to: $0.registrar) }
      }
    #endif
  }
}

/// Which of Observation's two change events ``ObservationRegistry/tellSwiftObservation(_:of:keyPath:)``
/// and the `@Observed` setter's witnesses send.
@usableFromInline
enum SwiftObservationPhase {
  case willSet
  case didSet
}
