// What a registry's lock guards. The records of changes in progress (pending manual changes and the
// registrations they concern) are stored here, with the registrations themselves, because they
// live in the registry's state; the Notification layer alone creates and reads them.

/// The mutable state of one ``ObservationRegistry``.
struct RegistryState {
  /// Sentinels of registrations observing this object, in registration order.
  var incoming = IncomingSentinels()
  /// Sentinels of registrations this object made as an observer.
  var outgoing = OutgoingSentinels()
  /// Manual `willChangeValue(for:)` calls awaiting their `didChangeValue(for:)`.
  var pendingChanges: [PendingChange] = []
  /// The key paths the object has notified by hand (`willChangeValue(for:)`), each once, in the
  /// order first notified: the hops of a chain its class notifies by hand, which a registration
  /// follows (`Dependencies.followUnobservedHops`), and what its class's catalog learned from it
  /// (`HandNotifiedKeyPathCatalog`). Only grows, as the class's own code names them; empty for an
  /// object never notified by hand.
  var manuallyNotifiedKeyPaths: [AnyKeyPath] = []
  /// The ``ObservedProperty`` of each of the object's `@Observed` properties that a registration
  /// has read, in the order they were first read; each property's storage holds its position
  /// (``ObservedPropertyIndex``). Only grows. Inline-first: most objects have one observed
  /// property, and then it costs no heap block at all.
  var properties = InlineFirstArray<ObservedProperty>()
  /// The properties concerned by every registration (``PropertyRegistrations/everyRegistration``),
  /// counted while there are any, with how many sentinels of ``incoming`` must be told before a
  /// set: what such a property takes for its snapshot. `nil` while there are none, so that a
  /// registry none of whose properties was set counts nothing.
  var everyRegistration: EveryRegistrationCount?
  /// Whether a record of ``properties`` is ``ObservedProperty/isReadByEachRegistration``: until
  /// one is, a look-up by key path need not read the record it finds. Declared here, where it
  /// fills the padding after ``everyRegistration`` and leaves the state's size as it was.
  private(set) var hasPropertyReadByEachRegistration = false
  /// The position of each record of ``properties`` by the identity of its key path, kept once
  /// the registry has ``propertyIndexingThreshold`` records, so that finding a property's record
  /// costs the same however many are observed. A record keeps its key path for the life of the
  /// registry, so an address is never reused while it is a key.
  private var propertyPositions: [ObjectIdentifier: Int]?
  /// Collection mutations in progress, whose automatic `.setting` notification is suppressed.
  var suppressedKeyPaths: [(thread: UnsafeRawPointer, keyPath: AnyKeyPath)] = []

  /// The number of records from which their positions are kept by key path.
  static var propertyIndexingThreshold: Int { 16 }

  /// Adds the record of a property a recording read, and returns its position, which its
  /// storage keeps (``ObservedPropertyIndex``).
  mutating func appendProperty(_ property: ObservedProperty) -> Int {
    let position = properties.count
    properties.append(property)
    hasPropertyReadByEachRegistration =
      hasPropertyReadByEachRegistration || property.isReadByEachRegistration
    if propertyPositions != nil {
      propertyPositions![ObjectIdentifier(property.keyPath)] = position
    } else if properties.count >= Self.propertyIndexingThreshold {
      var positions = [ObjectIdentifier: Int](minimumCapacity: properties.count)
      var indexed = 0
      properties.forEachElement { property in
        positions[ObjectIdentifier(property.keyPath)] = indexed
        indexed += 1
      }
      propertyPositions = positions
    }
    return position
  }

  /// The position of the record whose key path is the instance `keyPath`, if there is one.
  func position(ofPropertyIdenticalTo keyPath: AnyKeyPath) -> Int? {
    if let propertyPositions { return propertyPositions[ObjectIdentifier(keyPath)] }
    return properties.firstPosition { $0.keyPath === keyPath }
  }

  func isSuppressed(_ keyPath: AnyKeyPath, on thread: UnsafeRawPointer) -> Bool {
    suppressedKeyPaths.contains { $0.thread == thread && $0.keyPath.matches(keyPath) }
  }
}

/// See ``RegistryState/everyRegistration``.
struct EveryRegistrationCount {
  /// How many records are concerned by every registration; never 0.
  var records: Int
  /// How many sentinels of the registry's list must be told before a set.
  var needingNotice: Int
}

/// A manual change between its `willChangeValue(for:)` and its `didChangeValue(for:)`.
struct PendingChange {
  /// The thread that called `willChangeValue(for:)`; pairs match per thread, as in KVO.
  let thread: UnsafeRawPointer
  let change: ChangeDescriptor
  /// The registrations notified at `will`, each with the token (old value) it returned then.
  let notifications: PendingNotifications
  /// The registrations notified at `will` that name the changed property through another class of
  /// its hierarchy; almost always `nil`.
  let inheritedNotifications: InheritedNotifications?
}

/// Registrations a change concerns that name the changed property through another class of its
/// hierarchy, each told under its own key path.
typealias InheritedNotifications = [InheritedNotification]

/// One of ``InheritedNotifications``: the registration, its token, and its key path.
struct InheritedNotification {
  let notification: PendingNotification
  let keyPath: AnyKeyPath
}

/// A change's registrations, each with the token it returned before the change. The first is
/// stored inline: a change that concerns one registration allocates nothing for it.
typealias PendingNotifications = InlineFirstArray<PendingNotification>

/// One registration a change concerns, with the token (the old value, if any) it returned before
/// the change. A struct rather than a tuple: the compiler copies an optional tuple holding an
/// existential through the runtime's generic value witnesses, several times slower.
struct PendingNotification {
  let sentinel: any ObservedSentinel
  let token: Any?
}
