/// A `weak` reference of a ``KeyValueObservable`` class that notifies its observers on every set,
/// and once more, with `nil`, when the object it references is deallocated.
///
/// Declare it as a `weak var` is declared, without an initial value, or with one:
///
/// ```swift
/// final class Item: KeyValueObservable {
///     let observationRegistry = ObservationRegistry()
///     @Observed var title = ""
/// }
/// final class Selection: KeyValueObservable {
///     let observationRegistry = ObservationRegistry()
///     @ObservedWeak var current: Item?
/// }
/// ```
///
/// Its sets notify exactly as an ``Observed`` property's do: every option, manual notification
/// when ``KeyValueObservable/automaticallyNotifiesObservers(for:)`` turns automatic notification
/// off, dependencies and key-path chains through it (`\.current?.title`), the
/// ``KeyValueObservable/changes(for:options:bufferingPolicy:)-43ndc`` sequence, and, in a class that also
/// conforms to Observation's `Observable`, `withObservationTracking` and SwiftUI
/// (<doc:ObservationAndSwiftUI>).
///
/// When the referenced object is deallocated, each registration on the property, or on a key path
/// through it, receives exactly one change to `nil`, where the registration says it runs (the
/// deallocating thread for a registration made from nonisolated code, its actor, its queue): of
/// kind ``ChangeKind/setting``, its ``KeyValueChange/newValue`` a present `nil` when
/// ``ObservationOptions/new`` is asked, and no ``KeyValueChange/oldValue`` even when
/// ``ObservationOptions/old`` is asked, since the object is being deallocated; and no
/// ``ObservationOptions/prior`` call, since the deallocation is learned after the fact. A handler
/// that reads the property then reads `nil`. Told whatever the class answers to
/// ``KeyValueObservable/automaticallyNotifiesObservers(for:)``, since no code of the class can tell
/// of it; Observation, which does not see a `weak` property's zeroing, is not told.
///
/// > Important: The deallocation is seen for every referenced object that is
/// ``KeyValueObservable``, whatever the property's declared type (`AnyObject?` included), and for
/// any object on Apple platforms. On other platforms, the deallocation of an object that is not
/// ``KeyValueObservable`` is not seen: the property reads `nil` and nobody is told, as with a plain
/// `weak var`.
///
/// The property keeps nothing alive. While a registration observes it, it attaches a small
/// sentinel to the referenced object's registry (on Apple platforms, to an associated object of an
/// object that has no registry), which the property detaches when it is replaced or its own object
/// is deallocated. A get costs about what an ``Observed`` reference's get costs; a set nobody
/// observes costs more, as any store to a `weak` reference does (the runtime counts the referent's
/// weak references, and its retains and releases take a slower path once it has one).
/// Docs/Performance.md measures both.
///
/// `ObservedWeak` adds no synchronization of its own: the enclosing class decides which threads
/// may set the property. The referenced object may be deallocated on any thread, including while
/// the property is being set on another.
@propertyWrapper
public struct ObservedWeak<Referent: AnyObject> {
  /// The weak reference, in an object of its own: a struct that holds a weak reference is copied
  /// whole, its weak reference included, by every read of it through the enclosing object, where
  /// a class's field is read where it lies. Never replaced.
  @usableFromInline
  let box: WeakReferenceBox<Referent>

  /// The property's identity among its object's observed properties (see ``Observed``'s). Read and
  /// written only under the enclosing object's registry lock.
  @usableFromInline
  var property: ObservedPropertyIndex

  /// What the property attached to its referent to hear of its deallocation, or `nil`: attached
  /// when a registration reads the property, and by a set while the object is observed, and
  /// released, which detaches it, by the next set or with the object. Written under the enclosing
  /// object's registry lock; the setter's check of whether there is one reads it without.
  @usableFromInline
  var attachment: ReferentAttachment?

  /// Creates the property holding `nil`, as a `weak var` declared without a value does.
  public init() {
    box = WeakReferenceBox(nil)
    property = .none
    attachment = nil
  }

  /// Creates the property referencing `wrappedValue`, without keeping it alive.
  public init(wrappedValue: Referent?) {
    box = WeakReferenceBox(wrappedValue)
    property = .none
    attachment = nil
  }

  /// Unavailable: `@ObservedWeak` reaches its value through the enclosing object.
  @available(
    *, unavailable,
    message:
      "@ObservedWeak is only available on properties of classes that conform to KeyValueObservable"
  )
  public var wrappedValue: Referent? {
    get { fatalError("unreachable: @ObservedWeak is accessed through its enclosing instance") }
    set { fatalError("unreachable: @ObservedWeak is accessed through its enclosing instance") }
  }

  /// Reads and writes the property through its enclosing object, notifying on writes.
  ///
  /// Always inlined into the property's accessors, as ``Observed``'s, and for the same reasons:
  /// the storage accesses are direct field accesses, each instantaneous, and the setter names
  /// neither key path except where Observation's witnesses do.
  @inlinable
  public static subscript<EnclosingSelf: KeyValueObservable>(
    _enclosingInstance object: EnclosingSelf,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Referent?>,
    storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, ObservedWeak<Referent>>
  ) -> Referent? {
    @inline(__always)
    get {
      EnclosingSelf._swiftObservationAccess(object, keyPath: wrappedKeyPath)
      if DependencyRecorder.isAnyThreadRecording {
        noteAccess(object: object, wrappedKeyPath, storageKeyPath)
      }
      return object[keyPath: storageKeyPath].box.referent
    }
    @inline(__always)
    set {
      EnclosingSelf._swiftObservationWillSet(object, keyPath: wrappedKeyPath)
      defer { EnclosingSelf._swiftObservationDidSet(object, keyPath: wrappedKeyPath) }
      let registry = object.observationRegistry
      // An attachment left from when the object was observed is detached by the next set: the
      // referent it is on is no longer referenced.
      if registry.isObserved || object[keyPath: storageKeyPath].attachment != nil {
        setAttaching(newValue, of: object, registry, storageKeyPath)
      } else {
        // The fast path, as `Observed`'s: a weak store, and nothing replaced to release.
        _onFastPath()
        object[keyPath: storageKeyPath].box.referent = newValue
      }
    }
  }

  /// A set that notifies the object's registrations, and moves the attachment from the replaced
  /// referent to the new one.
  ///
  /// The replaced attachment is detached first: from then on the replaced referent's
  /// deallocation, on any thread, posts nothing, and a deallocation that won the race posted its
  /// zeroing before this set's change. The new referent is alive for the whole set (its caller
  /// holds it), so the new attachment is never on a deallocated object.
  @inlinable
  @inline(__always)
  static func setAttaching<EnclosingSelf: KeyValueObservable>(
    _ newValue: Referent?,
    of object: EnclosingSelf,
    _ registry: ObservationRegistry,
    _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, ObservedWeak<Referent>>
  ) {
    var attachment: ReferentAttachment? = nil
    registry.withPropertyLock { swap(&object[keyPath: storageKeyPath].attachment, &attachment) }
    // Released outside the lock: its deinit detaches it, taking the referent's registry lock.
    attachment = nil
    var replacedValue = newValue
    if registry.isObserved {
      Observed<Referent?>.performNotifyingSet(
        of: object, registry, newValue, replacing: &replacedValue,
        property: { object[keyPath: storageKeyPath].property },
        exchange: { swap(&object[keyPath: storageKeyPath].box.referent, &$0) })
    } else {
      swap(&object[keyPath: storageKeyPath].box.referent, &replacedValue)
    }
    let property = registry.withPropertyLock { object[keyPath: storageKeyPath].property }
    if let newValue, property != .none, registry.isObserved {
      attach(to: newValue, of: object, property, storageKeyPath)
    }
  }

  /// Tells the recorder of this thread, if any, that the property was read, making its record the
  /// first time, and attaches to the referent, unless the property is already attached to it, so
  /// that a registration that reads the property hears of the referent's deallocation.
  @inlinable
  @inline(__always)
  static func noteAccess<EnclosingSelf: KeyValueObservable>(
    object: EnclosingSelf,
    _ wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Referent?>,
    _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, ObservedWeak<Referent>>
  ) {
    guard DependencyRecorder.isRecordingOnThisThread,
      let property = recordedProperty(
        of: object, wrappedKeyPath, storageKeyPath, isReadByEachRegistration: true)
    else { return }
    let referent = object[keyPath: storageKeyPath].box.referent
    if let referent {
      let registry = object.observationRegistry
      let isAttached = registry.withPropertyLock {
        object[keyPath: storageKeyPath].attachment?.isAttached(to: referent) ?? false
      }
      if !isAttached {
        attach(to: referent, of: object, property, storageKeyPath)
      }
    }
    DependencyRecorder.noteAccessWhileRecording(
      object: object, keyPath: wrappedKeyPath, property: property, value: referent)
  }

  /// Attaches to `referent`, the property's referent, which the caller holds, and keeps the
  /// attachment in the storage, unless another thread's recording attached to it meanwhile.
  /// Attaching takes the referent's registry lock: never under the object's own, since each of two
  /// objects may reference the other.
  @inlinable
  @inline(__always)
  static func attach<EnclosingSelf: KeyValueObservable>(
    to referent: Referent,
    of object: EnclosingSelf,
    _ property: ObservedPropertyIndex,
    _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, ObservedWeak<Referent>>
  ) {
    var attachment = ReferentAttachment.attach(to: referent, of: object, property: property)
    guard attachment != nil else { return }
    let registry = object.observationRegistry
    registry.withPropertyLock {
      if object[keyPath: storageKeyPath].attachment?.isAttached(to: referent) != true {
        swap(&object[keyPath: storageKeyPath].attachment, &attachment)
      }
    }
    // The attachment replaced, or the one not needed: released outside the lock, which detaches it.
    attachment = nil
  }
}

extension ObservedWeak: Sendable where Referent: Sendable {}

/// The weak reference of an ``ObservedWeak`` property.
// @unchecked Sendable: as `ObservedWeak` itself, it adds no synchronization; the enclosing class
// decides which threads may set the property. A weak load or store is atomic.
@usableFromInline
final class WeakReferenceBox<Referent: AnyObject>: @unchecked Sendable {
  /// Unchecked: every access is a single load or store, inlined into the enclosing class's
  /// accessors in other modules, where the compiler could not prove it exclusive and would check
  /// each one at run time.
  @usableFromInline
  @exclusivity(unchecked)
  weak var referent: Referent?

  @usableFromInline
  init(_ referent: Referent?) {
    self.referent = referent
  }
}

extension ObservedWeak: ObservedStorage {}
