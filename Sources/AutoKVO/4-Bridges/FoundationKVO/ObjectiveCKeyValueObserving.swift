#if canImport(ObjectiveC)
  import Foundation
  import ObjectiveC

  // The Objective-C runtime's side of Foundation's key-value observing, and nothing else: each
  // hook of `KeyValueObservingRuntime` is one runtime call. What AutoKVO does with them, the
  // router, the checks and the choice of engine, is compiled and tested on every platform.

  extension NSKeyValueChangeKey: KeyValueChangeDictionaryKey {}

  /// The router every registration with Foundation's KVO goes through.
  let foundationRouter = KeyValueObservingRouter(runtime: ObjectiveCKeyValueObserving())

  /// The Objective-C runtime's hooks for ``KeyValueObservingRouter``.
  // @unchecked Sendable: immutable; the observer it registers is stateless.
  final class ObjectiveCKeyValueObserving: KeyValueObservingRuntime, @unchecked Sendable {
    typealias ChangeKey = NSKeyValueChangeKey

    /// The one observer Foundation messages, for every registration.
    private let observer = RouterObserver()

    func addObserver(
      to object: AnyObject, forKeyPath keyPath: String, options: ObservationOptions,
      context: UnsafeMutableRawPointer
    ) {
      (object as! NSObject).addObserver(
        observer, forKeyPath: keyPath,
        options: NSKeyValueObservingOptions(rawValue: options.rawValue), context: context)
    }

    func removeObserver(
      from object: AnyObject, forKeyPath keyPath: String, context: UnsafeMutableRawPointer
    ) {
      (object as! NSObject).removeObserver(observer, forKeyPath: keyPath, context: context)
    }

    func value(of object: AnyObject, forKeyPath keyPath: String) -> Any? {
      (object as? NSObject)?.value(forKeyPath: keyPath)
    }

    func associatedObject(of object: AnyObject, key: UnsafeRawPointer) -> AnyObject? {
      objc_getAssociatedObject(object, key).map { $0 as AnyObject }
    }

    func setAssociatedObject(_ value: AnyObject?, of object: AnyObject, key: UnsafeRawPointer) {
      objc_setAssociatedObject(object, key, value, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
    }
  }

  /// Foundation's observer for every registration: hands each notification to the router.
  private final class RouterObserver: NSObject {
    override func observeValue(
      forKeyPath keyPath: String?,
      of object: Any?,
      change: [NSKeyValueChangeKey: Any]?,
      context: UnsafeMutableRawPointer?
    ) {
      foundationRouter.route(change, context: context)
    }
  }
#endif
