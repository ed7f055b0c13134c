import Foundation

// What a change does to one registration with a typed handler.
//
// This code runs unspecialized (the sentinel is created inside the generic `autoObserve`), so
// every generic local it declares costs a run-time metadata look-up of its type on every call,
// wherever the local is used: the optimizer hoists their stack allocations to the function's
// entry, and a generic `Optional.map` adds more. The paths every plain set takes therefore
// build one `KeyValueChange<Value>` field by field (two look-ups: it and `Value?`), and what only
// prior calls, collection changes, rediscovery and queued delivery need lives in functions of
// its own. Docs/Performance.md has the profile.

extension HandlerSentinel {
  // A collection change that a registration hands on as it is (see `deliverCollection`) is read
  // where it lies: copying the descriptor, as a `ChangeDescriptor?` for the paths below, would
  // copy its indexes and elements on every collection mutation with an observer.

  func willChange(of object: AnyObject, _ change: ChangeDescriptor) -> Any? {
    let isCollection = change.isCollectionShaped(for: primaryKeyPath)
    if isCollection, coldState == nil, !options.contains(.prior) {
      // Handed on as they are: the handler's adapter unboxes them (see `deliverCollection`).
      return options.contains(.old) ? change.oldElements : nil
    }
    let root = unsafeDowncast(object, to: Object.self)
    return willChange(root: root, collection: isCollection ? change : nil)
  }

  func didChange(of object: AnyObject, _ change: ChangeDescriptor, token: Any?) {
    let isCollection = change.isCollectionShaped(for: primaryKeyPath)
    if isCollection, coldState == nil {
      return deliverCollection(change, oldElements: token)
    }
    let root = unsafeDowncast(object, to: Object.self)
    didChange(root: root, collection: isCollection ? change : nil, token: token)
  }

  func willSet(of object: AnyObject, _ snapshot: PropertySnapshot) -> Any? {
    guard needsNoticeBeforeSet else { return nil }
    return willChange(of: object, .setting(snapshot.keyPath))
  }

  func didSet(
    of object: AnyObject,
    _ snapshot: PropertySnapshot,
    token: Any?,
    values: SetterValues
  ) {
    guard !rediscovers, values.valueType == Value.self else {
      return didChange(of: object, .setting(snapshot.keyPath), token: token)
    }
    deliverSet(of: object, values)
  }

  /// The token form with no token, spelled out rather than forwarding: forwarding would pass an
  /// `Any?`, whose destruction costs every set generic value-witness calls.
  func didSet(of object: AnyObject, _ snapshot: PropertySnapshot, values: SetterValues) {
    guard !rediscovers, values.valueType == Value.self else {
      return didChange(of: object, .setting(snapshot.keyPath), token: nil)
    }
    deliverSet(of: object, values)
  }

  /// A zeroing of the `@ObservedWeak` property at `keyPath`: the property's registrations take its
  /// values as a set's, with no old value; any other registration reads its key path again, with
  /// no old value and no prior call (``weakHopDidZero(root:)``).
  func weakPropertyDidZero(of object: AnyObject, _ keyPath: AnyKeyPath, values: SetterValues) {
    guard !rediscovers, values.valueType == Value.self else {
      return weakHopDidZero(root: unsafeDowncast(object, to: Object.self))
    }
    deliverSet(of: object, values)
  }

  /// Hands a set's values to the handler, or schedules them on the registration's queue or actor.
  @inline(__always)
  func deliverSet(of object: AnyObject, _ values: SetterValues) {
    guard case .synchronous = delivery else {
      return scheduleSetterChange(values)
    }
    // Only raw pointers and the value type's identity are handled here: this code runs
    // unspecialized, and the handler's adapter builds the change where it is specialized. The
    // setter holds `object`, the root, strongly for the whole call.
    let root = unsafeDowncast(object, to: Object.self)
    gate.open(observation, holding: root) { observer, root in
      let input = HandlerInput(
        oldValue: options.contains(.old) ? values.oldValue : nil,
        newValue: options.contains(.new) ? values.newValue : nil)
      handler(observer, root, input)
    }
  }

  /// Schedules the delivery of a set's change on the registration's queue or actor. The values
  /// are lent for the duration of `didSet` only, so the change that carries them is built now.
  /// Out of line: a `KeyValueChange<Value>` local anywhere in `didSet` would cost it a run-time
  /// metadata look-up on every call, delivered synchronously or not.
  @inline(never)
  func scheduleSetterChange(_ values: SetterValues) {
    var change = KeyValueChange<Value>(kind: .setting)
    if options.contains(.old), let oldValue = values.oldValue {
      change.oldValue = oldValue.assumingMemoryBound(to: Value.self).pointee
    }
    if options.contains(.new) {
      change.newValue = values.newValue.assumingMemoryBound(to: Value.self).pointee
    }
    deliver(change)
  }

  /// Returns the old value, boxed, as the token `didChange` receives, and sends the prior call.
  func willChange(root: Object, collection: ChangeDescriptor?) -> Any? {
    if evaluatesWhereHandlerRuns {
      schedulePriorCall(collection: collection)
      return nil
    }
    if options.contains(.prior) || collection != nil {
      return willChangeWithPriorOrCollection(root: root, collection: collection)
    }
    return options.contains(.old) ? root[keyPath: keyPath] as Any : nil
  }

  @inline(never)
  func willChangeWithPriorOrCollection(root: Object, collection: ChangeDescriptor?) -> Any? {
    var oldValue: Value?
    if options.contains(.old) {
      if let collection {
        oldValue = collection.oldElements.flatMap { $0 as? Value }
      } else {
        oldValue = root[keyPath: keyPath]
      }
    }
    if options.contains(.prior) {
      let prior = KeyValueChange(
        kind: collection?.kind ?? .setting,
        oldValue: oldValue,
        indexes: collection?.indexes,
        isPrior: true
      )
      deliver(prior)
    }
    return oldValue.map { $0 as Any }
  }

  /// Builds the change and delivers it. Out of line, so that a collection change handed on as it
  /// is looks up no `KeyValueChange<Value>` metadata (the optimizer allocates the generic local
  /// at the function's entry).
  ///
  /// - Parameters:
  ///   - discovering: Whether a registration that rediscovers its dependencies discovers them
  ///     again; `false` for a change of the property its evaluation reads last
  ///     (``ChainLinkOwner/linkedLastReadDidChange(token:)``), which changes none of them.
  ///   - knowsOldValue: `false` for a zeroing (``weakHopDidZero(root:)``): where the key path is
  ///     evaluated again, the value the last evaluation read is not handed out as the old value.
  @inline(never)
  func didChange(
    root: Object, collection: ChangeDescriptor?, token: Any?, discovering: Bool = true,
    knowsOldValue: Bool = true
  ) {
    if evaluatesWhereHandlerRuns {
      return scheduleReevaluation(collection: collection, knowsOldValue: knowsOldValue)
    }
    var change = KeyValueChange<Value>(kind: .setting)
    if let token {
      change.oldValue = (token as! Value)
    }
    if (rediscovers && discovering) || collection != nil {
      completeRediscoveringOrCollectionChange(&change, root: root, collection: collection)
    } else if options.contains(.new) {
      change.newValue = root[keyPath: keyPath]
    }
    deliver(change)
  }

  /// Hands a collection change to the handler as the engine has it, elements as `Any`: the
  /// handler's adapter, specialized for `Value`, builds the `KeyValueChange` (see `HandlerInput`).
  /// For a registration delivered synchronously that does not rediscover its dependencies;
  /// `oldElements` is what `willChange` returned, the elements or the old value, boxed.
  func deliverCollection(_ collection: ChangeDescriptor, oldElements: Any?) {
    gate.open(observation) { observer, object in
      let input = CollectionInput(
        kind: collection.kind, indexes: collection.indexes, oldElements: oldElements,
        newElements: options.contains(.new) ? collection.newElements : nil)
      withUnsafePointer(to: input) { handler(observer, object, HandlerInput(collection: $0)) }
    }
  }

  /// Fills in the new value of a key path whose dependencies are discovered again after every
  /// change, and the kind, indexes and elements of a collection change.
  @inline(never)
  func completeRediscoveringOrCollectionChange(
    _ change: inout KeyValueChange<Value>,
    root: Object,
    collection: ChangeDescriptor?
  ) {
    var newValue: Value?
    if rediscovers {
      let (value, dependencies) = Dependencies.discover(root: root, keyPath: keyPath)
      replaceLinks(with: dependencies, root: root)
      newValue = value
    }
    if let collection {
      change.kind = collection.kind
      change.indexes = collection.indexes
      newValue = collection.newElements.flatMap { $0 as? Value }
    }
    change.newValue = options.contains(.new) ? newValue : nil
  }

  /// Sends the prior call of a registration whose key path is evaluated where its handler runs:
  /// there, with the value its last evaluation read as the old value.
  func schedulePriorCall(collection: ChangeDescriptor?) {
    guard options.contains(.prior) else { return }
    delivery.run { [self] in
      var prior = KeyValueChange<Value>(kind: collection?.kind ?? .setting, isPrior: true)
      prior.indexes = collection?.indexes
      if options.contains(.old) {
        // A collection change carries the elements it removes or replaces, as it does
        // synchronously; any other change, the value the last evaluation read.
        prior.oldValue =
          collection.map { $0.oldElements as? Value }
          ?? observation.withLock { coldState?.lastValue } as? Value
      }
      deliverNow(prior)
    }
  }

  /// Evaluates the key path again where the handler runs, replaces the links the evaluation
  /// found, and delivers the change there, its old value the one the last evaluation read unless
  /// `knowsOldValue` is `false`. The changes reach the queue or actor in order, so each evaluation
  /// follows the one before.
  func scheduleReevaluation(collection: ChangeDescriptor?, knowsOldValue: Bool = true) {
    delivery.run { [self] in
      guard observation.isActive, let root else { return }
      let (value, dependencies) = Dependencies.discover(root: root, keyPath: keyPath)
      replaceLinks(with: dependencies, root: root)
      let lastValue = observation.withLock {
        defer { coldState?.lastValue = value }
        return coldState?.lastValue
      }
      var change = KeyValueChange<Value>(kind: .setting)
      if let collection {
        // Its kind and indexes go with the elements it carries, as they do synchronously.
        change.kind = collection.kind
        change.indexes = collection.indexes
        if options.contains(.old) { change.oldValue = collection.oldElements as? Value }
        if options.contains(.new) { change.newValue = collection.newElements as? Value }
      } else {
        if options.contains(.old), knowsOldValue { change.oldValue = lastValue as? Value }
        if options.contains(.new) { change.newValue = value }
      }
      deliverNow(change)
    }
  }

  @inline(__always)
  func deliver(_ change: KeyValueChange<Value>) {
    guard case .synchronous = delivery else { return schedule(change) }
    deliverNow(change)
  }

  @inline(never)
  func schedule(_ change: KeyValueChange<Value>) {
    delivery.run { self.deliverNow(change) }
  }

  @inline(__always)
  func deliverNow(_ change: KeyValueChange<Value>) {
    gate.open(observation) { observer, object in
      withUnsafePointer(to: change) { handler(observer, object, HandlerInput(change: $0)) }
    }
  }
}
