#if canImport(ObjectiveC)
  import ObjectiveC
#endif

/// The sentinel an `@ObservedWeak` property attaches to the registry of the object it references,
/// which posts the property's zeroing on the property's object, its holder, when the referenced
/// object is deallocated.
///
/// Its registration has no observer side, as a chain link's has none: the referent's registry ends
/// it when the referent is deallocated, and the property's ``ReferentAttachment`` ends it when the
/// property is replaced or its holder is deallocated; exactly once, whichever comes first, on
/// whichever thread. Only the end by the referent's deallocation posts the zeroing. It keeps
/// neither object alive.
final class ZeroingSentinel<Holder: KeyValueObservable, Referent: AnyObject>:
  ExternallyNotifiedSentinel,
  @unchecked Sendable  // immutable; the holder is loaded by a try-retain, atomic
{
  let observation = KeyValueObservation()

  /// The holder, without keeping it alive: loaded when the referent dies, which may be on any
  /// thread while the holder is being deallocated on another; the load then fails.
  private let holder: ObjectReference

  /// The property's identity in its holder, by which the holder's registry finds its key path.
  private let property: ObservedPropertyIndex

  init(holder: Holder, property: ObservedPropertyIndex) {
    self.holder = ObjectReference(holder)
    self.property = property
  }

  deinit {
    holder.release()
  }

  func observedObjectIsDeallocating() {
    // Lost to the property's replacement or its holder's deallocation: nothing to tell.
    guard observation.end(.observedDeallocated),
      let holder = holder.load(as: Holder.self)
    else { return }
    let none: Referent? = nil
    withUnsafePointer(to: none) { none in
      holder.observationRegistry.weakPropertyDidZero(
        of: holder, property: property,
        values: SetterValues(
          oldValue: nil, newValue: UnsafeRawPointer(none), valueType: Referent?.self))
    }
  }
}

/// What an `@ObservedWeak` property attached to the object it references so as to hear of its
/// deallocation, owned by the property's storage alone: releasing it, when the property is
/// replaced or its holder is deallocated, detaches it from that object.
///
/// The referent's own registry carries the ``ZeroingSentinel`` when the referent is
/// ``KeyValueObservable``; on Apple platforms any other object is given a registry of its own, as
/// an Objective-C associated object, which the runtime releases when the object is deallocated.
/// Elsewhere such an object cannot be attached to, and its deallocation is not seen.
@usableFromInline
final class ReferentAttachment: @unchecked Sendable {  // immutable; its address is never followed
  /// The zeroing sentinel's registration: ended by this attachment's `deinit`, unless the
  /// referent's deallocation ended it first.
  private let observation: KeyValueObservation

  /// The referent's address, compared, never followed: it names the referent while
  /// ``observation`` is active, since the referent's registry ends it while the referent is being
  /// deallocated, before its memory can be reused.
  private let referentAddress: UnsafeMutableRawPointer

  #if canImport(ObjectiveC)
    /// The registry associated with a referent that has none of its own, by its address as the
    /// association's key, and the referent, to remove the association from; `nil` for a
    /// ``KeyValueObservable`` referent.
    private let association: (key: UnsafeRawPointer, referent: WeakObject)?
  #endif

  private init(
    _ observation: KeyValueObservation,
    referent: AnyObject,
    associationKey: UnsafeRawPointer?
  ) {
    self.observation = observation
    referentAddress = Unmanaged.passUnretained(referent).toOpaque()
    #if canImport(ObjectiveC)
      association = associationKey.map { ($0, WeakObject(referent)) }
    #endif
  }

  /// Attaches a ``ZeroingSentinel`` for the `@ObservedWeak` property at `property` of `holder`
  /// to `referent`, or returns `nil` when `referent`'s deallocation cannot be seen: an object
  /// that is not ``KeyValueObservable``, except on Apple platforms, or one whose registry is a new
  /// object on every read. Both objects are alive: the caller holds them.
  @usableFromInline
  static func attach<Holder: KeyValueObservable, Referent: AnyObject>(
    to referent: Referent,
    of holder: Holder,
    property: ObservedPropertyIndex
  ) -> ReferentAttachment? {
    if let observable = referent as? any KeyValueObservable {
      let registry = observable.observationRegistry
      guard observable.observationRegistry === registry else { return nil }
      let sentinel = ZeroingSentinel<Holder, Referent>(holder: holder, property: property)
      sentinel.observation.attach(sentinel, to: registry, observerRegistry: nil)
      return ReferentAttachment(sentinel.observation, referent: referent, associationKey: nil)
    }
    #if canImport(ObjectiveC)
      // The associated registry lives as long as the association: its address is a key no other
      // association of the referent uses, and is used only while the referent, and so the
      // association, is alive.
      let registry = ObservationRegistry()
      let key = UnsafeRawPointer(Unmanaged.passUnretained(registry).toOpaque())
      let sentinel = ZeroingSentinel<Holder, Referent>(holder: holder, property: property)
      sentinel.observation.attach(sentinel, to: registry, observerRegistry: nil)
      objc_setAssociatedObject(referent, key, registry, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
      return ReferentAttachment(sentinel.observation, referent: referent, associationKey: key)
    #else
      return nil
    #endif
  }

  /// Whether this attachment is on `referent`, which the caller holds, and still tells of its
  /// deallocation. Loads no reference: called under the holder's registry lock, where releasing
  /// a loaded object could run its deinit.
  @usableFromInline
  func isAttached(to referent: AnyObject) -> Bool {
    observation.isActive && referentAddress == Unmanaged.passUnretained(referent).toOpaque()
  }

  deinit {
    // Ended first, so that the associated registry's release below, or the referent's
    // deallocation on another thread, finds the sentinel detached and posts nothing.
    observation.end(.cancelled)
    #if canImport(ObjectiveC)
      // A referent whose deallocation has begun releases its associations itself.
      if let association, let referent = association.referent.object {
        objc_setAssociatedObject(referent, association.key, nil, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
      }
    #endif
  }
}
