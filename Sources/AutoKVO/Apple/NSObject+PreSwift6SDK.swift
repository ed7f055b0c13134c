// The typed `autoObserve` forms capture the caller's actor with a defaulted
// `isolation: isolated (any Actor)? = #isolation` parameter. The `#isolation` macro comes with
// the standard library of a Swift 6 SDK (Xcode 16 and later, which this package's
// swift-tools-version requires anyway). An older Apple SDK cannot expand it, but the public SDK
// snapshots that `../shared/darwin/typecheck` compiles the library against are such SDKs; for
// them alone, this file declares the same forms with the same signatures, defaulting to no actor,
// so that everything else is still type-checked. `canImport(Synchronization)`, a module that
// arrived with the same SDKs, tells the two apart.
//
// No user build compiles this file's contents. Keep each signature identical to its documented
// twin (NSObject+AutoObserve.swift).
#if canImport(ObjectiveC) && !canImport(Synchronization)
  import Foundation

  extension KeyValueObservable {
    /// The same registration as its documented twin, for an SDK without `#isolation`.
    @discardableResult
    public func autoObserve<Object: NSObject & KeyValueObservable, Value>(
      _ object: Object,
      keyPath: KeyPath<Object, Value>,
      options: ObservationOptions = [.old, .new],
      isolation: isolated (any Actor)? = nil,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
    ) -> KeyValueObservation {
      observeChoosingEngineWithOwnRegistry(
        object, keyPath, options, .resolve(isolation: isolation), changeHandler,
        site: RegistrationSite(file: file, line: line))
    }
  }

  extension KeyValueObserver {
    /// The same registration as its documented twin, for an SDK without `#isolation`.
    @discardableResult
    public func autoObserve<Object: NSObject, Value>(
      _ object: Object,
      keyPath: KeyPath<Object, Value>,
      options: ObservationOptions = [.old, .new],
      isolation: isolated (any Actor)? = nil,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
    ) -> KeyValueObservation {
      observeWithFoundation(
        object, keyPath, options, .resolve(isolation: isolation), changeHandler,
        site: RegistrationSite(file: file, line: line))
    }

    /// The same registration as its documented twin, for an SDK without `#isolation`.
    @discardableResult
    public func autoObserve<Object: KeyValueObservable, Value>(
      _ object: Object,
      keyPath: KeyPath<Object, Value>,
      options: ObservationOptions = [.old, .new],
      isolation: isolated (any Actor)? = nil,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
    ) -> KeyValueObservation {
      observeWithEngineThroughStandIn(
        object, keyPath, options, .resolve(isolation: isolation), changeHandler,
        site: RegistrationSite(file: file, line: line))
    }

    /// The same registration as its documented twin, for an SDK without `#isolation`.
    @discardableResult
    public func autoObserve<Object: NSObject & KeyValueObservable, Value>(
      _ object: Object,
      keyPath: KeyPath<Object, Value>,
      options: ObservationOptions = [.old, .new],
      isolation: isolated (any Actor)? = nil,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
    ) -> KeyValueObservation {
      observeChoosingEngine(
        object, keyPath, options, .resolve(isolation: isolation), changeHandler,
        site: RegistrationSite(file: file, line: line))
    }

    /// The same registration as its documented twin, for an SDK without `#isolation`.
    @discardableResult
    public func autoObserve<Object: KeyValueObservable, Intermediate: AnyObject, Value>(
      _ object: Object,
      keyPath: KeyPath<Object, Intermediate?>,
      then objcKeyPath: KeyPath<Intermediate, Value>,
      options: ObservationOptions = [.old, .new],
      isolation: isolated (any Actor)? = nil,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
    ) -> KeyValueObservation {
      observeThroughEngineThenFoundation(
        object, .engine(keyPath), objcKeyPath,
        evaluate: { $0[keyPath: keyPath].map { $0[keyPath: objcKeyPath] } },
        options, .resolve(isolation: isolation), changeHandler,
        site: RegistrationSite(file: file, line: line))
    }

    /// The same registration as its documented twin, for an SDK without `#isolation`.
    @discardableResult
    public func autoObserve<Object: KeyValueObservable, Intermediate: AnyObject, Value>(
      _ object: Object,
      keyPath: KeyPath<Object, Intermediate>,
      then objcKeyPath: KeyPath<Intermediate, Value>,
      options: ObservationOptions = [.old, .new],
      isolation: isolated (any Actor)? = nil,
      file: StaticString = #fileID,
      line: UInt = #line,
      changeHandler: @escaping (Self, Object, KeyValueChange<Value>) -> Void
    ) -> KeyValueObservation {
      observeThroughEngineThenFoundation(
        object, .engine(keyPath), objcKeyPath,
        evaluate: { Optional($0[keyPath: keyPath][keyPath: objcKeyPath]) },
        options, .resolve(isolation: isolation), changeHandler,
        site: RegistrationSite(file: file, line: line))
    }
  }
#endif
