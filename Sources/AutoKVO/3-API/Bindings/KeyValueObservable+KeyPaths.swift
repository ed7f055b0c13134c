import Dispatch
import Foundation

extension KeyValueObservable {
  /// Observes several key paths of `object` with one handler, which is told which key path
  /// changed, until this observer or `object` is deallocated, whichever goes first.
  ///
  /// FBKVOController's `observe:keyPaths:options:block:`, whose block reads
  /// `FBKVONotificationKeyPathKey`. The key paths may have different value types: the handler
  /// receives the element of `keyPaths` that changed, which matches its literal in a `switch`,
  /// and an ``AnyKeyValueChange`` whose `newValue(as:)` gives typed access.
  ///
  /// <!-- snippet-glue
  /// final class Badge: KeyValueObservable {
  ///     let observationRegistry = ObservationRegistry()
  ///     var title = ""
  ///     var detail = ""
  /// }
  /// let badge = Badge()
  /// let person = Person()
  /// -->
  /// ```swift
  /// badge.autoObserve(person, keyPaths: [\.name, \.age]) { badge, person, keyPath, change in
  ///     switch keyPath {
  ///     case \.name: badge.title = change.newValue(as: String.self) ?? ""
  ///     case \.age: badge.detail = "\(change.newValue(as: Int.self) ?? 0)"
  ///     default: break
  ///     }
  /// }
  /// ```
  ///
  /// Each key path is observed exactly as
  /// `autoObserve(_:keyPath:options:isolation:file:line:changeHandler:)` observes it (stored,
  /// computed, chains, collections, manual notification), and the handler runs where that
  /// method's would. When one change concerns several of the key paths, the handler is called
  /// once for each, in the order of `keyPaths`; a key path listed twice is observed once, at its
  /// first position. With `.initial`, it is called once per key path, in that order, before
  /// this method returns.
  ///
  /// The registration ends, for every key path at once, when either side is deallocated, when
  /// the returned handle or any handle ``activeObservations`` lists for it is cancelled, or at
  /// ``stopObserving(_:)-(KeyValueObservable)`` and ``stopObservingAll()``. Ending it from inside the handler stops
  /// the calls still due for the other key paths of the same change. ``stopObserving(_:keyPath:)-1a1ai``
  /// ends the key path it names only, as FBKVOController's `unobserve:keyPath:` does; the handle
  /// ends with the last key path. An empty `keyPaths` is reported as an
  /// ``ObservationDiagnostic`` (``ObservationDiagnostic/Kind/emptyKeyPaths``), and registers
  /// nothing.
  ///
  /// - Parameters:
  ///   - object: The object to observe. It is not retained.
  ///   - keyPaths: The properties to observe, at least one.
  ///   - options: What to deliver; `[.old, .new]` by default.
  ///   - isolation: The caller's actor, captured by default; the handler runs there.
  ///   - file: The file of the call, which diagnostics name; leave it to its default.
  ///   - line: The line of the call, likewise.
  ///   - changeHandler: Called with the observer, the object, the key path that changed and the
  ///     change.
  /// - Returns: A handle you may keep to cancel early, or drop: dropping it does not end the
  ///   observation.
  @discardableResult
  public func autoObserve<Object: KeyValueObservable>(
    _ object: Object,
    keyPaths: [PartialKeyPath<Object>],
    options: ObservationOptions = [.old, .new],
    isolation: isolated (any Actor)? = #isolation,
    file: StaticString = #fileID,
    line: UInt = #line,
    changeHandler: @escaping (Self, Object, PartialKeyPath<Object>, AnyKeyValueChange) -> Void
  ) -> KeyValueObservation {
    registerKeyPaths(
      object, keyPaths, options, .resolve(isolation: isolation), changeHandler,
      site: RegistrationSite(file: file, line: line, call: .autoObserveKeyPaths))
  }

  /// Observes several key paths of `object` with one handler, which is told which key path
  /// changed, running the handler on `deliveryQueue`.
  ///
  /// Everything ``autoObserve(_:keyPaths:options:isolation:file:line:changeHandler:)-7mu3i`` promises
  /// holds; the handler runs on `deliveryQueue`, as
  /// `autoObserve(_:keyPath:options:deliveryQueue:file:line:changeHandler:)`'s does.
  ///
  /// - Parameters:
  ///   - object: The object to observe. It is not retained.
  ///   - keyPaths: The properties to observe, at least one.
  ///   - options: What to deliver; `[.old, .new]` by default.
  ///   - deliveryQueue: Where the handler runs; `.main` for the main actor. Use a serial queue.
  ///   - file: The file of the call, which diagnostics name; leave it to its default.
  ///   - line: The line of the call, likewise.
  ///   - changeHandler: Called with the observer, the object, the key path that changed and the
  ///     change.
  /// - Returns: A handle you may keep to cancel early, or drop: dropping it does not end the
  ///   observation.
  @discardableResult
  public func autoObserve<Object: KeyValueObservable>(
    _ object: Object,
    keyPaths: [PartialKeyPath<Object>],
    options: ObservationOptions = [.old, .new],
    deliveryQueue: DispatchQueue,
    file: StaticString = #fileID,
    line: UInt = #line,
    changeHandler:
      @escaping @Sendable (Self, Object, PartialKeyPath<Object>, AnyKeyValueChange) ->
      Void
  ) -> KeyValueObservation {
    registerKeyPaths(
      object, keyPaths, options, .resolve(queue: deliveryQueue), changeHandler,
      site: RegistrationSite(file: file, line: line, call: .autoObserveKeyPaths))
  }

  /// Registers one engine registration per distinct key path, in the order of `keyPaths`, as the
  /// members of one group, and returns the group's handle. Every member is given the one
  /// `delivery`: on a queue, they share its count of deliveries still waiting there, so that a
  /// change made on the queue waits behind the other key paths' earlier changes too.
  func registerKeyPaths<Object: KeyValueObservable>(
    _ object: Object,
    _ keyPaths: [PartialKeyPath<Object>],
    _ options: ObservationOptions,
    _ delivery: HandlerDelivery,
    _ changeHandler: @escaping (Self, Object, PartialKeyPath<Object>, AnyKeyValueChange) -> Void,
    site: RegistrationSite
  ) -> KeyValueObservation {
    registerGroupedKeyPaths(object, keyPaths, site: site) { keyPath in
      registerMember(object, keyPath, options, delivery, changeHandler, site: site)
    }
  }

  /// One registration per distinct key path of `keyPaths`, each made by `registerMember`, grouped
  /// under the one handle this returns: what every form of `autoObserve(_:keyPaths:)` does, for
  /// whichever kind of object `object` is. Refuses an empty list, and a side being deallocated,
  /// once for the whole call.
  func registerGroupedKeyPaths<Object: AnyObject>(
    _ object: Object,
    _ keyPaths: [PartialKeyPath<Object>],
    site: RegistrationSite,
    registerMember: (PartialKeyPath<Object>) -> KeyValueObservation
  ) -> KeyValueObservation {
    guard let firstKeyPath = keyPaths.first else {
      ObservationDiagnostics.report(
        .emptyKeyPaths,
        "autoObserve(_:keyPaths: []) of \(Object.self) by \(Self.self)"
          + "\(Optional(site).diagnosticSuffix) lists no key path: nothing was registered, and "
          + "the returned observation is already cancelled.")
      return .refused()
    }
    // Refused once for the whole call, rather than once per key path.
    guard !ObjectReference.hasBegunDeallocating(self),
      !ObjectReference.hasBegunDeallocating(object)
    else {
      return refuseRegistrationOfDeallocatingSide(with: object, keyPath: firstKeyPath, site: site)
    }
    let group = RegistrationGroup(membersEndAlone: true)
    let handle = group.makeHandle()
    // Compared as `AnyKeyPath`s, the same instance first: an array of a concrete type, so that
    // the search is specialized, where an array of `PartialKeyPath<Object>` would be generic.
    var registered: [AnyKeyPath] = []
    registered.reserveCapacity(keyPaths.count)
    for keyPath in keyPaths {
      let erased = keyPath as AnyKeyPath
      guard !registered.contains(where: { $0 === erased || $0 == erased }) else { continue }
      registered.append(erased)
      // Ended inside an earlier key path's `.initial` call: the others are not registered.
      guard !group.isEnded else { break }
      group.add(registerMember(keyPath))
    }
    group.complete()
    return handle
  }

  private func registerMember<Object: KeyValueObservable>(
    _ object: Object,
    _ keyPath: PartialKeyPath<Object>,
    _ options: ObservationOptions,
    _ delivery: HandlerDelivery,
    _ changeHandler: @escaping (Self, Object, PartialKeyPath<Object>, AnyKeyValueChange) -> Void,
    site: RegistrationSite
  ) -> KeyValueObservation {
    func register<Value>(as valueType: Value.Type) -> KeyValueObservation {
      registerMember(
        object, keyPath, as: valueType, options, delivery, changeHandler, site: site)
    }
    return _openExistential(type(of: keyPath).valueType, do: register)
  }

  private func registerMember<Object: KeyValueObservable, Value>(
    _ object: Object,
    _ keyPath: PartialKeyPath<Object>,
    as _: Value.Type,
    _ options: ObservationOptions,
    _ delivery: HandlerDelivery,
    _ changeHandler: @escaping (Self, Object, PartialKeyPath<Object>, AnyKeyValueChange) -> Void,
    site: RegistrationSite
  ) -> KeyValueObservation {
    let typedKeyPath = unsafeDowncast(keyPath, to: KeyPath<Object, Value>.self)
    #if canImport(ObjectiveC)
      // An `NSObject`'s `@objc` key path is Foundation's to observe, as in `autoObserve`.
      if Object.self is NSObject.Type,
        let foundationObject = object as? any FoundationObservedObject,
        let observation = foundationObject.registerWithFoundationIfObjectiveC(
          by: self, of: object, typedKeyPath, options, delivery,
          { observer, object, change in
            changeHandler(observer, object, keyPath, AnyKeyValueChange(change))
          }, site: site)
      {
        return observation
      }
    #endif
    return registerAdapted(
      object, typedKeyPath, options, delivery,
      adaptedHandler: { observer, object, input in
        changeHandler(observer, object, keyPath, AnyKeyValueChange.erasing(input, as: Value.self))
      }, site: site)
  }
}

extension AnyKeyValueChange {
  /// The change `input` describes, for a registration whose value type is `Value`. Runs where
  /// `Value` is known only at run time: a set's values are boxed straight from the setter's,
  /// without building the `KeyValueChange<Value>` whose type would be looked up on every call.
  static func erasing<Value>(_ input: HandlerInput, as _: Value.Type) -> AnyKeyValueChange {
    guard input.collection == nil, input.change == nil else {
      return erasingBuiltChange(input, as: Value.self)
    }
    // Each value boxed where it is passed, and moved into the change: a copy of a boxed value
    // costs generic calls.
    return AnyKeyValueChange(
      settingOldValue: input.oldValue.map { $0.assumingMemoryBound(to: Value.self).pointee },
      newValue: input.newValue.map { $0.assumingMemoryBound(to: Value.self).pointee })
  }

  /// A change the engine built, or a collection change: what a computed key path, a chain or a
  /// collection mutation delivers. Out of line, so that a set's path does not look up the type of
  /// the change.
  @inline(never)
  private static func erasingBuiltChange<Value>(
    _ input: HandlerInput,
    as _: Value.Type
  ) -> AnyKeyValueChange {
    if let collection = input.collection {
      return AnyKeyValueChange(HandlerInput.collectionChange(collection, as: Value.self))
    }
    guard let change = input.change else {
      preconditionFailure("a built change's input holds a change or a collection change")
    }
    return AnyKeyValueChange(change.assumingMemoryBound(to: KeyValueChange<Value>.self).pointee)
  }
}
