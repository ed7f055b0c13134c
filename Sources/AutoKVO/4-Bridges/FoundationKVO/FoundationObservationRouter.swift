#if canImport(ObjectiveC)
  import Foundation
  import ObjectiveC

  /// The one Foundation observer behind every registration AutoKVO makes with Foundation's KVO.
  ///
  /// Notification never messages a deallocated or deallocating observer, and removing a
  /// registration never raises an exception: each registration is found by its context, in a
  /// ``RegistrationContextTable``, and delivered through its `FoundationSentinel`, which checks that
  /// the registration is active and the observer alive. A notification whose context has left
  /// the table is dropped.
  // @unchecked Sendable: immutable; `registrations` is guarded by its own lock.
  final class FoundationObservationRouter: NSObject, @unchecked Sendable {
    typealias Sentinel = FoundationSentinel<[NSKeyValueChangeKey: Any]>

    static let shared = FoundationObservationRouter()

    /// Every registration's entry: a `Sentinel` or a `FoundationChainLink`.
    let registrations = RegistrationContextTable<AnyObject>()

    override private init() {
      super.init()
    }

    override func observeValue(
      forKeyPath keyPath: String?,
      of object: Any?,
      change: [NSKeyValueChangeKey: Any]?,
      context: UnsafeMutableRawPointer?
    ) {
      // Every registration this router makes carries a context from `registrations`; nothing
      // else registers it, so an unknown context is a registration being torn down: drop it.
      guard let context, let entry = registrations.entry(for: UInt(bitPattern: context)) else {
        return
      }
      if let sentinel = entry as? Sentinel {
        sentinel.deliver(change ?? [:])
      } else if let link = entry as? FoundationChainLink {
        // Chain links register with `.prior`: the prior notification, then the after one.
        if change?[.notificationIsPriorKey] as? Bool == true {
          link.objectWillChange()
        } else {
          link.objectDidChange()
        }
      }
    }

    /// Registers `observer` for changes of the one-key `keyPath` of `object` with Foundation's
    /// KVO; the registration ends by itself, exactly once, when either side is deallocated.
    /// `handler` runs where `delivery` says.
    func register<Observer: AnyObject, Object: NSObject>(
      observer: Observer,
      observerRegistry: ObservationRegistry,
      object: Object,
      keyPath: String,
      options: NSKeyValueObservingOptions,
      delivery: HandlerDelivery,
      handler: @escaping (Observer, Object, [NSKeyValueChangeKey: Any]) -> Void
    ) -> KeyValueObservation {
      if keyPath.contains(".") {
        // A chain: one one-key registration per object of the path, each on its object.
        return FoundationChainSentinel.register(
          observer: observer, observerRegistry: observerRegistry, root: object,
          rootRegistry: registry(of: object),
          keys: keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init),
          options: ObservationOptions(rawValue: options.rawValue), delivery: delivery,
          platform: self, evaluate: { $0.value(forKeyPath: keyPath) },
          handler: { observer, object, change in handler(observer, object, change.foundationChange)
          }
        )
      }
      let context = registrations.makeContext()
      let contextPointer = UnsafeMutableRawPointer(bitPattern: context)!
      let unregistration = FoundationUnregistration(
        object: object, keyPath: keyPath, context: contextPointer, router: self)
      // The association key is the unregistration's address: unique among the object's
      // associations while the association holds it, which is whenever the key is used.
      let associationKey = UnsafeRawPointer(Unmanaged.passUnretained(unregistration).toOpaque())
      let sentinel = FoundationSentinel.register(
        observer: observer,
        observerRegistry: observerRegistry,
        object: object,
        objectRegistry: ObservationStandIn.standIn(for: object).observationRegistry,
        delivery: delivery,
        handler: handler,
        detachFromLiveObject: { object in
          // Releases the unregistration, which removes the Foundation registration now.
          objc_setAssociatedObject(
            object, associationKey, nil, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        }
      )
      registrations.setEntry(sentinel, for: context)
      objc_setAssociatedObject(
        object, associationKey, unregistration, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
      // Kept alive across addObserver: if the `.initial` call cancels the registration, the
      // sentinel is released, and the registration removed, only after it was added. Foundation
      // makes the `.initial` call inside addObserver, on this thread: `whileRegistering` lets a
      // handler registered from an actor receive it synchronously, before this returns.
      withExtendedLifetime(sentinel) {
        sentinel.whileRegistering {
          object.addObserver(self, forKeyPath: keyPath, options: options, context: contextPointer)
        }
      }
      return sentinel.observation
    }
  }

  extension FoundationObservationRouter {
    /// Registers a typed handler: Foundation's change dictionary is decoded into a
    /// ``KeyValueChange`` before each call. Shared by every typed `NSObject` form.
    func registerTyped<Observer: AnyObject, Object: NSObject, Value>(
      observer: Observer,
      observerRegistry: ObservationRegistry,
      object: Object,
      keyPath: String,
      options: ObservationOptions,
      delivery: HandlerDelivery,
      changeHandler: @escaping (Observer, Object, KeyValueChange<Value>) -> Void
    ) -> KeyValueObservation {
      register(
        observer: observer,
        observerRegistry: observerRegistry,
        object: object,
        keyPath: keyPath,
        options: NSKeyValueObservingOptions(rawValue: options.rawValue),
        delivery: delivery
      ) { observer, object, change in
        changeHandler(observer, object, KeyValueChange(foundationChange: change))
      }
    }
  }

  extension FoundationObservationRouter: FoundationKeyObserving {
    func registry(of object: AnyObject) -> ObservationRegistry {
      ObservationStandIn.standIn(for: object).observationRegistry
    }

    func value(of object: AnyObject, forKey key: String) -> Any? {
      (object as? NSObject)?.value(forKey: key)
    }

    /// Registers one link of a chain with Foundation's KVO, with `.prior`, as a one-key
    /// registration is: the context comes from the same table, and an association of the object
    /// removes the Foundation registration, exactly once, when the object is deallocated or the
    /// returned closure is called with the object held.
    func observe(
      _ object: AnyObject,
      key: String,
      for link: FoundationChainLink
    ) -> @Sendable (AnyObject) -> Void {
      let object = object as! NSObject
      let context = registrations.makeContext()
      let contextPointer = UnsafeMutableRawPointer(bitPattern: context)!
      let unregistration = FoundationUnregistration(
        object: object, keyPath: key, context: contextPointer, router: self)
      let associationKey = UnsafeRawPointer(Unmanaged.passUnretained(unregistration).toOpaque())
      registrations.setEntry(link, for: context)
      objc_setAssociatedObject(
        object, associationKey, unregistration, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
      object.addObserver(self, forKeyPath: key, options: [.prior], context: contextPointer)
      // The key is an address, never dereferenced: sendable as a number.
      let associationAddress = UInt(bitPattern: associationKey)
      return { object in
        objc_setAssociatedObject(
          object, UnsafeRawPointer(bitPattern: associationAddress)!, nil,
          .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
      }
    }
  }

  /// Removes one Foundation registration, exactly once, when it is released: that is, when its
  /// observed object is deallocated, or earlier when the registration ends while the object is
  /// alive.
  ///
  /// Its only owner is an associated object of the observed object, so it is released either
  /// inside that object's deallocation, on the deallocating thread, or when a thread holding a
  /// strong reference to the object removes the association.
  private final class FoundationUnregistration {
    /// `unowned(unsafe)`: a weak reference reads `nil` once the object's deallocation has begun,
    /// which is exactly when it is needed. It is read only in `deinit`, and both ways this object
    /// is released keep the observed object's memory valid for the whole `deinit`: the runtime
    /// frees an object only after releasing its associated objects, and a thread removing the
    /// association holds a strong reference.
    private unowned(unsafe) let object: NSObject
    private let keyPath: String
    private let context: UnsafeMutableRawPointer
    private let router: FoundationObservationRouter

    init(
      object: NSObject,
      keyPath: String,
      context: UnsafeMutableRawPointer,
      router: FoundationObservationRouter
    ) {
      self.object = object
      self.keyPath = keyPath
      self.context = context
      self.router = router
    }

    deinit {
      // Forget the context first, so that a notification already in flight on another thread is
      // dropped by the router; then remove exactly the registration this object stands for
      // (observer, key path and context all match), never another observer's.
      router.registrations.removeContext(UInt(bitPattern: context))
      object.removeObserver(router, forKeyPath: keyPath, context: context)
    }
  }
#endif
