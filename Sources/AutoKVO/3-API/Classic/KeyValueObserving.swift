/// An observer that receives its notifications through one classic KVO-style callback, for code
/// ported from `NSObject`'s `observeValue(forKeyPath:of:change:context:)`.
///
/// Register with ``autoObserve(_:keyPath:options:context:isolation:file:line:)`` — no closure, no teardown:
///
/// ```swift
/// final class Inspector: KeyValueObserving {
///     let observationRegistry = ObservationRegistry()
///     // Only its address is used, as a tag that no other code can pass: never read or written.
///     nonisolated(unsafe) private static var nameContext = 0
///
///     init(person: Person) {
///         autoObserve(person, keyPath: \.name, options: [.new], context: &Self.nameContext)
///     }
///
///     func observeValue(forKeyPath keyPath: AnyKeyPath, of object: AnyObject,
///                       change: AnyKeyValueChange, context: UnsafeMutableRawPointer?) {
///         guard context == &Self.nameContext else { return }
///         print(change.newValue(as: String.self) ?? "")
///     }
/// }
/// ```
///
/// The registration ends by itself, exactly once, when the observer or the observed object is
/// deallocated, like every AutoKVO registration.
///
/// Like ``KeyValueObservable``, it does not require `Sendable`; the callback runs on the thread
/// that mutates the observed object, or on the registering actor (see
/// ``autoObserve(_:keyPath:options:context:isolation:file:line:)``).
public protocol KeyValueObserving: KeyValueObservable {
  /// Receives a change of `keyPath` of `object`, registered with `context`.
  ///
  /// - Parameters:
  ///   - keyPath: The key path given at registration.
  ///   - object: The observed object.
  ///   - change: The change, its value type erased.
  ///   - context: The context pointer given at registration.
  func observeValue(
    forKeyPath keyPath: AnyKeyPath,
    of object: AnyObject,
    change: AnyKeyValueChange,
    context: UnsafeMutableRawPointer?
  )
}

extension KeyValueObserving {
  /// Observes `keyPath` of `object`, delivering to
  /// ``observeValue(forKeyPath:of:change:context:)``, until this observer or `object` is
  /// deallocated — the one-call replacement for KVO's `addObserver(_:forKeyPath:options:context:)`.
  ///
  /// Everything the closure form of `autoObserve` promises holds: no retain of either side,
  /// exactly-once teardown, no delivery to a deallocated observer. The callback runs where the
  /// closure form runs its handler: synchronously on the thread that mutates `object` when
  /// registered from nonisolated code, as KVO's does, and on the caller's actor when
  /// registered from one (an observer whose conformance is isolated to the main actor, say).
  ///
  /// - Parameters:
  ///   - object: The object to observe. It is not retained.
  ///   - keyPath: The property to observe.
  ///   - options: What to deliver; `[.old, .new]` by default.
  ///   - context: A pointer passed back unchanged to every callback, to tell registrations apart.
  ///   - isolation: The caller's actor, captured by default; the callback runs there. Never
  ///     pass it: an explicit `nil` from isolated code runs the callback on whichever thread
  ///     makes the change, a data race the compiler does not report (see
  ///     <doc:SwiftConcurrency#The-isolation-parameter>).
  ///   - file: The file of the call, which diagnostics name; leave it to its default.
  ///   - line: The line of the call, likewise.
  /// - Returns: A handle you may keep to cancel early, or drop.
  @discardableResult
  public func autoObserve<Object: KeyValueObservable, Value>(
    _ object: Object,
    keyPath: KeyPath<Object, Value>,
    options: ObservationOptions = [.old, .new],
    context: UnsafeMutableRawPointer? = nil,
    isolation: isolated (any Actor)? = #isolation,
    file: StaticString = #fileID,
    line: UInt = #line
  ) -> KeyValueObservation {
    registerClassic(
      object, keyPath, options, context, .resolve(isolation: isolation),
      site: RegistrationSite(file: file, line: line))
  }

  /// Registers a delivery to ``observeValue(forKeyPath:of:change:context:)``.
  func registerClassic<Object: KeyValueObservable, Value>(
    _ object: Object,
    _ keyPath: KeyPath<Object, Value>,
    _ options: ObservationOptions,
    _ context: UnsafeMutableRawPointer?,
    _ delivery: HandlerDelivery,
    site: RegistrationSite? = nil
  ) -> KeyValueObservation {
    // The context is an opaque token for the observer; it is kept as an address, never read.
    let contextAddress = UInt(bitPattern: context)
    return register(
      object, keyPath, options, delivery,
      { observer, object, change in
        observer.observeValue(
          forKeyPath: keyPath,
          of: object,
          change: AnyKeyValueChange(change),
          context: UnsafeMutableRawPointer(bitPattern: contextAddress)
        )
      }, site: site)
  }
}
