import _AutoKVOShims

/// Records which `@Observed` properties an evaluation reads, on the current thread.
///
/// Registration evaluates the observed key path under a recorder; each `@Observed` getter it
/// reaches reports its object and key path, so a registration learns which property sets concern
/// it — through computed properties and key-path chains — without any declaration.
///
/// A recording is an array of reads on the stack of the code that records; the thread-local slot
/// points to it while `body` runs. No object is allocated for it.
@usableFromInline
enum DependencyRecorder {
  @usableFromInline
  struct Access {
    let object: any KeyValueObservable
    let keyPath: AnyKeyPath
    /// The read property's identity in its object: what a diagnostic names it by
    /// (`PropertyNames`); `none` for a property that is not `@Observed`.
    let property: ObservedPropertyIndex
    /// What the read returned, as far as a chain goes on from it: the object, or whether a value
    /// that may hold one (``Dependencies/unobservedHops(in:root:value:)``).
    let returned: ReturnedValue
  }

  /// What an `@Observed` read returned, for telling which objects an evaluation reached through
  /// declared hops.
  @usableFromInline
  enum ReturnedValue {
    /// An object, or an optional that holds one: the read is the hop to it.
    case object(AnyObject)
    /// A value that may hold references (a struct, a collection, an enum, a string): a chain may
    /// go on through one of its members, which replacing the property replaces.
    case compositeValue
    /// An optional that is `nil`: a chain through it goes no further for now.
    case none
    /// A value of a trivial type, which holds no reference: nothing is reached through it.
    case noReference

    /// Classifies `value` by its dynamic type, unwrapping optionals; runs only while recording or
    /// discovering a chain.
    @usableFromInline
    init<Value>(of value: Value) {
      // A trivial type holds no reference at all; a trivial optional's `nil` is still `nil`.
      if _isPOD(Value.self), !(Value.self is any OptionalReturnedValue.Type) {
        self = .noReference
        return
      }
      let boxed = value as Any
      if type(of: boxed) is AnyClass {
        self = .object(boxed as AnyObject)
      } else if let optional = boxed as? any OptionalReturnedValue {
        self = optional.returnedValue
      } else {
        self = .compositeValue
      }
    }
  }

  /// Evaluates `body` while recording the `@Observed` reads it makes on this thread.
  ///
  /// Inlinable, so that a registration evaluates its key path in the caller's module: there the
  /// key path is usually a literal, which the optimizer turns into a direct call of the getter,
  /// where the library would go through the slow key-path runtime (Docs/Performance.md explains
  /// the cost model).
  @inlinable
  static func record<Result>(_ body: () -> Result) -> (result: Result, accesses: [Access]) {
    var accesses: [Access] = []
    // The getters reached by `body` append through the slot's pointer, on this thread, while
    // this access to `accesses` lasts; an inner recording points the slot elsewhere meanwhile.
    let result = withUnsafeMutablePointer(to: &accesses) { accesses in
      let outer = autokvo_thread_recorder()
      autokvo_set_thread_recorder(UnsafeMutableRawPointer(accesses))
      autokvo_recording_began()
      defer {
        autokvo_recording_ended()
        autokvo_set_thread_recorder(outer)
      }
      return body()
    }
    return (result, accesses)
  }

  /// Evaluates `keyPath` on `object` while recording; what a registration starts with.
  @inlinable
  static func evaluate<Object: KeyValueObservable, Value>(
    _ keyPath: KeyPath<Object, Value>,
    on object: Object
  ) -> (result: Value, accesses: [Access]) {
    record { object[keyPath: keyPath] }
  }

  /// Whether any thread is recording; what every `@Observed` getter asks first, with one
  /// relaxed load.
  @inlinable
  static var isAnyThreadRecording: Bool {
    autokvo_is_any_thread_recording() != 0
  }

  /// Whether this thread is recording.
  @usableFromInline
  static var isRecordingOnThisThread: Bool {
    autokvo_thread_recorder() != nil
  }

  /// Records a read of `keyPath` of `object` in this thread's recording, if there is one; `value`
  /// is what the read returns.
  @usableFromInline
  static func noteAccessWhileRecording<Value>(
    object: any KeyValueObservable,
    keyPath: AnyKeyPath,
    property: ObservedPropertyIndex,
    value: Value
  ) {
    guard let raw = autokvo_thread_recorder() else { return }  // another thread is recording
    // A read of a trivial type leads nowhere, whatever its value: asked first, so that the usual
    // read of a number or a flag costs no dynamic cast.
    let returned = _isPOD(Value.self) ? ReturnedValue.noReference : ReturnedValue(of: value)
    raw.assumingMemoryBound(to: [Access].self).pointee.append(
      Access(object: object, keyPath: keyPath, property: property, returned: returned))
  }
}

/// An optional, asked what it wraps without naming its wrapped type.
@usableFromInline
protocol OptionalReturnedValue {
  var returnedValue: DependencyRecorder.ReturnedValue { get }
}

extension Optional: OptionalReturnedValue {
  @usableFromInline
  var returnedValue: DependencyRecorder.ReturnedValue {
    guard case .some(let wrapped) = self else { return .none }
    return DependencyRecorder.ReturnedValue(of: wrapped)
  }
}
