/// A class whose instances take part in observation, as observed objects, as observers, or both.
///
/// Conform and store a registry; mark the properties that notify with ``Observed``:
///
/// ```swift
/// final class Person: KeyValueObservable {
///     let observationRegistry = ObservationRegistry()
///     @Observed var name = "Ann"
/// }
/// ```
///
/// Every registration ends by itself, exactly once, when either the observer or the observed
/// object is deallocated; a notification never reaches a deallocated observer.
///
/// Conform to Observation's `Observable` as well, and write nothing else, for SwiftUI and
/// `withObservationTracking` to track the class's ``Observed`` properties
/// (<doc:ObservationAndSwiftUI>).
///
/// The protocol does not require `Sendable`, and AutoKVO makes no class `Sendable`: a
/// conforming class may be a `@MainActor` model, an actor-confined object, or a `Sendable`
/// class that guards its own state. Its ``observationRegistry`` is thread-safe either way.
public protocol KeyValueObservable: KeyValueObserver {
  /// The object's observation storage; declare it as `let observationRegistry = ObservationRegistry()`.
  var observationRegistry: ObservationRegistry { get }

  /// Whether setting an ``Observed`` property notifies observers by itself. The default is
  /// `true` for every key path.
  ///
  /// Return `false` for a key path whose observers you notify yourself with
  /// ``willChangeValue(for:)`` and ``didChangeValue(for:)``, as with KVO's
  /// `automaticallyNotifiesObservers(forKey:)`. As KVO asks once per class and key, AutoKVO asks
  /// once per property and object, when a registration first reads the property, with the key
  /// path of the property's declaration (`\Base.items` for a property declared in `Base`), so the
  /// answer must not change over the object's life:
  ///
  /// <!-- snippet-glue
  /// final class Account: KeyValueObservable {
  ///     let observationRegistry = ObservationRegistry()
  ///     @Observed var balance = 0
  /// <snippet>
  /// }
  /// -->
  /// ```swift
  /// static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool {
  ///     keyPath != \Account.balance
  /// }
  /// ```
  static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool

  /// The key paths of this class whose changes also change the value at `keyPath`. The default
  /// is empty.
  ///
  /// AutoKVO discovers the `@Observed` properties a computed property reads by itself; declare
  /// here only what its getter does not read directly, as with KVO's
  /// `keyPathsForValuesAffectingValue(forKey:)`. Declarations are followed transitively, and
  /// cycles among them are harmless.
  ///
  /// <!-- snippet-glue
  /// final class Document: KeyValueObservable {
  ///     let observationRegistry = ObservationRegistry()
  ///     @Observed var fileURL = "untitled.txt"
  ///     var title: String { fileURL }
  /// <snippet>
  /// }
  /// -->
  /// ```swift
  /// static func keyPathsForValuesAffecting(_ keyPath: AnyKeyPath) -> Set<AnyKeyPath> {
  ///     keyPath == \Document.title ? [\Document.fileURL] : []
  /// }
  /// ```
  static func keyPathsForValuesAffecting(_ keyPath: AnyKeyPath) -> Set<AnyKeyPath>

  /// Implementation detail of ``Observed``'s interoperation with Swift's Observation framework:
  /// reports a read of the property at `keyPath` of `object` to Observation. Do not implement or
  /// call it; it has no stability promise.
  ///
  /// A requirement, rather than a check in `@Observed`'s getter, so that the compiler chooses at
  /// the conformance what a read does: nothing for a class that does not conform to Observation's
  /// `Observable` (the default), the report for one that does (``KeyValueObservable``'s extension
  /// where `Self: Observable`). `Object` is always `Self`: a requirement that named
  /// `KeyPath<Self, Value>` could not be met by a class that is not `final`.
  static func _swiftObservationAccess<Object, Value>(
    _ object: Object, keyPath: KeyPath<Object, Value>
  )

  /// Implementation detail: tells Swift's Observation that the property at `keyPath` of `object`
  /// is about to be set; see ``_swiftObservationAccess(_:keyPath:)``.
  static func _swiftObservationWillSet<Object, Value>(
    _ object: Object, keyPath: KeyPath<Object, Value>
  )

  /// Implementation detail: tells Swift's Observation that the property at `keyPath` of `object`
  /// was set; see ``_swiftObservationAccess(_:keyPath:)``.
  static func _swiftObservationDidSet<Object, Value>(
    _ object: Object, keyPath: KeyPath<Object, Value>
  )
}

extension KeyValueObservable {
  /// Returns `true`: every ``Observed`` property notifies when set.
  public static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool {
    true
  }

  /// Returns an empty set: no declared dependencies.
  public static func keyPathsForValuesAffecting(_ keyPath: AnyKeyPath) -> Set<AnyKeyPath> {
    []
  }

  /// Does nothing: a class that does not conform to Observation's `Observable` is not tracked by
  /// it, and its reads cost nothing more.
  @inlinable
  public static func _swiftObservationAccess<Object, Value>(
    _ object: Object, keyPath: KeyPath<Object, Value>
  ) {}

  /// Does nothing; see ``_swiftObservationAccess(_:keyPath:)-(Self,_)``.
  @inlinable
  public static func _swiftObservationWillSet<Object, Value>(
    _ object: Object, keyPath: KeyPath<Object, Value>
  ) {}

  /// Does nothing; see ``_swiftObservationAccess(_:keyPath:)-(Self,_)``.
  @inlinable
  public static func _swiftObservationDidSet<Object, Value>(
    _ object: Object, keyPath: KeyPath<Object, Value>
  ) {}
}

extension KeyValueObservable {
  /// This object's registry, read twice: `nil`, after a diagnostic, when the two reads return
  /// different registries. A computed `observationRegistry` (what the compiler's "add stubs"
  /// fix-it suggests, filled in as `{ ObservationRegistry() }`) makes a new registry on every
  /// read, which would end every registration as soon as it is made, silently.
  ///
  /// - Parameters:
  ///   - role: How the registration uses the object, for the message: "observe with", "observe".
  ///   - site: Where the registration was made, when the caller knows.
  func stableObservationRegistry(
    toBeUsedTo role: String,
    site: RegistrationSite? = nil
  ) -> ObservationRegistry? {
    let registry = observationRegistry
    guard observationRegistry === registry else {
      ObservationDiagnostics.report(
        .unstableRegistry,
        "\(Self.self).observationRegistry returned a different ObservationRegistry on each read, "
          + "so AutoKVO cannot \(role) it and registered nothing\(site.diagnosticSuffix). "
          + "Declare it as a stored constant: `let observationRegistry = ObservationRegistry()`."
      )
      return nil
    }
    return registry
  }

  /// Reports a registration made while this observer or `object` is being deallocated (from its
  /// `deinit`), and returns the already-ended handle that stands for it
  /// (``KeyValueObservation/isCancelled`` is `true`): nothing could ever be delivered to a side
  /// that is going.
  func refuseRegistrationOfDeallocatingSide(
    with object: AnyObject,
    keyPath: AnyKeyPath?,
    site: RegistrationSite?
  ) -> KeyValueObservation {
    let observerIsGoing = ObjectReference.hasBegunDeallocating(self)
    let dying =
      observerIsGoing ? "the observer, \(Self.self)," : "the observed object, \(type(of: object)),"
    ObservationDiagnostics.report(
      .registrationWhileDeallocating,
      registrationDescription(of: object, keyPath: keyPath, site: site)
        + " was called while \(dying) is being deallocated (from its deinit): nothing was "
        + "registered, and the returned observation is already cancelled."
    )
    // Ended as if the registration had been made just before: by the side that is going.
    return .refused(endedFor: observerIsGoing ? .observerDeallocated : .observedDeallocated)
  }

  /// Reports a registration refused because the observer's or `object`'s registry already serves
  /// another object (one registry stored by two objects), and returns its already-ended handle.
  func refuseRegistrationThroughSharedRegistry(
    with object: AnyObject,
    keyPath: AnyKeyPath?,
    site: RegistrationSite?
  ) -> KeyValueObservation {
    let shared =
      (object as? any KeyValueObservable).map { !$0.observationRegistry.serves(object) } ?? false
      ? "the observed object's, \(type(of: object))," : "the observer's, \(Self.self),"
    ObservationDiagnostics.report(
      .sharedRegistry,
      registrationDescription(of: object, keyPath: keyPath, site: site)
        + ": \(shared) observationRegistry already serves another object. A registry serves the "
        + "one object that stores it: give each object its own "
        + "(`let observationRegistry = ObservationRegistry()`). Nothing was registered, and the "
        + "returned observation is already cancelled."
    )
    return .refused()
  }

  /// `autoObserve(_:keyPath: Person.name) of Person by Badge at File.swift:12`: how a refusal's
  /// diagnostic names the registration.
  private func registrationDescription(
    of object: AnyObject,
    keyPath: AnyKeyPath?,
    site: RegistrationSite?
  ) -> String {
    let named = keyPath.flatMap { PropertyNames.name(of: $0, on: object) }
    return "\(site.openingOfCallName)\(named.map { " \($0)" } ?? "")) of \(type(of: object)) "
      + "by \(Self.self)\(site.diagnosticSuffix)"
  }
}
