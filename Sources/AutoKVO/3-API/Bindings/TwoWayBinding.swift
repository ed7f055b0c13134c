/// What the two directions of one two-way binding share: the writes in progress, so that neither
/// direction hears the other's write as a change, and the group that ends them together.
///
/// Each direction is an ordinary registration: the target's on the object, which writes the
/// target, and the object's on the target, which writes the object. Both are members of
/// ``group``, whose handle `autoSync` returns.
final class TwoWayBinding<Value: Equatable>: Sendable {
  let writes = BindingWrites()
  let group: RegistrationGroup

  init(group: RegistrationGroup) {
    self.group = group
  }

  /// Writes `change`'s whole value of `sourceKeyPath` to `destinationKeyPath`, unless the
  /// destination already holds an equal value or the binding is writing on this thread. When the
  /// destination's setter kept another value, writes that one back to the source once, unless
  /// the source holds it or the binding has ended meanwhile (a setter that cancelled it).
  func propagate<Source: AnyObject, Destination: AnyObject>(
    _ change: KeyValueChange<Value>,
    of sourceKeyPath: ReferenceWritableKeyPath<Source, Value>,
    on source: Source,
    to destinationKeyPath: ReferenceWritableKeyPath<Destination, Value>,
    on destination: Destination
  ) {
    guard let thread = writes.beginWrite() else { return }
    defer { writes.endWrite(on: thread) }
    let value = change.wholeValue(of: sourceKeyPath, on: source)
    guard destination[keyPath: destinationKeyPath] != value else { return }
    destination[keyPath: destinationKeyPath] = value
    let kept = destination[keyPath: destinationKeyPath]
    // Two NaNs are the same value kept, though not equal.
    guard kept != value, kept == kept || value == value else { return }
    guard !group.isEnded, source[keyPath: sourceKeyPath] != kept else { return }
    source[keyPath: sourceKeyPath] = kept
  }
}

extension KeyValueObservable {
  /// Keeps `keyPath` of this object and `objectKeyPath` of `object` equal, in both directions,
  /// until either is deallocated, with no teardown code.
  ///
  /// <!-- snippet-glue
  /// final class Field: KeyValueObservable {
  ///     let observationRegistry = ObservationRegistry()
  ///     @Observed var text = ""
  /// }
  /// let nameField = Field()
  /// let person = Person()
  /// -->
  /// ```swift
  /// nameField.autoSync(\.text, with: person, keyPath: \.name)  // nameField.text ⇄ person.name
  /// ```
  ///
  /// `object` is the source of truth: before this method returns, this object takes its value,
  /// unless the two are already equal. After that, a change of either side is written to the
  /// other once, unless it already holds an equal value. While the binding writes one side, it
  /// ignores any change it hears on the same thread, so it cannot ping-pong, whatever the values
  /// (`NaN` included) and the setters. After writing a side, it reads it back: when that side's
  /// setter kept another value (it clamped or trimmed), that value is written back to the other
  /// side once, so that the normalizing side wins.
  ///
  /// Both directions end together, exactly once, when either side is deallocated, at
  /// ``KeyValueObservation/cancel()``, or when either side stops observing the other
  /// (``stopObserving(_:)-(KeyValueObservable)``, ``stopObserving(_:keyPath:)-1a1ai``, ``stopObservingAll()``): `object`
  /// observes this object. Writes happen where an `autoObserve` handler registered from the same
  /// place would run; both sides must not be set from two threads at once. A property that cannot
  /// notify (a plain `var`) is reported as an ``ObservationDiagnostic``: only `object`'s changes
  /// then reach it.
  ///
  /// - Parameters:
  ///   - keyPath: The property of this object to keep in step.
  ///   - object: The other object, whose value wins at first. It is not retained.
  ///   - objectKeyPath: The property of `object` to keep in step.
  ///   - isolation: The caller's actor, captured by default; the writes happen there.
  ///   - file: The file of the call, which diagnostics name; leave it to its default.
  ///   - line: The line of the call, likewise.
  /// - Returns: A handle you may keep to end the binding early, or drop: dropping it does not end
  ///   the binding.
  @discardableResult
  public func autoSync<Object: KeyValueObservable, Value: Equatable>(
    _ keyPath: ReferenceWritableKeyPath<Self, Value>,
    with object: Object,
    keyPath objectKeyPath: ReferenceWritableKeyPath<Object, Value>,
    isolation: isolated (any Actor)? = #isolation,
    file: StaticString = #fileID,
    line: UInt = #line
  ) -> KeyValueObservation {
    registerTwoWayBinding(
      keyPath, object, objectKeyPath, .resolve(isolation: isolation),
      site: RegistrationSite(file: file, line: line, call: .autoSync))
  }

  /// Registers both directions of a two-way binding as one group, the object's direction first
  /// so that its `.initial` call makes the first sync.
  func registerTwoWayBinding<Object: KeyValueObservable, Value: Equatable>(
    _ keyPath: ReferenceWritableKeyPath<Self, Value>,
    _ object: Object,
    _ objectKeyPath: ReferenceWritableKeyPath<Object, Value>,
    _ delivery: HandlerDelivery,
    site: RegistrationSite
  ) -> KeyValueObservation {
    if let refusal = refusalOfBindingToItself(
      keyPath, of: object, objectKeyPath, call: "autoSync", site: site)
    {
      return refusal
    }
    // Refused once for both directions.
    guard !ObjectReference.hasBegunDeallocating(self),
      !ObjectReference.hasBegunDeallocating(object)
    else {
      return refuseRegistrationOfDeallocatingSide(with: object, keyPath: objectKeyPath, site: site)
    }
    let group = RegistrationGroup(membersEndAlone: false)
    let handle = group.makeHandle()
    let binding = TwoWayBinding<Value>(group: group)
    group.add(
      register(
        object, objectKeyPath, OneWayBinding.options, delivery,
        { target, object, change in
          binding.propagate(change, of: objectKeyPath, on: object, to: keyPath, on: target)
        }, site: site))
    if !group.isEnded {
      group.add(
        object.register(
          self, keyPath, [.new], delivery,
          { object, target, change in
            binding.propagate(change, of: keyPath, on: target, to: objectKeyPath, on: object)
          }, site: site))
    }
    group.complete()
    return handle
  }
}
