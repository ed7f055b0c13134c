#if canImport(ObjectiveC)
  import Foundation

  // Observer-side control for every observer and every object on Apple platforms: the forms of
  // `KeyValueObservable`'s `stopObserving`, `stopObservingAll` and `activeObservations` for an
  // `NSObject` observer or an `NSObject` object. They follow `autoObserve`'s overload rules
  // (NSObject+AutoObserve.swift): the `NSObject`-object forms, `stopObservingAll` and
  // `activeObservations` are `@_disfavoredOverload`, so that a `KeyValueObservable` observer
  // keeps its own forms and an object that is both an `NSObject` and `KeyValueObservable` picks
  // a `KeyValueObservable` one, which ends its registrations of either engine.

  extension KeyValueObserver {
    /// Apple platforms only. Ends every live registration this observer made on `keyPath` of the
    /// `NSObject` `object`, and returns how many it ended.
    ///
    /// The form of ``KeyValueObservable/stopObserving(_:keyPath:)-1a1ai`` for any observer and an
    /// `NSObject`: idempotent, and every other registration is untouched. It ends the
    /// registrations made with Foundation's KVO on the key path's `@objc` string (the classic
    /// form's `String` key path included), and, for an `NSObject` that is also
    /// ``KeyValueObservable``, those made with AutoKVO's engine.
    ///
    /// ```swift
    /// label.stopObserving(player, keyPath: \.status)
    /// ```
    ///
    /// - Parameters:
    ///   - object: The object whose registrations to end.
    ///   - keyPath: The key path they were made with.
    /// - Returns: How many registrations this call ended.
    @_disfavoredOverload
    @discardableResult
    public func stopObserving<Object: NSObject, Value>(
      _ object: Object,
      keyPath: KeyPath<Object, Value>
    ) -> Int {
      guard let observerRegistry = existingRegistryForObserving(in: foundationRouter.runtime)
      else { return 0 }
      var ended =
        keyPath._kvcKeyPathString.map {
          observerRegistry.endFoundationRegistrations(
            on: object, keyPath: $0, in: foundationRouter.runtime)
        } ?? 0
      if let observable = object as? any KeyValueObservable {
        ended += observerRegistry.endEngineRegistrations(on: observable, keyPath: keyPath)
      }
      return ended
    }

    /// Apple platforms only. Ends every live registration this observer made on any key path of
    /// the `NSObject` `object`, and returns how many it ended. Idempotent.
    @_disfavoredOverload
    @discardableResult
    public func stopObserving<Object: NSObject>(_ object: Object) -> Int {
      guard let observerRegistry = existingRegistryForObserving(in: foundationRouter.runtime)
      else { return 0 }
      var ended = observerRegistry.endFoundationRegistrations(
        on: object, keyPath: nil, in: foundationRouter.runtime)
      if let observable = object as? any KeyValueObservable {
        ended += observerRegistry.endRegistrations(on: observable.observationRegistry, keyPath: nil)
      }
      return ended
    }

    /// Apple platforms only. Ends every live registration this observer made on `keyPath` of the
    /// ``KeyValueObservable`` object `object`, and returns how many it ended:
    /// ``KeyValueObservable/stopObserving(_:keyPath:)-1a1ai`` for an `NSObject` observer. For an
    /// `NSObject` that is also ``KeyValueObservable``, it ends the registrations made with
    /// Foundation's KVO on the key path's `@objc` string as well. Idempotent.
    @discardableResult
    public func stopObserving<Object: KeyValueObservable, Value>(
      _ object: Object,
      keyPath: KeyPath<Object, Value>
    ) -> Int {
      guard let observerRegistry = existingRegistryForObserving(in: foundationRouter.runtime)
      else { return 0 }
      var ended = observerRegistry.endRegistrations(
        on: object.observationRegistry, keyPath: Dependencies.postedKeyPath(of: keyPath, on: object)
      )
      if object is NSObject, let key = keyPath._kvcKeyPathString {
        ended += observerRegistry.endFoundationRegistrations(
          on: object, keyPath: key, in: foundationRouter.runtime)
      }
      return ended
    }

    /// Apple platforms only. Ends every live registration this observer made on any key path of
    /// the ``KeyValueObservable`` object `object`, and returns how many it ended:
    /// ``KeyValueObservable/stopObserving(_:)-(KeyValueObservable)`` for an `NSObject` observer.
    /// Idempotent.
    @discardableResult
    public func stopObserving<Object: KeyValueObservable>(_ object: Object) -> Int {
      guard let observerRegistry = existingRegistryForObserving(in: foundationRouter.runtime)
      else { return 0 }
      var ended = observerRegistry.endRegistrations(on: object.observationRegistry, keyPath: nil)
      if object is NSObject {
        ended += observerRegistry.endFoundationRegistrations(
          on: object, keyPath: nil, in: foundationRouter.runtime)
      }
      return ended
    }

    /// Apple platforms only. Ends every live registration this observer made, and returns how
    /// many it ended: ``KeyValueObservable/stopObservingAll()`` for an `NSObject` observer.
    /// Idempotent.
    @_disfavoredOverload
    @discardableResult
    public func stopObservingAll() -> Int {
      let observations = activeObservations
      for observation in observations {
        observation.cancel()
      }
      return observations.count
    }

    /// Apple platforms only. The live registrations this observer made, in registration order:
    /// ``KeyValueObservable/activeObservations`` for an `NSObject` observer.
    @_disfavoredOverload
    public var activeObservations: [KeyValueObservation] {
      existingRegistryForObserving(in: foundationRouter.runtime)?.outgoingObservations ?? []
    }
  }

  extension ObservationRegistry {
    /// Ends the registrations with AutoKVO's engine that the observer whose registry this is made
    /// on `keyPath` of `object`, an `NSObject` that is also ``KeyValueObservable``.
    fileprivate func endEngineRegistrations<Object: KeyValueObservable, Root, Value>(
      on object: Object,
      keyPath: KeyPath<Root, Value>
    ) -> Int {
      // `Root` is `Object`'s class, which the caller knew only as an `NSObject`.
      guard let keyPath = keyPath as? KeyPath<Object, Value> else { return 0 }
      return endRegistrations(
        on: object.observationRegistry,
        keyPath: Dependencies.postedKeyPath(of: keyPath, on: object))
    }
  }
#endif
