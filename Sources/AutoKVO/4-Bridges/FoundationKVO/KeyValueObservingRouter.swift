/// The one observer behind every registration AutoKVO makes with Foundation's key-value observing.
///
/// Notification never messages a deallocated or deallocating observer, and removing a
/// registration never raises an exception: each registration is found by its context, in a
/// ``RegistrationContextTable``, and delivered through its ``FoundationSentinel``, which checks
/// that the registration is active and the observer alive. A notification whose context has left
/// the table is dropped.
///
/// All of it is compiled on every platform: what it needs of the Objective-C runtime comes
/// through `runtime` (``KeyValueObservingRuntime``). On Apple platforms the shared router holds
/// the runtime's own hooks, and its `NSObject` observer forwards Foundation's
/// `observeValue(forKeyPath:of:change:context:)` to ``route(_:context:)``; the tests give it a
/// runtime of their own.
// @unchecked Sendable: immutable; `registrations` is guarded by its own lock, and the runtime is
// Sendable.
final class KeyValueObservingRouter<Runtime: KeyValueObservingRuntime>: @unchecked Sendable {
  typealias Change = [Runtime.ChangeKey: Any]
  typealias Sentinel = FoundationSentinel<Change>

  let runtime: Runtime

  /// Every registration's entry: a `Sentinel` or a ``FoundationChainLink``.
  let registrations = RegistrationContextTable<AnyObject>()

  init(runtime: Runtime) {
    self.runtime = runtime
  }

  /// Delivers one notification of the runtime to the registration whose context it carries.
  ///
  /// Every registration this router makes carries a context from `registrations`, and nothing
  /// else registers its observer, so an unknown context is a registration being torn down: the
  /// notification is dropped.
  func route(_ change: Change?, context: UnsafeMutableRawPointer?) {
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

  /// Registers `observer` for changes of `keyPath` of `object` with Foundation's KVO; the
  /// registration ends by itself, exactly once, when either side is deallocated. `handler` runs
  /// where `delivery` says. A key path of several keys is a chain: one one-key registration per
  /// object of the path, each on its object.
  func register<Observer: AnyObject, Object: AnyObject>(
    observer: Observer,
    observerRegistry: ObservationRegistry,
    object: Object,
    keyPath: String,
    options: ObservationOptions,
    delivery: HandlerDelivery,
    handler: @escaping (Observer, Object, Change) -> Void
  ) -> KeyValueObservation {
    if keyPath.contains(".") {
      return FoundationChainSentinel.register(
        observer: observer, observerRegistry: observerRegistry, root: object,
        rootRegistry: registry(of: object),
        keys: keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init),
        options: options, delivery: delivery, platform: self,
        evaluate: { [runtime] in runtime.value(of: $0, forKeyPath: keyPath) },
        handler: { observer, object, change in
          handler(observer, object, change.foundationChange(keyedBy: Runtime.ChangeKey.self))
        }
      )
    }
    let (context, associationKey) = attachUnregistration(to: object, keyPath: keyPath)
    let sentinel = FoundationSentinel.register(
      observer: observer,
      observerRegistry: observerRegistry,
      object: object,
      objectRegistry: registry(of: object),
      keyPath: keyPath,
      delivery: delivery,
      handler: handler,
      detachFromLiveObject: { [runtime] object in
        // Releases the unregistration, which removes the Foundation registration now.
        runtime.setAssociatedObject(nil, of: object, key: associationKey)
      }
    )
    registrations.setEntry(sentinel, for: UInt(bitPattern: context))
    // Kept alive across addObserver: if the `.initial` call cancels the registration, the
    // sentinel is released, and the registration removed, only after it was added. Foundation
    // makes the `.initial` call inside addObserver, on this thread: `whileRegistering` lets a
    // handler registered from an actor receive it synchronously, before this returns.
    withExtendedLifetime(sentinel) {
      sentinel.whileRegistering {
        runtime.addObserver(to: object, forKeyPath: keyPath, options: options, context: context)
      }
    }
    return sentinel.observation
  }

  /// Registers a typed handler: Foundation's change dictionary is decoded into a
  /// ``KeyValueChange`` before each call. Shared by every typed form.
  func registerTyped<Observer: AnyObject, Object: AnyObject, Value>(
    observer: Observer,
    observerRegistry: ObservationRegistry,
    object: Object,
    keyPath: String,
    options: ObservationOptions,
    delivery: HandlerDelivery,
    changeHandler: @escaping (Observer, Object, KeyValueChange<Value>) -> Void
  ) -> KeyValueObservation {
    register(
      observer: observer, observerRegistry: observerRegistry, object: object, keyPath: keyPath,
      options: options, delivery: delivery
    ) { observer, object, change in
      changeHandler(observer, object, KeyValueChange(foundationChange: change))
    }
  }

  /// Makes a context for a registration of `keyPath` of `object`, and associates with `object`
  /// the unregistration that removes it; returns the context and the association's key. The key
  /// is the unregistration's address: unique among the object's associations while the
  /// association holds it, which is whenever the key is used.
  private func attachUnregistration(
    to object: AnyObject,
    keyPath: String
  ) -> (context: UnsafeMutableRawPointer, associationKey: UnsafeRawPointer) {
    let context = UnsafeMutableRawPointer(bitPattern: registrations.makeContext())!
    let unregistration = FoundationUnregistration(
      object: object, keyPath: keyPath, context: context, router: self)
    let associationKey = UnsafeRawPointer(Unmanaged.passUnretained(unregistration).toOpaque())
    runtime.setAssociatedObject(unregistration, of: object, key: associationKey)
    return (context, associationKey)
  }
}

extension KeyValueObservingRouter: FoundationKeyObserving {
  func registry(of object: AnyObject) -> ObservationRegistry {
    ObservationStandIn.standIn(for: object, in: runtime).observationRegistry
  }

  func value(of object: AnyObject, forKey key: String) -> Any? {
    runtime.value(of: object, forKeyPath: key)
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
    let (context, associationKey) = attachUnregistration(to: object, keyPath: key)
    registrations.setEntry(link, for: UInt(bitPattern: context))
    runtime.addObserver(to: object, forKeyPath: key, options: .prior, context: context)
    // The key is an address, never dereferenced: sendable as a number.
    let associationAddress = UInt(bitPattern: associationKey)
    return { [runtime] object in
      runtime.setAssociatedObject(
        nil, of: object, key: UnsafeRawPointer(bitPattern: associationAddress)!)
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
private final class FoundationUnregistration<Runtime: KeyValueObservingRuntime> {
  /// `unowned(unsafe)`: a weak reference reads `nil` once the object's deallocation has begun,
  /// which is exactly when it is needed. It is read only in `deinit`, and both ways this object
  /// is released keep the observed object's memory valid for the whole `deinit`: the store
  /// frees an object only after releasing its associated objects, and a thread removing the
  /// association holds a strong reference.
  private unowned(unsafe) let object: AnyObject
  private let keyPath: String
  private let context: UnsafeMutableRawPointer
  private let router: KeyValueObservingRouter<Runtime>

  init(
    object: AnyObject,
    keyPath: String,
    context: UnsafeMutableRawPointer,
    router: KeyValueObservingRouter<Runtime>
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
    router.runtime.removeObserver(from: object, forKeyPath: keyPath, context: context)
  }
}
