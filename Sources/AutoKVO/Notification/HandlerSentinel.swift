import Foundation

/// The observed-side sentinel of a registration with a typed handler: evaluates the registered
/// key path and calls the handler with the observer, the object and a ``KeyValueChange``.
///
/// Every engine registration the user makes is one: `autoObserve`'s closure, the classic
/// `observeValue(forKeyPath:of:change:context:)` callback and the `changes(for:)` sequence differ
/// only in the handler. When the key path is more than one stored `@Observed` property — a
/// computed property or a chain through other objects — its dependencies are discovered again
/// after every change, and ``ChainLinkSentinel``s on the other objects it reaches forward their
/// changes here.
// @unchecked Sendable: `uncommon.extraTriggers` is guarded by the observed object's registry lock,
// `uncommon.links` by `observation`'s lock, and the rest is immutable; the handler, which need
// not be Sendable, runs where `delivery` says, as KVO's run on the mutating thread.
// `@usableFromInline` only so that the inlinable `register` can name its specialization: the
// metadata is then found in the caller's module, through a cache, not looked up at run time.
@usableFromInline
final class HandlerSentinel<Observer: AnyObject, Object: KeyValueObservable, Value>:
  ObservedSentinel, ChainLinkOwner, @unchecked Sendable
{
  let observation: KeyValueObservation

  let primaryKeyPath: AnyKeyPath?

  /// Notification must never reach an observer that is being deallocated, possibly on another
  /// thread; the reference yields `nil` from the moment its `deinit` begins (see
  /// `ObjectReference`).
  private let observerReference: ObjectReference

  /// The observed object, held the same way: a set made inside the observed object's own
  /// `deinit`, or a registration made there with `.initial`, must not hand the dying object to a
  /// handler, which could keep it past its deallocation; the object's registry, and with it this
  /// registration, outlives the object's `deinit` body, so the registration alone cannot tell.
  /// Also the root from which a change a chain link forwards re-reads the key path.
  private let rootReference: ObjectReference

  /// The observer, retained, unless its deallocation has begun. Inlined: every delivery asks.
  /// As `AnyObject`, what the handler takes (see ``AdaptedHandler``): an `Observer` upcast at the
  /// call would cost every delivery a retain and a release.
  private var observer: AnyObject? {
    @inline(__always) get { observerReference.load(as: AnyObject.self) }
  }

  /// The observed object, retained, unless its deallocation has begun.
  private var root: Object? { rootReference.load(as: Object.self) }

  private let keyPath: KeyPath<Object, Value>
  private let options: ObservationOptions
  /// The user's handler behind an adapter that builds the change (see `HandlerInput`), called
  /// with the observer and the object.
  private let handler: AdaptedHandler

  /// What only some registrations need, out of line: `nil` for a handler that runs synchronously
  /// on a single stored property, the common case, whose sentinel then stays small.
  private let uncommon: Uncommon?

  private final class Uncommon {
    /// Where the handler runs (see `HandlerDelivery`).
    let delivery: HandlerDelivery
    /// Whether the key path is more than one stored property, so that its dependencies are
    /// discovered again after every change.
    let rediscovers: Bool
    /// Further key paths of the observed object whose changes concern the registration, found by
    /// dependency discovery. Guarded by the observed object's registry lock.
    var extraTriggers: [AnyKeyPath]
    /// The links this registration placed on other objects. Guarded by `observation`'s lock.
    var links: [any ChainLink] = []

    init(delivery: HandlerDelivery, rediscovers: Bool, extraTriggers: [AnyKeyPath]) {
      self.delivery = delivery
      self.rediscovers = rediscovers
      self.extraTriggers = extraTriggers
    }
  }

  /// Where the handler runs (see `HandlerDelivery`).
  private var delivery: HandlerDelivery {
    uncommon?.delivery ?? .synchronous
  }

  private var rediscovers: Bool {
    uncommon?.rediscovers ?? false
  }

  /// What it does not store is borrowed: an initializer takes its arguments owned by default,
  /// which would make the registration retain the observer, the object, the whole `Dependencies`
  /// and the delivery for the call, and the initializer release what it did not keep.
  private init(
    observer: borrowing Observer,
    root: borrowing Object,
    keyPath: KeyPath<Object, Value>,
    options: ObservationOptions,
    dependencies: borrowing Dependencies,
    delivery: borrowing HandlerDelivery,
    handler: @escaping AdaptedHandler
  ) {
    observation = KeyValueObservation()
    primaryKeyPath = dependencies.postedKeyPath
    observerReference = ObjectReference(copy observer)
    rootReference = ObjectReference(copy root)
    self.keyPath = keyPath
    self.options = options
    // Extra triggers imply rediscovery (`Dependencies.needsRediscovery`).
    if delivery.isSynchronous, !dependencies.needsRediscovery {
      self.uncommon = nil
    } else {
      self.uncommon = Uncommon(
        delivery: copy delivery, rediscovers: dependencies.needsRediscovery,
        extraTriggers: dependencies.extraRootTriggers)
    }
    self.handler = handler
  }

  deinit {
    // The registration has ended (this sentinel is only released after its registry let it go):
    // its links on other objects end with it. Runs outside every lock.
    for link in uncommon?.links ?? [] {
      link.observation.end(.cancelled)
    }
    observerReference.release()
    rootReference.release()
  }

  /// Registers `changeHandler`, behind its adapter (see `HandlerInput`), for changes of `keyPath`
  /// of `object`, and returns the registration. `currentValue` and `accesses` are what evaluating
  /// `keyPath` on `object` under a recorder (``DependencyRecorder/evaluate(_:on:)``) returned: the
  /// caller evaluates, so that it can do so in the user's module.
  ///
  /// `objectRegistry`, `object`'s, takes ownership of the observed-side sentinel and `observerRegistry` of
  /// the observer-side one; the registration ends, exactly once, when either registry is released
  /// or the handle is cancelled. Neither side is retained.
  static func register(
    observer: Observer,
    observerRegistry: ObservationRegistry,
    object: Object,
    objectRegistry: ObservationRegistry,
    keyPath: KeyPath<Object, Value>,
    options: ObservationOptions,
    delivery: HandlerDelivery,
    handler: @escaping AdaptedHandler,
    currentValue: Value,
    accesses: [DependencyRecorder.Access],
    site: RegistrationSite?
  ) -> KeyValueObservation {
    let dependencies = Dependencies.discover(
      root: object, keyPath: keyPath, value: currentValue, accesses: accesses)
    if dependencies.isEmpty && type(of: object).automaticallyNotifiesObservers(for: keyPath) {
      // A key path that reads no @Observed property is computed (or a plain stored property):
      // when it cannot be named, the registration is told by its types and value type.
      let named = PropertyNames.name(of: keyPath, on: object).map { "keyPath: \($0)" }
      ObservationDiagnostics.report(
        .keyPathNeverNotifies,
        "autoObserve(_:\(named ?? "keyPath:")) of \(type(of: object)) by \(Observer.self)"
          + site.diagnosticSuffix
          + (named == nil ? ", a key path to a \(Value.self) AutoKVO cannot name," : "")
          + " reads no @Observed property and declares no keyPathsForValuesAffecting(_:); it will "
          + "only notify through willChangeValue(for:)/didChangeValue(for:). Mark what it reads "
          + "@Observed, or return false from automaticallyNotifiesObservers(for:) for it if you "
          + "notify it by hand."
      )
    }
    // `self`, the metatype the caller passed, rather than the type's name: naming the generic
    // type here would look its metadata up at run time.
    let sentinel = self.init(
      observer: observer, root: object, keyPath: keyPath, options: options,
      dependencies: dependencies, delivery: delivery, handler: handler)
    let observation = sentinel.observation
    // Both objects are alive for the whole call (the caller holds them), so both registries are
    // too; the registration knows both before either holds a sentinel, so it can never be ended
    // half-built.
    observation.attachUnpublished(
      observedRegistry: objectRegistry, observerRegistry: observerRegistry)
    objectRegistry.attach(sentinel)
    observerRegistry.attach(ObserverSentinel(observation: observation))
    if sentinel.rediscovers {
      sentinel.replaceLinks(with: dependencies, root: object)
    }
    if options.contains(.initial) {
      sentinel.deliverInitial(currentValue: currentValue)
    }
    return observation
  }

  /// Delivers the registration-time call requested with `.initial`. Called inside `register`,
  /// as part of the registration: synchronously, unless the handler must run on a queue the
  /// caller is not on (the rule is `HandlerDelivery.whileRegistering(_:)`'s, shared with the
  /// Foundation path).
  private func deliverInitial(currentValue: Value) {
    let newValue = options.contains(.new) ? currentValue : nil
    let change = KeyValueChange(kind: .setting, newValue: newValue)
    delivery.whileRegistering { deliver(change) }
  }

  func isTriggered(by keyPath: AnyKeyPath) -> Bool {
    // Unwrapped before comparing: `==` on two optionals goes through the generic `Equatable`
    // witness, `AnyKeyPath`'s own `==` does not.
    if let primaryKeyPath, primaryKeyPath.matches(keyPath) { return true }
    guard let uncommon else { return false }
    return uncommon.extraTriggers.contains { $0.matches(keyPath) }
  }

  // A collection change that a registration hands on as it is (see `deliverCollection`) is read
  // where it lies: copying the descriptor, as a `ChangeDescriptor?` for the paths below, would
  // copy its indexes and elements on every collection mutation with an observer.

  func willChange(of object: AnyObject, _ change: ChangeDescriptor) -> Any? {
    let isCollection = change.isCollectionShaped(for: primaryKeyPath)
    if isCollection, uncommon == nil, !options.contains(.prior) {
      // Handed on as they are: the handler's adapter unboxes them (see `deliverCollection`).
      return options.contains(.old) ? change.oldElements : nil
    }
    let root = unsafeDowncast(object, to: Object.self)
    return willChange(root: root, collection: isCollection ? change : nil)
  }

  func didChange(of object: AnyObject, _ change: ChangeDescriptor, token: Any?) {
    let isCollection = change.isCollectionShaped(for: primaryKeyPath)
    if isCollection, uncommon == nil {
      return deliverCollection(change, oldElements: token)
    }
    let root = unsafeDowncast(object, to: Object.self)
    didChange(root: root, collection: isCollection ? change : nil, token: token)
  }

  /// A registration on exactly the property being set (one that does not rediscover its
  /// dependencies is triggered by no other set) takes the setter's values in ``didSet``: it
  /// reads nothing before the change unless it sends a prior call.
  var needsNoticeBeforeSet: Bool {
    rediscovers || options.contains(.prior)
  }

  func willSet(of object: AnyObject, _ snapshot: AutomaticChangeSnapshot) -> Any? {
    guard needsNoticeBeforeSet else { return nil }
    return willChange(of: object, .setting(snapshot.keyPath))
  }

  func didSet(
    of object: AnyObject,
    _ snapshot: AutomaticChangeSnapshot,
    token: Any?,
    values: SetterValues
  ) {
    guard !rediscovers, values.valueType == Value.self else {
      return didChange(of: object, .setting(snapshot.keyPath), token: token)
    }
    deliverSet(of: object, values)
  }

  func didSet(of object: AnyObject, _ snapshot: AutomaticChangeSnapshot, values: SetterValues) {
    guard !rediscovers, values.valueType == Value.self else {
      return didChange(of: object, .setting(snapshot.keyPath), token: nil)
    }
    deliverSet(of: object, values)
  }

  /// Hands a set's values to the handler, or schedules them on the registration's queue or actor.
  @inline(__always)
  private func deliverSet(of object: AnyObject, _ values: SetterValues) {
    guard case .synchronous = delivery else {
      return scheduleSetterChange(values)
    }
    // Only raw pointers and the value type's identity are handled here: this code runs
    // unspecialized, and the handler's adapter builds the change where it is specialized. The
    // setter holds `object`, the root, strongly for the whole call: it is handed on as it is,
    // unless its deallocation has begun (a set inside its `deinit`), without a retain.
    guard observation.isActive, !rootReference.isDeallocating(object), let observer else {
      return
    }
    let root = unsafeDowncast(object, to: Object.self)
    let input = HandlerInput(
      oldValue: options.contains(.old) ? values.oldValue : nil,
      newValue: options.contains(.new) ? values.newValue : nil)
    handler(observer, root, input)
  }

  /// Schedules the delivery of a set's change on the registration's queue or actor. The values
  /// are lent for the duration of `didSet` only, so the change that carries them is built now.
  /// Out of line: a `KeyValueChange<Value>` local anywhere in `didSet` would cost it a run-time
  /// metadata look-up on every call, delivered synchronously or not.
  @inline(never)
  private func scheduleSetterChange(_ values: SetterValues) {
    var change = KeyValueChange<Value>(kind: .setting)
    if options.contains(.old) {
      change.oldValue = values.oldValue.assumingMemoryBound(to: Value.self).pointee
    }
    if options.contains(.new) {
      change.newValue = values.newValue.assumingMemoryBound(to: Value.self).pointee
    }
    deliver(change)
  }

  // MARK: ChainLinkOwner

  func linkedObjectWillChange() -> Any? {
    guard let root else { return nil }
    return willChange(root: root, collection: nil)
  }

  func linkedObjectDidChange(token: Any?) {
    guard let root else { return }
    didChange(root: root, collection: nil, token: token)
  }

  func linkedObjectIsDeallocating() {
    // An object the key path went through is gone (it was referenced weakly): the path now
    // evaluates differently, typically to nil. Its old value cannot be read any more.
    guard let root else { return }
    if options.contains(.prior) {
      deliver(KeyValueChange(kind: .setting, isPrior: true))
    }
    didChange(root: root, collection: nil, token: nil)
  }

  // MARK: Delivery
  //
  // This code runs unspecialized (the sentinel is created inside the generic `autoObserve`), so
  // every generic local it declares costs a run-time metadata look-up of its type on every call,
  // wherever the local is used: the optimizer hoists their stack allocations to the function's
  // entry, and a generic `Optional.map` adds more. The paths every plain set takes therefore
  // build one `KeyValueChange<Value>` field by field (two look-ups: it and `Value?`), and what only
  // prior calls, collection changes, rediscovery and queued delivery need lives in functions of
  // its own. Docs/Performance.md has the profile.

  /// Returns the old value, boxed, as the token `didChange` receives, and sends the prior call.
  private func willChange(root: Object, collection: ChangeDescriptor?) -> Any? {
    if options.contains(.prior) || collection != nil {
      return willChangeWithPriorOrCollection(root: root, collection: collection)
    }
    return options.contains(.old) ? root[keyPath: keyPath] as Any : nil
  }

  @inline(never)
  private func willChangeWithPriorOrCollection(root: Object, collection: ChangeDescriptor?) -> Any?
  {
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
  @inline(never)
  private func didChange(root: Object, collection: ChangeDescriptor?, token: Any?) {
    var change = KeyValueChange<Value>(kind: .setting)
    if let token {
      change.oldValue = (token as! Value)
    }
    if rediscovers || collection != nil {
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
  private func deliverCollection(_ collection: ChangeDescriptor, oldElements: Any?) {
    guard observation.isActive, let observer, let object = root else { return }
    let input = CollectionInput(
      kind: collection.kind, indexes: collection.indexes, oldElements: oldElements,
      newElements: options.contains(.new) ? collection.newElements : nil)
    withUnsafePointer(to: input) { handler(observer, object, HandlerInput(collection: $0)) }
  }

  /// Fills in the new value of a key path whose dependencies are discovered again after every
  /// change, and the kind, indexes and elements of a collection change.
  @inline(never)
  private func completeRediscoveringOrCollectionChange(
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

  @inline(__always)
  private func deliver(_ change: KeyValueChange<Value>) {
    guard case .synchronous = delivery else { return schedule(change) }
    deliverNow(change)
  }

  @inline(never)
  private func schedule(_ change: KeyValueChange<Value>) {
    delivery.run { self.deliverNow(change) }
  }

  @inline(__always)
  private func deliverNow(_ change: KeyValueChange<Value>) {
    // Checked per call, not per snapshot: an earlier handler in the same change may have
    // cancelled this registration, and nothing may be delivered after cancel() returns. Neither
    // side may have begun deallocating: both references answer `nil` from then on.
    guard observation.isActive, let observer, let object = root else { return }
    withUnsafePointer(to: change) { handler(observer, object, HandlerInput(change: $0)) }
  }

  // MARK: Dependencies

  /// Installs freshly discovered dependencies: the triggers on the root object, and one link
  /// per other object, keeping the links that still match and ending the others.
  private func replaceLinks(with dependencies: Dependencies, root: Object) {
    guard let uncommon else {
      preconditionFailure("links replaced for a registration that does not rediscover")
    }
    let triggers = dependencies.extraRootTriggers
    root.observationRegistry.updateTriggers(of: self) { uncommon.extraTriggers = triggers }

    // Under the lifecycle lock; see `ChainLinks.replace` for what is ended and released after it.
    let (retired, _, targetsLoadedUnderLock) = observation.withLock {
      ChainLinks.replace(&uncommon.links, with: dependencies.links.map(\.chainLinkTarget)) {
        target in
        guard case .properties(let keyPaths) = target.key,
          let object = target.object as? any KeyValueObservable
        else { preconditionFailure("an engine chain links engine objects only: \(target)") }
        return ChainLinkSentinel.attach(to: object, keyPaths: keyPaths, owner: self)
      }
    }
    withExtendedLifetime(targetsLoadedUnderLock) {}
    for link in retired {
      link.observation.end(.cancelled)
    }
  }
}

/// One call of a registration's handler, as the engine has it at hand: a ``KeyValueChange`` it
/// built, or the values an `@Observed` setter replaced and stored.
///
/// The engine's registration code is generic and runs unspecialized, where building a
/// `KeyValueChange<Value>` costs run-time metadata look-ups of that type and of `Value?` on every
/// call. A handler adapter (``adaptHandler(_:)``) made in the caller's own module, where
/// `autoObserve` is inlined and so specialized for the concrete types, builds it there instead.
@usableFromInline
struct HandlerInput {
  /// The change, a `KeyValueChange` of the registration's value type, when the engine built one;
  /// `nil` for a `.setting` made of the values below or a collection change.
  @usableFromInline
  let change: UnsafeRawPointer?
  /// A collection change, a ``CollectionInput``, whose elements the adapter casts.
  @usableFromInline
  let collection: UnsafeRawPointer?
  /// The value before the set, when `.old` was requested.
  @usableFromInline
  let oldValue: UnsafeRawPointer?
  /// The value after the set, when `.new` was requested.
  @usableFromInline
  let newValue: UnsafeRawPointer?

  init(change: UnsafeRawPointer) {
    self.change = change
    collection = nil
    oldValue = nil
    newValue = nil
  }

  init(collection: UnsafeRawPointer) {
    change = nil
    self.collection = collection
    oldValue = nil
    newValue = nil
  }

  init(oldValue: UnsafeRawPointer?, newValue: UnsafeRawPointer?) {
    change = nil
    collection = nil
    self.oldValue = oldValue
    self.newValue = newValue
  }

  /// The `.setting` change of a set's values, for a registration whose value type is `Value`:
  /// the input is neither an engine-built change nor a collection change.
  @inlinable
  func settingChange<Value>(as type: Value.Type) -> KeyValueChange<Value> {
    KeyValueChange(
      kind: .setting,
      oldValue: oldValue?.assumingMemoryBound(to: Value.self).pointee,
      newValue: newValue?.assumingMemoryBound(to: Value.self).pointee)
  }
}

extension HandlerInput {
  /// The change a ``CollectionInput`` describes. Out of line: its casts and optional temporaries
  /// would otherwise grow the adapter that every set with an observer calls.
  @inlinable
  @inline(never)
  static func collectionChange<Value>(
    _ collection: UnsafeRawPointer,
    as _: Value.Type
  ) -> KeyValueChange<Value> {
    let collection = collection.assumingMemoryBound(to: CollectionInput.self)
    return KeyValueChange(
      kind: collection.pointee.kind,
      oldValue: elements(at: collection, \.oldElements, as: Value.self),
      newValue: elements(at: collection, \.newElements, as: Value.self),
      indexes: collection.pointee.indexes)
  }

  /// The elements in `field` of `input`, as `Value`. Read through the field's address: reading
  /// the field out of `input.pointee` would copy the optional box first. The address is known
  /// for a stored property of a struct, as the field is; the read through the key path is only
  /// a fallback.
  @inlinable
  @inline(__always)
  static func elements<Value>(
    at input: UnsafePointer<CollectionInput>,
    _ field: KeyPath<CollectionInput, Any?>,
    as _: Value.Type
  ) -> Value? {
    guard let boxed = input.pointer(to: field) else {
      return input.pointee[keyPath: field].flatMap { elements(in: $0, as: Value.self) }
    }
    guard case .some(let elements) = boxed.pointee else { return nil }
    return self.elements(in: elements, as: Value.self)
  }

  /// The elements `boxed` holds, as `Value`, or `nil` when they are of another type. Opens the box
  /// and compares the types, rather than casting it: elements are boxed as the collection's own
  /// type, which is `Value` for every registration that receives them, and `as?` is a costly
  /// run-time cast. Another type takes the cast.
  @inlinable
  static func elements<Value>(in boxed: Any, as _: Value.Type) -> Value? {
    elements(unboxed: boxed, as: Value.self)
  }

  @inlinable
  static func elements<Elements, Value>(unboxed elements: Elements, as _: Value.Type) -> Value? {
    guard Elements.self == Value.self else { return elements as? Value }
    return withUnsafePointer(to: elements) {
      UnsafeRawPointer($0).assumingMemoryBound(to: Value.self).pointee
    }
  }
}

/// A collection change as the engine has it: the kind, the indexes, and the elements removed or
/// replaced and inserted or replacing, each `nil` unless its option was requested, as `Any`: a
/// `Value`, the collection's type, for the adapter to unbox where it is specialized.
@usableFromInline
struct CollectionInput {
  @usableFromInline let kind: ChangeKind
  @usableFromInline let indexes: IndexSet?
  @usableFromInline let oldElements: Any?
  @usableFromInline let newElements: Any?
}

/// A change handler behind its adapter (``adaptHandler(_:)``): called with the observer and the
/// observed object, and the change as the engine has it.
///
/// Its objects are `AnyObject`, not the registration's generic types: the sentinel, which runs
/// unspecialized, would call a closure of a generic function type through a reabstraction thunk,
/// a call more on every delivery. The adapter, made where the types are known, casts them back
/// without a check.
@usableFromInline
typealias AdaptedHandler = (AnyObject, AnyObject, HandlerInput) -> Void

/// Wraps a change handler so that it takes a ``HandlerInput``. Inlined into the module that calls
/// `autoObserve`, the wrapper is specialized there. `Observer` and `Object` are the classes the
/// sentinel is registered for, and it calls the wrapper with those objects only.
@inlinable
func adaptHandler<Observer: AnyObject, Object: AnyObject, Value>(
  _ handler: @escaping (Observer, Object, KeyValueChange<Value>) -> Void
) -> AdaptedHandler {
  { observer, object, input in
    let observer = unsafeDowncast(observer, to: Observer.self)
    let object = unsafeDowncast(object, to: Object.self)
    // One call of the handler per kind of input, each with its own change, so that a set pays
    // for none of the collection case's code; and so that the set's change, whose indexes are
    // known to be `nil`, is not released as if they might not be, and the adapter keeps only
    // the registers of the path it takes.
    if let collection = input.collection {
      return handler(observer, object, HandlerInput.collectionChange(collection, as: Value.self))
    }
    if let change = input.change {
      return handler(
        observer, object, change.assumingMemoryBound(to: KeyValueChange<Value>.self).pointee)
    }
    handler(observer, object, input.settingChange(as: Value.self))
  }
}
